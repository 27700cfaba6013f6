// See rnbdtab.hpp.
#include "tools/rnbdctl/rnbdtab.hpp"

#include <algorithm>
#include <set>

#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

namespace {

std::vector<std::string> split_blanks(const std::string& line)
{
    std::vector<std::string> tokens;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        if (i >= line.size() || line[i] == '#')
            break;
        size_t end = i;
        while (end < line.size() && line[end] != ' ' && line[end] != '\t')
            ++end;
        tokens.push_back(line.substr(i, end - i));
        i = end;
    }
    return tokens;
}

std::string token_value(const std::vector<std::string>& tokens, const std::string& key)
{
    for (const std::string& token : tokens)
        if (token.compare(0, key.size() + 1, key + "=") == 0)
            return token.substr(key.size() + 1);
    return {};
}

// The address text of a path for path=: the destination, or source@
// destination when another path of the session has the same destination
// (the kernel would refuse two equal path= otherwise).
std::string path_token(const ClientSession& session, const ClientPath& path)
{
    size_t same = 0;
    for (const ClientPath& other : session.paths)
        same += other.dst_addr == path.dst_addr;
    const bool source_known = path.src_addr.rfind("ip:", 0) == 0 || path.src_addr.rfind("gid:", 0) == 0;
    if (same > 1 && source_known)
        return "path=" + path.src_addr + "@" + path.dst_addr;
    return "path=" + path.dst_addr;
}

// The lines of `text`: the good ones into `entries`, a message for each bad
// one; after the first bad line only when `every_line`.
std::vector<std::string> read_rnbdtab(const Context& context, const std::string& file_name, const std::string& text,
                                      std::vector<RnbdtabEntry>& entries, bool every_line)
{
    entries.clear();
    std::vector<std::string> errors;
    std::set<std::pair<std::string, std::string>> seen;
    size_t start = 0;
    int line_number = 0;
    while (start < text.size() && (every_line || errors.empty())) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        std::vector<std::string> tokens = split_blanks(line);
        if (tokens.empty())
            continue;
        const std::string where = file_name + ":" + std::to_string(line_number) + ": ";
        RnbdtabEntry entry;
        entry.line_number = line_number;
        std::string message;
        if (!add_map_tokens(tokens, entry.request, message) ||
            !check_map_request(context, entry.request, entry.line, message)) {
            errors.push_back(where + message);
            continue;
        }
        if (!seen.insert({entry.request.session, entry.request.device_path}).second) {
            errors.push_back(where + entry.request.device_path + " of session " + entry.request.session +
                             " is listed a second time");
            continue;
        }
        entries.push_back(entry);
    }
    return errors;
}

}  // namespace

bool parse_rnbdtab(const Context& context, const std::string& file_name, const std::string& text,
                   std::vector<RnbdtabEntry>& entries, std::string& error)
{
    const std::vector<std::string> errors = read_rnbdtab(context, file_name, text, entries, false);
    if (errors.empty())
        return true;
    error = errors.front();
    return false;
}

std::vector<std::string> check_rnbdtab(const Context& context, const std::string& file_name,
                                       const std::string& text, std::vector<RnbdtabEntry>& entries)
{
    return read_rnbdtab(context, file_name, text, entries, true);
}

size_t count_rnbdtab_lines(const std::string& text)
{
    size_t count = 0;
    for (size_t start = 0; start < text.size();) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        count += !split_blanks(text.substr(start, end - start)).empty();
        start = end + 1;
    }
    return count;
}

std::string format_rnbdtab(const Context& context, const std::vector<RnbdtabEntry>& previous,
                           std::vector<std::string>& warnings)
{
    std::string text =
        "# rnbdtab: the mappings `rnbdctl restore` brings back (written by `rnbdctl save`).\n"
        "# One mapping per line, as written to map_device, plus rnbdctl's session\n"
        "# settings mpath_policy= and max_reconnect_attempts=. See rnbdctl(8).\n";
    std::vector<ClientSession> sessions = read_client_sessions(context.sysfs);
    for (const ClientDevice& device : read_client_devices(context.sysfs)) {
        std::vector<std::string> tokens = {"sessname=" + device.session};
        auto session = std::find_if(sessions.begin(), sessions.end(),
                                    [&](const ClientSession& candidate) { return candidate.name == device.session; });
        if (session == sessions.end() || session->paths.empty())
            warnings.push_back(device.name + ": session " + device.session +
                               " has no paths; its line has no path= (restore needs the session to exist)");
        if (session != sessions.end())
            for (const ClientPath& path : session->paths)
                tokens.push_back(path_token(*session, path));
        tokens.push_back("device_path=" + device.device_path);
        if (!device.access_mode.empty())
            tokens.push_back("access_mode=" + device.access_mode);
        if (!device.io_mode.empty() && device.io_mode != "blockio")
            tokens.push_back("io_mode=" + device.io_mode);
        if (device.nr_poll_queues != kUnknown && device.nr_poll_queues != 0)
            tokens.push_back("nr_poll_queues=" + std::to_string(device.nr_poll_queues));
        // dest_port is not in sysfs: kept from the line this one replaces.
        for (const RnbdtabEntry& old : previous)
            if (old.request.session == device.session && old.request.device_path == device.device_path) {
                std::string port = token_value(old.request.tokens, "dest_port");
                if (!port.empty())
                    tokens.push_back("dest_port=" + port);
            }
        // Settings at the kernel's default (min-inflight, -1) are left out.
        if (session != sessions.end()) {
            if (session->io_hold_timeout_ms != kUnknown)
                tokens.push_back("io_hold_timeout_ms=" + std::to_string(session->io_hold_timeout_ms));
            if (!session->mpath_policy.empty() && session->mpath_policy != "min-inflight")
                tokens.push_back("mpath_policy=" + session->mpath_policy);
            if (session->max_reconnect_attempts != kUnknown && session->max_reconnect_attempts != -1)
                tokens.push_back("max_reconnect_attempts=" + std::to_string(session->max_reconnect_attempts));
        }
        std::string line;
        for (const std::string& token : tokens)
            line += (line.empty() ? "" : " ") + token;
        text += line + "\n";
    }
    return text;
}

}  // namespace rnbdctl
