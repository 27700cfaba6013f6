// Client sessions (RTRS) and their paths: session list/show/set, path
// list/add/remove/reconnect/disconnect. Values are checked with the
// module's parsers (rtrs-addr, rtrs-clt-policy) before any write.
#include <errno.h>

#include <algorithm>

#include "common/rtrs-addr.hpp"
#include "rtrs/core/rtrs-clt-hold.hpp"
#include "rtrs/core/rtrs-clt-policy.hpp"
#include "rtrs/core/rtrs-clt-state.hpp"
#include <cxxrt/parse.hpp>
#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

cxxrt::StringView view(const std::string& text) { return cxxrt::StringView(text.data(), text.size()); }

bool find_session(const Context& context, const std::string& what, const std::string& name, ClientSession& session,
                  int& code)
{
    if (read_client_session(context.sysfs, name, session))
        return true;
    if (!context.sysfs.is_directory(kRtrsClientClass))
        code = context.fail(what, "no such session (rtrs-client is not loaded)", kExitNotLoaded);
    else
        code = context.fail(what, "no such session", kExitNotFound);
    return false;
}

// A path by its directory name ("<src>@<dst>"), or by its destination or
// source address when that names one path only.
bool find_path(const Context& context, const std::string& what, const ClientSession& session,
               const std::string& argument, ClientPath& path, int& code)
{
    std::vector<const ClientPath*> matches;
    for (const ClientPath& candidate : session.paths)
        if (candidate.name == argument) {
            path = candidate;
            return true;
        }
    for (const ClientPath& candidate : session.paths)
        if (candidate.dst_addr == argument || candidate.src_addr == argument)
            matches.push_back(&candidate);
    if (matches.size() == 1) {
        path = *matches[0];
        return true;
    }
    if (matches.empty()) {
        code = context.fail(what, "no such path in session " + session.name, kExitNotFound);
        return false;
    }
    code = context.usage(what, "names " + std::to_string(matches.size()) + " paths (" + matches[0]->name + ", " +
                                   matches[1]->name + " ...); give the path's full name");
    return false;
}

// `list sessions`, with its own usage errors (not list's "[devices|sessions]").
int session_list(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "session list", args, 0, "takes no argument", parsed, code))
        return code;
    return list_client(context, "session list", "sessions");
}

int session_show(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "session show", args, 1, "give one session", parsed, code))
        return code;
    ClientSession session;
    if (!find_session(context, "session show " + parsed.positionals[0], parsed.positionals[0], session, code))
        return code;
    if (!context.json()) {
        text_client_session(context.out, session, context.sizes);
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) { json_client_session(json, session, "session"); });
}

int session_set(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args,
                         {{"mpath-policy", true, false},
                          {"max-reconnect-attempts", true, false},
                          {"io-hold-timeout-ms", true, false}},
                         parsed, error))
        return context.usage("session set", error);
    if (parsed.positionals.size() != 1)
        return context.usage("session set", "give one session");
    if (parsed.options.empty())
        return context.usage("session set", "give --mpath-policy, --max-reconnect-attempts or --io-hold-timeout-ms");
    // Every value checked before the first write (the module's parsers and
    // messages), so a bad one changes nothing.
    struct Setting {
        const char* flag;
        const char* file;
    };
    constexpr Setting kSettings[] = {{"mpath-policy", "mpath_policy"},
                                     {"max-reconnect-attempts", "max_reconnect_attempts"},
                                     {"io-hold-timeout-ms", "io_hold_timeout_ms"}};
    if (parsed.has("mpath-policy") && rtrs::clt::parse_policy(view(parsed.value("mpath-policy"))).is_error())
        return context.usage("session set", "mpath_policy: expected 0, 1, 2 or a policy name (at '" +
                                                parsed.value("mpath-policy") + "')");
    if (parsed.has("max-reconnect-attempts") &&
        cxxrt::parse::parse_signed(view(parsed.value("max-reconnect-attempts")),
                                   rtrs::clt::ReconnectBudget::kMinAttempts, rtrs::clt::ReconnectBudget::kMaxAttempts)
            .is_error())
        return context.usage("session set", "max_reconnect_attempts: expected -1 .. " +
                                                std::to_string(rtrs::clt::ReconnectBudget::kMaxAttempts) + " (at '" +
                                                parsed.value("max-reconnect-attempts") + "')");
    if (parsed.has("io-hold-timeout-ms") &&
        cxxrt::parse::parse_unsigned(view(parsed.value("io-hold-timeout-ms")), rtrs::clt::IoHold::kMaxMs).is_error())
        return context.usage("session set", "io_hold_timeout_ms: expected 0 .. " +
                                                std::to_string(rtrs::clt::IoHold::kMaxMs) + " (milliseconds) (at '" +
                                                parsed.value("io-hold-timeout-ms") + "')");
    const std::string name = parsed.positionals[0];
    ClientSession session;
    int code = 0;
    if (!find_session(context, "session set " + name, name, session, code))
        return code;
    for (const Setting& setting : kSettings) {
        if (!parsed.has(setting.flag))
            continue;
        const std::string file = std::string(kRtrsClientClass) + "/" + name + "/" + setting.file;
        if (int write_error = context.sysfs.write(file, parsed.value(setting.flag)))
            return context.write_failed(Operation::kSessionSet, "session set " + name + " " + setting.file, file,
                                        write_error);
    }
    if (context.json())
        return session_show(context, {name});
    return kExitOk;
}

int path_list(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("path list", error);
    if (parsed.positionals.size() > 1)
        return context.usage("path list", "path list [SESSION]");
    std::vector<ClientSession> sessions;
    int code = 0;
    if (parsed.positionals.empty()) {
        if (!require_module(context, "path list", Module::kRtrsClient, code))
            return code;
        sessions = read_client_sessions(context.sysfs);
    } else {
        ClientSession session;
        if (!find_session(context, "path list " + parsed.positionals[0], parsed.positionals[0], session, code))
            return code;
        sessions.push_back(session);
    }
    if (!context.json()) {
        table_client_path_stats(context.out, sessions, context.sizes);
        return kExitOk;
    }
    JsonWriter json;
    json.begin_object().number("version", kJsonVersion).begin_array("paths");
    for (const ClientSession& session : sessions)
        for (const ClientPath& path : session.paths) {
            json.begin_object();
            json.string("session", session.name);
            json_client_path(json, path, "path");
            json.end_object();
        }
    json.end_array().end_object();
    print_json(context, json);
    return kExitOk;
}

int path_add(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "path add", args, 2, "give a session and [<src>@]<dst>", parsed, code))
        return code;
    const std::string& name = parsed.positionals[0];
    const std::string& address = parsed.positionals[1];
    const std::string what = "path add " + name + " " + address;
    // The module's add_path parser and message.
    if (rtrs::parse_path(view(address)).is_error())
        return context.usage(what, "add_path: expected [<src>@]<dst> or [<src>,]<dst> with ip:<ipv4|ipv6> or "
                                   "gid:<gid> addresses");
    ClientSession session;
    if (!find_session(context, what, name, session, code))
        return code;
    const std::string add_path = std::string(kRtrsClientClass) + "/" + name + "/add_path";
    if (int write_error = context.sysfs.write(add_path, address))
        return context.write_failed(Operation::kPathAdd, what, add_path, write_error);
    ClientSession after;
    read_client_session(context.sysfs, name, after);
    const ClientPath* added = nullptr;
    for (const ClientPath& path : after.paths) {
        bool known = std::any_of(session.paths.begin(), session.paths.end(),
                                 [&](const ClientPath& old) { return old.name == path.name; });
        if (!known)
            added = &path;
    }
    if (!added)
        return context.fail(what, "added, but the new path does not show in sysfs", kExitFailed);
    if (!context.json()) {
        fprintf(context.out, "%s\n", printable(added->name).c_str());
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) {
        json.string("session", name);
        json_client_path(json, *added, "path");
    });
}

// remove / reconnect / disconnect: "1" to the path's file.
int path_action(Context& context, const Args& args, const char* action, const char* file, Operation operation)
{
    const std::string command = std::string("path ") + action;
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, command, args, 2, "give a session and a path", parsed, code))
        return code;
    const std::string what = command + " " + parsed.positionals[0] + " " + parsed.positionals[1];
    ClientSession session;
    ClientPath path;
    if (!find_session(context, what, parsed.positionals[0], session, code) ||
        !find_path(context, what, session, parsed.positionals[1], path, code))
        return code;
    const std::string target = std::string(kRtrsClientClass) + "/" + session.name + "/paths/" + path.name + "/" + file;
    if (int write_error = context.sysfs.write(target, "1"))
        return context.write_failed(operation, what, target, write_error);
    return kExitOk;
}

}  // namespace

int command_session(Context& context, const Args& args)
{
    constexpr Subcommand kSubcommands[] = {{"list", session_list}, {"show", session_show}, {"set", session_set}};
    return run_subcommand(context, "session", "list|show|set", kSubcommands, args);
}

int command_path(Context& context, const Args& args)
{
    // remove, reconnect and disconnect are each one write of "1" to the
    // path's own attribute (path_action).
    constexpr Subcommand kSubcommands[] = {
        {"list", path_list},
        {"add", path_add},
        {"remove",
         [](Context& context, const Args& rest) {
             return path_action(context, rest, "remove", "remove_path", Operation::kPathRemove);
         }},
        {"reconnect",
         [](Context& context, const Args& rest) {
             return path_action(context, rest, "reconnect", "reconnect", Operation::kPathReconnect);
         }},
        {"disconnect",
         [](Context& context, const Args& rest) {
             return path_action(context, rest, "disconnect", "disconnect", Operation::kPathDisconnect);
         }},
    };
    return run_subcommand(context, "path", "list|add|remove|reconnect|disconnect", kSubcommands, args);
}

}  // namespace rnbdctl
