// rnbd-server's exports as rnbdctl sees them (Documentation/sysfs.md,
// "Exports"): the tree under /sys/class/rnbd-server/ctl/exports/ read into
// structs, a definition line checked with the module's own parser
// (rnbd/core/rnbd-srv-exports.cpp, built for the host), and the exports
// file (default /etc/rnbd/exports) that `server save` writes and
// `server restore` reads: one definition line per export, as exports/add
// takes it. The commands are in server-exports.cpp.
#pragma once

#include <string>
#include <vector>

#include "tools/rnbdctl/commands.hpp"

namespace rnbdctl {

// sysfs locations, relative to the root.
inline constexpr const char* kServerExports = "class/rnbd-server/ctl/exports";

// A session's mapping of an export: its server-side mapping
// (devices/<device>/sessions/<session>/) whose mapping_path is the export's name.
struct ExportMapping {
    std::string session;
    std::string device;  // the server's device directory
    std::string access_mode;
};

struct ServerExport {
    std::string name;        // what a client maps ('/' in it is '!' in the directory)
    std::string directory;   // exports/<directory>
    std::string definition;  // the canonical line, without its newline
    std::string path;
    std::string access_mode;  // ro | rw
    std::string io_modes;     // blockio | fileio | blockio,fileio
    std::vector<std::string> allow;
    std::string session;  // "" = any session
    std::vector<ExportMapping> mappings;
};

// "db/ro" -> "db!ro" (also when given in its directory form already).
std::string export_directory(const std::string& name);
// Whether rnbd-server offers exports (our module, loaded).
bool exports_available(const Sysfs& sysfs);
std::vector<ServerExport> read_server_exports(const Sysfs& sysfs);
// `name` as listed, or its directory name; false if there is no such export.
bool read_server_export(const Sysfs& sysfs, const std::string& name, ServerExport& out);

// A definition line checked as exports/add checks it: the module's parser,
// and the names of exports/'s own files. On success `name` and `canonical`
// (the module's canonical text, without the newline) are set; otherwise
// `error` is the module's log text ("exports/add: <reason>: '<token>'").
struct CheckedDefinition {
    std::string name;
    std::string canonical;
};
bool check_export_definition(const std::string& line, CheckedDefinition& out, std::string& error);

// The exports file. Blank lines are ignored; '#' at the start of a line or
// after a blank starts a comment.
struct ExportsFileEntry {
    int line_number = 0;
    std::string name;
    std::string canonical;
};
// Checks every line; false with "<file>:<line>: <message>" in `error` at
// the first bad line or the second line of a name.
bool parse_exports_file(const std::string& file_name, const std::string& text, std::vector<ExportsFileEntry>& entries,
                        std::string& error);
// The lines that are neither blank nor comments: the exports the text
// lists, whether they parse or not.
size_t count_exports_lines(const std::string& text);
// The file's text for these exports: a comment header, then each
// export's canonical definition.
std::string format_exports_file(const std::vector<ServerExport>& exports);

// `rnbdctl server export|session|save|restore ...` (server-exports.cpp).
int server_export(Context& context, const Args& args);
int server_session(Context& context, const Args& args);
int server_save(Context& context, const Args& args);
int server_restore(Context& context, const Args& args);

}  // namespace rnbdctl
