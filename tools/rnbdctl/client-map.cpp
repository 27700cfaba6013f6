// `rnbdctl map`: the options become one map_device line, checked by the
// module's own parser (rnbd/core/rnbd-clt-options.cpp, built for the host) before
// anything is written, so a bad option gets the kernel's message and no
// write. The new device is found through its link under
// /sys/class/rnbd-client/ctl/devices/<device_id>@<session>.
#include <errno.h>
#include <string.h>

#include <algorithm>

#include "rnbd/core/rnbd-clt-options.hpp"
#include "rtrs/core/rtrs-clt-hold.hpp"
#include "rtrs/core/rtrs-clt-policy.hpp"
#include "rtrs/core/rtrs-clt-state.hpp"
#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

// --flag -> map_device key.
struct FlagKey {
    const char* flag;
    const char* key;
};
constexpr FlagKey kMapFlags[] = {
    {"session", "sessname"},
    {"path", "path"},
    {"device-path", "device_path"},
    {"access-mode", "access_mode"},
    {"io-mode", "io_mode"},
    {"input-mode", "input_mode"},
    {"dest-port", "dest_port"},
    {"nr-poll-queues", "nr_poll_queues"},
    {"io-hold-timeout-ms", "io_hold_timeout_ms"},
    {"mpath-policy", "mpath_policy"},
    {"max-reconnect-attempts", "max_reconnect_attempts"},
};

cxxrt::StringView view(const std::string& text) { return cxxrt::StringView(text.data(), text.size()); }

bool has_blank_or_control(const std::string& text)
{
    for (unsigned char c : text)
        if (c <= 0x20 || c == 0x7f)
            return true;
    return false;
}

std::string device_id(const std::string& device_path)
{
    std::string id = device_path;
    std::replace(id.begin(), id.end(), '/', '!');
    return id;
}

std::vector<std::string> rnbd_block_devices(const Sysfs& sysfs)
{
    std::vector<std::string> names;
    for (const std::string& name : sysfs.list(kBlockDir))
        if (!client_device_dir(sysfs, name).empty())
            names.push_back(name);
    return names;
}

// map --dry-run: every check of a real map (done by the caller), and the
// one refusal rnbdctl can foresee (the mapping exists: EEXIST); then the
// writes, printed instead of made.
int plan_map(Context& context, const std::string& what, const MapRequest& request, const std::string& line)
{
    const std::string existing = mapped_device(context, request.session, request.device_path);
    if (!existing.empty())
        return context.fail(what, "already mapped in that session as /dev/" + existing +
                                      " (the kernel would refuse it: EEXIST)",
                            kExitFailed);
    std::vector<PlannedWrite> plan;
    context.sysfs.plan_writes(&plan);
    context.sysfs.write(kMapDevice, line);
    std::string file;
    apply_session_settings(context, request, file);
    context.sysfs.plan_writes(nullptr);
    return print_planned_writes(context, plan);
}

}  // namespace

bool add_map_tokens(const std::vector<std::string>& tokens, MapRequest& request, std::string& error)
{
    for (const std::string& token : tokens) {
        size_t equals = token.find('=');
        if (equals == std::string::npos || equals == 0) {
            error = "'" + token + "' is not a key=value option";
            return false;
        }
        if (has_blank_or_control(token)) {
            error = "'" + token + "' contains a blank or a control character";
            return false;
        }
        const std::string key = token.substr(0, equals);
        const std::string value = token.substr(equals + 1);
        if (key == "mpath_policy")
            request.mpath_policy = value;
        else if (key == "max_reconnect_attempts")
            request.max_reconnect_attempts = value;
        else
            request.tokens.push_back(token);
    }
    return true;
}

bool check_map_request(const Context& context, MapRequest& request, std::string& line, std::string& error)
{
    line.clear();
    for (const std::string& token : request.tokens)
        line += (line.empty() ? "" : " ") + token;
    rnbd::clt::MapOptions options;
    rnbd::clt::MapError map_error;
    if (rnbd::clt::parse_map_options(view(line), context.cpu_count, options, &map_error).is_error()) {
        // The module's log line: "map_device: invalid input: %s (at '%.*s')".
        error = std::string("invalid input: ") + rnbd::clt::map_reason_text(map_error) + " (at '" +
                std::string(map_error.token.data(), std::min<size_t>(map_error.token.length(), 64)) + "')";
        return false;
    }
    request.session.assign(options.session_name.data(), options.session_name.length());
    request.device_path.assign(options.device_path.data(), options.device_path.length());
    if (!request.mpath_policy.empty() && rtrs::clt::parse_policy(view(request.mpath_policy)).is_error()) {
        error = "mpath_policy: expected 0, 1, 2 or a policy name (at '" + request.mpath_policy + "')";
        return false;
    }
    if (!request.max_reconnect_attempts.empty() &&
        cxxrt::parse::parse_signed(view(request.max_reconnect_attempts), rtrs::clt::ReconnectBudget::kMinAttempts,
                                   rtrs::clt::ReconnectBudget::kMaxAttempts)
            .is_error()) {
        error = "max_reconnect_attempts: expected -1 .. " + std::to_string(rtrs::clt::ReconnectBudget::kMaxAttempts) +
                " (at '" + request.max_reconnect_attempts + "')";
        return false;
    }
    return true;
}

std::string mapped_device(const Context& context, const std::string& session, const std::string& device_path)
{
    std::string link = std::string(kClientClassDevices) + "/" + device_id(device_path) + "@" + session;
    std::string name = context.sysfs.link_target_name(link);
    if (!name.empty() && !client_device_dir(context.sysfs, name).empty())
        return name;
    // Without the class link (another implementation): match the attributes.
    for (const ClientDevice& device : read_client_devices(context.sysfs))
        if (device.session == session && device.device_path == device_path)
            return device.name;
    return {};
}

int write_map(const Context& context, const MapRequest& request, const std::string& line, std::string& device)
{
    std::vector<std::string> before = rnbd_block_devices(context.sysfs);
    int error = context.sysfs.write(kMapDevice, line);
    if (error != 0)
        return error;
    device = mapped_device(context, request.session, request.device_path);
    if (device.empty()) {
        for (const std::string& name : rnbd_block_devices(context.sysfs))
            if (std::find(before.begin(), before.end(), name) == before.end())
                device = name;
    }
    return 0;
}

int apply_session_settings(const Context& context, const MapRequest& request, std::string& file)
{
    const std::string dir = std::string(kRtrsClientClass) + "/" + request.session + "/";
    if (!request.mpath_policy.empty()) {
        file = dir + "mpath_policy";
        if (int error = context.sysfs.write(file, request.mpath_policy))
            return error;
    }
    if (!request.max_reconnect_attempts.empty()) {
        file = dir + "max_reconnect_attempts";
        if (int error = context.sysfs.write(file, request.max_reconnect_attempts))
            return error;
    }
    return 0;
}

int command_map(Context& context, const Args& args)
{
    std::vector<OptionSpec> specs = {{"dry-run", false, false}};
    for (const FlagKey& flag : kMapFlags)
        specs.push_back({flag.flag, true, strcmp(flag.flag, "path") == 0});
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, specs, parsed, error))
        return context.usage("map", error);
    std::vector<std::string> tokens;
    for (const FlagKey& flag : kMapFlags)
        for (const std::string& value : parsed.values(flag.flag)) {
            if (has_blank_or_control(value) || value.empty())
                return context.usage("map", "--" + std::string(flag.flag) + " '" + value +
                                                "' is empty or contains a blank or a control character");
            tokens.push_back(std::string(flag.key) + "=" + value);
        }
    // key=value arguments are taken as written to map_device.
    tokens.insert(tokens.end(), parsed.positionals.begin(), parsed.positionals.end());
    MapRequest request;
    if (!add_map_tokens(tokens, request, error))
        return context.usage("map", error);
    std::string line;
    if (!check_map_request(context, request, line, error))
        return context.usage("map", error);
    if (!context.sysfs.exists(kMapDevice))
        return context.fail("map", "rnbd-client is not loaded (no /sys/" + std::string(kMapDevice) + ")",
                            kExitNotLoaded);
    const std::string what = "map " + request.session + " " + request.device_path;
    if (parsed.has("dry-run"))
        return plan_map(context, what, request, line);
    std::string device;
    if (int write_error = write_map(context, request, line, device)) {
        std::string message = context.describe_write_error(Operation::kMap, kMapDevice, write_error);
        if (write_error == EEXIST) {
            std::string existing = mapped_device(context, request.session, request.device_path);
            if (!existing.empty())
                message += " as /dev/" + existing;
        }
        return context.fail(what, message, kExitFailed);
    }
    if (device.empty())
        return context.fail(what, "mapped, but the new device does not show in sysfs", kExitFailed);
    std::string file;
    if (int settings_error = apply_session_settings(context, request, file))
        return context.fail(what, "mapped as /dev/" + device + ", but " + file + ": " +
                                      context.describe_write_error(Operation::kSessionSet, file, settings_error),
                            kExitFailed);
    if (!context.json()) {
        fprintf(context.out, "/dev/%s\n", printable(device).c_str());
        return kExitOk;
    }
    ClientDevice mapped;
    if (!read_client_device(context.sysfs, device, mapped))
        return context.fail(what, "mapped as /dev/" + device + ", which went away at once", kExitFailed);
    return print_document(context, [&](JsonWriter& json) { json_client_device(json, mapped, "device"); });
}

}  // namespace rnbdctl
