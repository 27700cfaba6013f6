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

// The options that take no value (flags, e.g. unmap's --force); every
// other option of every command takes the next word as its value. One list
// for run()'s scan of global options (cli.cpp), which must know which words
// are values, and for parse_arguments, which checks its specs against it.
// `name` is without the leading "--".
bool is_flag_option(const std::string& name);
// "--name" or "--name=value": an option word, where "--" alone ends the
// options and anything else (a single dash included) is a positional.
bool is_long_option(const std::string& word);

// False with `error` set on an unknown option, a missing value, or an
// option given twice that may be given only once; also on a spec that
// disagrees with is_flag_option (a programming error, refused before any
// word is looked at).
bool parse_arguments(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs, Arguments& out,
                     std::string& error);

}  // namespace rnbdctl
