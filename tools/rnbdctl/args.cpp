// See args.hpp.
#include "tools/rnbdctl/args.hpp"

namespace rnbdctl {

std::string Arguments::value(const std::string& name) const
{
    auto found = options.find(name);
    return found == options.end() || found->second.empty() ? std::string() : found->second.back();
}

std::vector<std::string> Arguments::values(const std::string& name) const
{
    auto found = options.find(name);
    return found == options.end() ? std::vector<std::string>() : found->second;
}

bool is_flag_option(const std::string& name)
{
    // unmap's --force and --all, save's --force, --dry-run of map, unmap
    // and restore, restore's --check, server export add's --read-only,
    // server restore's --check and --replace; a new flag of any command
    // goes here.
    for (const char* flag : {"force", "all", "dry-run", "check", "read-only", "replace"})
        if (name == flag)
            return true;
    return false;
}

bool is_long_option(const std::string& word) { return word.size() > 2 && word.compare(0, 2, "--") == 0; }

bool parse_arguments(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, Arguments& out,
                     std::string& error)
{
    out = Arguments{};
    // run() has already decided which words are values by the flag list;
    // a spec saying otherwise would parse the line differently.
    for (const OptionSpec& spec : specs)
        if (spec.takes_value == is_flag_option(spec.name)) {
            error = std::string("internal error: --") + spec.name +
                    (spec.takes_value ? " is declared with a value, but is_flag_option (args.cpp) lists it as a flag"
                                      : " is declared without a value, but is_flag_option (args.cpp) does not list it");
            return false;
        }
    bool options_ended = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (options_ended || !is_long_option(arg)) {
            if (arg == "--" && !options_ended) {
                options_ended = true;
                continue;
            }
            out.positionals.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        std::string value;
        bool inline_value = false;
        size_t equals = name.find('=');
        if (equals != std::string::npos) {
            value = name.substr(equals + 1);
            name = name.substr(0, equals);
            inline_value = true;
        }
        const OptionSpec* spec = nullptr;
        for (const OptionSpec& candidate : specs)
            if (name == candidate.name)
                spec = &candidate;
        if (!spec) {
            error = "unknown option --" + name;
            return false;
        }
        if (spec->takes_value && !inline_value) {
            if (i + 1 >= args.size()) {
                error = "--" + name + " needs a value";
                return false;
            }
            value = args[++i];
        } else if (!spec->takes_value && inline_value) {
            error = "--" + name + " takes no value";
            return false;
        }
        if (!spec->repeatable && out.has(name)) {
            error = "--" + name + " given twice";
            return false;
        }
        out.options[name].push_back(value);
    }
    return true;
}

}  // namespace rnbdctl
