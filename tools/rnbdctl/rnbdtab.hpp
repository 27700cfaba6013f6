// The rnbdtab file (default /etc/rnbd/rnbdtab) that `save` writes and
// `restore` reads: one mapping per line, written as the map_device line
// (sessname= path= device_path= ...), plus rnbdctl's session settings
// mpath_policy= and max_reconnect_attempts=. Blank lines are ignored; '#' at
// the start of a line or after a blank starts a comment. The format is
// documented in Documentation/rnbdctl.md and rnbdctl(8).
#pragma once

#include <string>
#include <vector>

#include "tools/rnbdctl/commands.hpp"

namespace rnbdctl {

struct RnbdtabEntry {
    int line_number = 0;
    MapRequest request;
    std::string line;  // the map_device line, checked
};

// Reads and checks every line (with the module's parser); false with
// "<file>:<line>: <message>" in `error` at the first bad line.
bool parse_rnbdtab(const Context& context, const std::string& file_name, const std::string& text,
                   std::vector<RnbdtabEntry>& entries, std::string& error);
// `restore --check`: every line checked, a "<file>:<line>: <message>" for
// each bad one (empty when all are good); the good ones in `entries`.
std::vector<std::string> check_rnbdtab(const Context& context, const std::string& file_name,
                                       const std::string& text, std::vector<RnbdtabEntry>& entries);

// The lines of an rnbdtab text that are neither blank nor comments: the
// mappings it lists, whether they parse or not.
size_t count_rnbdtab_lines(const std::string& text);

// The file's text for the current mappings. `previous` (the entries of the
// file being replaced) supplies what sysfs does not show: dest_port=.
std::string format_rnbdtab(const Context& context, const std::vector<RnbdtabEntry>& previous,
                           std::vector<std::string>& warnings);

}  // namespace rnbdctl
