// Server commands: server list [devices|sessions], server close (an
// export's force_close for one session), server path disconnect.
#include <errno.h>

#include <algorithm>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

void print_json(const Context& context, JsonWriter& json) { fputs(json.text().c_str(), context.out); }

int not_loaded(const Context& context, const std::string& what)
{
    return context.fail(what, "rnbd-server is not loaded (no /sys/" + std::string(kServerDevices) + ")",
                        kExitNotLoaded);
}

int server_list(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("server list", error);
    const std::string what = parsed.positionals.empty() ? "devices" : parsed.positionals[0];
    if (parsed.positionals.size() > 1 || (what != "devices" && what != "sessions"))
        return context.usage("server list", "server list [devices|sessions]");
    JsonWriter json;
    json.begin_object().number("version", kJsonVersion);
    if (what == "devices") {
        std::vector<ServerDevice> devices = read_server_devices(context.sysfs);
        if (!context.json()) {
            table_server_devices(context.out, devices);
            return kExitOk;
        }
        json.begin_array("devices");
        for (const ServerDevice& device : devices)
            json_server_device(json, device);
    } else {
        std::vector<ServerSession> sessions = read_server_sessions(context.sysfs);
        if (!context.json()) {
            table_server_sessions(context.out, sessions);
            return kExitOk;
        }
        json.begin_array("sessions");
        for (const ServerSession& session : sessions)
            json_server_session(json, session);
    }
    json.end_array().end_object();
    print_json(context, json);
    return kExitOk;
}

// `server close EXPORT SESSION`: EXPORT is the export's name (as listed)
// or the path the client mapped.
int server_close(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("server close", error);
    if (parsed.positionals.size() != 2)
        return context.usage("server close", "give an export and a session");
    const std::string& export_name = parsed.positionals[0];
    const std::string& session = parsed.positionals[1];
    const std::string what = "server close " + export_name + " " + session;
    if (!server_loaded(context.sysfs))
        return not_loaded(context, what);
    const ServerDevice* found = nullptr;
    std::vector<ServerDevice> devices = read_server_devices(context.sysfs);
    for (const ServerDevice& device : devices) {
        bool named = device.name == export_name;
        for (const ServerExportSession& entry : device.sessions)
            named = named || (entry.session == session && entry.mapping_path == export_name);
        if (named)
            found = &device;
    }
    if (!found)
        return context.fail(what, "no such export", kExitNotFound);
    bool has_session = std::any_of(found->sessions.begin(), found->sessions.end(),
                                   [&](const ServerExportSession& entry) { return entry.session == session; });
    if (!has_session)
        return context.fail(what, "the session has no mapping of this export", kExitNotFound);
    const std::string file = std::string(kServerDevices) + "/" + found->name + "/sessions/" + session + "/force_close";
    if (int write_error = context.sysfs.write(file, "1"))
        return context.write_failed(Operation::kServerClose, what, write_error);
    return kExitOk;
}

int server_path(Context& context, const Args& args)
{
    if (args.empty() || args[0] != "disconnect")
        return context.usage("server path", "server path disconnect SESSION PATH");
    Arguments parsed;
    std::string error;
    if (!parse_arguments(Args(args.begin() + 1, args.end()), {}, parsed, error))
        return context.usage("server path disconnect", error);
    if (parsed.positionals.size() != 2)
        return context.usage("server path disconnect", "give a session and a path");
    const std::string what = "server path disconnect " + parsed.positionals[0] + " " + parsed.positionals[1];
    if (!context.sysfs.is_directory(kRtrsServerClass))
        return context.fail(what, "rtrs-server is not loaded", kExitNotLoaded);
    std::vector<std::string> matches;
    for (const ServerSession& session : read_server_sessions(context.sysfs)) {
        if (session.name != parsed.positionals[0])
            continue;
        for (const ServerPath& path : session.paths)
            if (path.name == parsed.positionals[1] || path.src_addr == parsed.positionals[1])
                matches.push_back(path.name);
    }
    if (matches.empty())
        return context.fail(what, "no such session or path", kExitNotFound);
    if (matches.size() > 1)
        return context.usage(what, "names several paths; give the path's full name");
    const std::string file =
        std::string(kRtrsServerClass) + "/" + parsed.positionals[0] + "/paths/" + matches[0] + "/disconnect";
    if (int write_error = context.sysfs.write(file, "1"))
        return context.write_failed(Operation::kServerPathDisconnect, what, write_error);
    return kExitOk;
}

}  // namespace

int command_server(Context& context, const Args& args)
{
    if (args.empty())
        return context.usage("server", "server list|close|path");
    const Args rest(args.begin() + 1, args.end());
    if (args[0] == "list")
        return server_list(context, rest);
    if (args[0] == "close")
        return server_close(context, rest);
    if (args[0] == "path")
        return server_path(context, rest);
    return context.usage("server", "unknown command '" + args[0] + "'; server list|close|path");
}

}  // namespace rnbdctl
