// See exports.hpp.
#include "tools/rnbdctl/exports.hpp"

#include <algorithm>
#include <map>

#include "rnbd/core/rnbd-srv-exports.hpp"
#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

namespace {

namespace core = rnbd::srv::exports;

cxxrt::StringView view(const std::string& text) { return cxxrt::StringView(text.data(), text.size()); }

std::string text_of(cxxrt::StringView text) { return std::string(text.data(), text.length()); }

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// The line without its comment ('#' at the start or after a blank).
std::string without_comment(const std::string& line)
{
    for (size_t i = 0; i < line.size(); ++i)
        if (line[i] == '#' && (i == 0 || is_blank(line[i - 1])))
            return line.substr(0, i);
    return line;
}

bool is_blank_line(const std::string& line)
{
    return std::all_of(line.begin(), line.end(), [](char c) { return is_blank(c) || c == '\r'; });
}

std::vector<std::string> lines_of(const std::string& text)
{
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

}  // namespace

std::string export_directory(const std::string& name)
{
    std::string directory = name;
    std::replace(directory.begin(), directory.end(), '/', '!');
    return directory;
}

bool exports_available(const Sysfs& sysfs) { return sysfs.is_directory(kServerExports); }

bool read_server_export(const Sysfs& sysfs, const std::string& name, ServerExport& out)
{
    const std::string directory = export_directory(name);
    // exports/'s own files, and anything that could leave the directory.
    if (directory.empty() || directory == "." || directory == ".." || directory == "add" || directory == "remove")
        return false;
    const std::string dir = std::string(kServerExports) + "/" + directory;
    if (!sysfs.is_directory(dir))
        return false;
    out = ServerExport{};
    out.directory = directory;
    out.name = directory;
    std::replace(out.name.begin(), out.name.end(), '!', '/');
    out.definition = sysfs.read_or(dir + "/definition", "");
    out.path = sysfs.read_or(dir + "/path", "");
    out.access_mode = sysfs.read_or(dir + "/access_mode", "");
    out.io_modes = sysfs.read_or(dir + "/io_modes", "");
    out.session = sysfs.read_or(dir + "/session", "");
    for (const std::string& rule : lines_of(sysfs.read_or(dir + "/allow", "")))
        if (!rule.empty())
            out.allow.push_back(rule);
    for (const ServerDevice& device : read_server_devices(sysfs))
        for (const ServerExportSession& entry : device.sessions)
            if (entry.mapping_path == out.name)
                out.mappings.push_back({entry.session, device.name, entry.access_mode});
    return true;
}

std::vector<ServerExport> read_server_exports(const Sysfs& sysfs)
{
    std::vector<ServerExport> exports;
    for (const std::string& directory : sysfs.list(kServerExports)) {
        ServerExport exported;
        if (read_server_export(sysfs, directory, exported))
            exports.push_back(exported);
    }
    return exports;
}

bool check_export_definition(const std::string& line, CheckedDefinition& out, std::string& error)
{
    core::ExportDefinition definition;
    core::DefinitionError reason;
    if (core::parse_definition(view(line), definition, &reason).is_error()) {
        // The module's log line: "exports/add: %s: '%.*s'".
        error = std::string("exports/add: ") + core::definition_reason_text(reason) + ": '" +
                std::string(reason.token.data(), std::min<size_t>(reason.token.length(), 64)) + "'";
        return false;
    }
    const std::string name = definition.name;
    if (name == "add" || name == "remove") {
        error = "exports/add: '" + name + "' is the name of a file in exports/: choose another name";
        return false;
    }
    char canonical[core::kMaxDefinitionLength + 8];
    auto length = core::format_definition(definition, cxxrt::Span<char>(canonical, sizeof(canonical)));
    if (length.is_error()) {
        error = "exports/add: the definition is too long";
        return false;
    }
    out.name = name;
    out.canonical = text_of(cxxrt::StringView(canonical, length.value()));
    while (!out.canonical.empty() && out.canonical.back() == '\n')
        out.canonical.pop_back();
    return true;
}

bool parse_exports_file(const std::string& file_name, const std::string& text, std::vector<ExportsFileEntry>& entries,
                        std::string& error)
{
    entries.clear();
    std::map<std::string, int> seen;  // name -> its line
    const std::vector<std::string> lines = lines_of(text);
    for (size_t index = 0; index < lines.size(); ++index) {
        const int line_number = int(index + 1);
        std::string line = without_comment(lines[index]);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (is_blank_line(line))
            continue;
        const std::string where = file_name + ":" + std::to_string(line_number) + ": ";
        CheckedDefinition checked;
        std::string message;
        if (!check_export_definition(line, checked, message)) {
            error = where + message;
            return false;
        }
        auto [first, inserted] = seen.insert({checked.name, line_number});
        if (!inserted) {
            error = where + "export '" + checked.name + "' is listed a second time (first on line " +
                    std::to_string(first->second) + ")";
            return false;
        }
        entries.push_back({line_number, checked.name, checked.canonical});
    }
    return true;
}

size_t count_exports_lines(const std::string& text)
{
    size_t count = 0;
    for (const std::string& line : lines_of(text))
        count += !is_blank_line(without_comment(line));
    return count;
}

std::string format_exports_file(const std::vector<ServerExport>& exports)
{
    std::string text =
        "# rnbd-server exports: what `rnbdctl server restore` defines (rnbd-exports.service at\n"
        "# boot), written by `rnbdctl server save`. One export per line, as written to\n"
        "# /sys/class/rnbd-server/ctl/exports/add: name= path= allow=... [access=] [io_modes=]\n"
        "# [session=]. '#' starts a comment. See rnbdctl(8).\n";
    for (const ServerExport& exported : exports)
        text += exported.definition + "\n";
    return text;
}

}  // namespace rnbdctl
