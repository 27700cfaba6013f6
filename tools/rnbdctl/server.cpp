// Server commands: server list [devices|sessions], server close (an
// export's force_close for one session), server path disconnect; the
// exports, server session, save and restore are in server-exports.cpp.
#include <errno.h>

#include <algorithm>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/exports.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

int not_loaded(const Context& context, const std::string& what)
{
    return context.fail(what, "rnbd-server is not loaded (no /sys/" + std::string(kServerDevices) + ")",
                        kExitNotLoaded);
}

int server_list(Context& context, const Args& args)
{
    std::string what;
    int code = 0;
    if (!parse_list_kind(context, "server list", args, what, code))
        return code;
    if (what == "devices" && !require_module(context, "server list", Module::kRnbdServer, code))
        return code;
    if (what == "sessions" && !require_module(context, "server list sessions", Module::kRtrsServer, code))
        return code;
    if (what == "devices")
        return print_list(context, "devices", read_server_devices(context.sysfs), table_server_devices,
                          json_server_device);
    return print_list(context, "sessions", read_server_sessions(context.sysfs), table_server_sessions,
                      json_server_session);
}

// `server close EXPORT SESSION`: EXPORT is the export's name (as listed)
// or the path the client mapped.
int server_close(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server close", args, 2, "give an export and a session", parsed, code))
        return code;
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
        return context.write_failed(Operation::kServerClose, what, file, write_error);
    return kExitOk;
}

int server_path(Context& context, const Args& args)
{
    if (args.empty() || args[0] != "disconnect")
        return context.usage("server path", "server path disconnect SESSION PATH");
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server path disconnect", Args(args.begin() + 1, args.end()), 2, "give a session and a path", parsed, code))
        return code;
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
        return context.write_failed(Operation::kServerPathDisconnect, what, file, write_error);
    return kExitOk;
}

}  // namespace

int command_server(Context& context, const Args& args)
{
    constexpr Subcommand kSubcommands[] = {{"list", server_list},       {"close", server_close},
                                           {"path", server_path},       {"export", server_export},
                                           {"session", server_session}, {"save", server_save},
                                           {"restore", server_restore}};
    return run_subcommand(context, "server", "list|close|path|export|session|save|restore", kSubcommands, args);
}

}  // namespace rnbdctl
