// Command-line options of one command: "--name value", "--name=value" and
// flags, checked against the command's table; everything else is a
// positional argument ("--" ends the options).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace rnbdctl {

struct OptionSpec {
    const char* name;  // without the leading "--"
    bool takes_value;
    bool repeatable;
};

struct Arguments {
    std::map<std::string, std::vector<std::string>> options;
    std::vector<std::string> positionals;

    bool has(const std::string& name) const { return options.count(name) != 0; }
    // The last value given (options taking a value), or "".
    std::string value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const;
};

// False with `error` set on an unknown option, a missing value, or an
// option given twice that may be given only once.
bool parse_arguments(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, Arguments& out,
                     std::string& error);

}  // namespace rnbdctl
