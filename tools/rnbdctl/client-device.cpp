// Client device commands: unmap, resize, remap, list, show.
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

void print_json(const Context& context, JsonWriter& json) { fputs(json.text().c_str(), context.out); }

}  // namespace

bool resolve_device(const Context& context, const std::string& what, const std::string& argument, std::string& name,
                    int& code)
{
    name = argument;
    if (name.rfind("/dev/", 0) == 0)
        name = name.substr(5);
    if (name.find('/') != std::string::npos && argument[0] == '/') {
        // A udev name (/dev/rnbd/<session>/<device>) leads to /dev/rnbdN.
        char resolved[PATH_MAX];
        if (realpath(argument.c_str(), resolved)) {
            std::string target = resolved;
            name = target.substr(target.rfind('/') + 1);
        }
    }
    if (!client_device_dir(context.sysfs, name).empty())
        return true;
    if (!client_loaded(context.sysfs))
        code = context.fail(what, "no such rnbd device (rnbd-client is not loaded)", kExitNotLoaded);
    else
        code = context.fail(what, "no such rnbd device", kExitNotFound);
    return false;
}

bool parse_size_sectors(const std::string& text, uint64_t& sectors, std::string& error)
{
    error = "size must be <number>[s|K|M|G|T] (sectors of 512 bytes, or bytes in powers of 1024): '" + text + "'";
    if (text.empty() || text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    char* end = nullptr;
    unsigned long long number = strtoull(text.c_str(), &end, 10);
    if (errno != 0)
        return false;
    std::string unit = end;
    struct Unit {
        const char* names[3];
        unsigned shift;
    };
    constexpr Unit kUnits[] = {
        {{"K", "KiB", "k"}, 10}, {{"M", "MiB", "m"}, 20}, {{"G", "GiB", "g"}, 30}, {{"T", "TiB", "t"}, 40}};
    if (unit.empty() || unit == "s") {
        sectors = number;
    } else {
        int shift = -1;
        for (const Unit& candidate : kUnits)
            for (const char* name : candidate.names)
                if (unit == name)
                    shift = int(candidate.shift);
        if (shift < 0)
            return false;
        if (number > (UINT64_MAX >> shift)) {
            error = "size is too large: '" + text + "'";
            return false;
        }
        uint64_t bytes = uint64_t(number) << shift;
        sectors = bytes / 512;
    }
    if (sectors == 0) {
        error = "size must not be 0: '" + text + "'";
        return false;
    }
    return true;
}

int command_unmap(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {{"force", false, false}, {"all", false, false}}, parsed, error))
        return context.usage("unmap", error);
    const bool all = parsed.has("all");
    if (all ? !parsed.positionals.empty() : parsed.positionals.size() != 1)
        return context.usage("unmap", "give one device, or --all");
    const std::string mode = parsed.has("force") ? "force" : "normal";
    std::vector<std::string> names;
    if (all) {
        for (const ClientDevice& device : read_client_devices(context.sysfs))
            names.push_back(device.name);
    } else {
        std::string name;
        int code = 0;
        if (!resolve_device(context, "unmap " + parsed.positionals[0], parsed.positionals[0], name, code))
            return code;
        names.push_back(name);
    }
    std::vector<std::string> unmapped;
    std::vector<std::pair<std::string, int>> failed;
    for (const std::string& name : names) {
        const std::string dir = client_device_dir(context.sysfs, name);
        int write_error = dir.empty() ? 0 : context.sysfs.write(dir + "/unmap_device", mode);
        // Gone meanwhile (another unmap): that is what was asked for.
        if (write_error == 0 || write_error == ENOENT) {
            unmapped.push_back(name);
            continue;
        }
        context.write_failed(Operation::kUnmap, "unmap " + name, write_error);
        failed.push_back({name, write_error});
    }
    if (context.json()) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion).begin_array("unmapped");
        for (const std::string& name : unmapped)
            json.string(name);
        json.end_array().begin_array("failed");
        for (const auto& [name, write_error] : failed)
            json.begin_object()
                .string("device", name)
                .string("errno", errno_name(write_error))
                .string("error", describe_errno(Operation::kUnmap, write_error))
                .end_object();
        json.end_array().end_object();
        print_json(context, json);
    }
    return failed.empty() ? kExitOk : kExitFailed;
}

int command_resize(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("resize", error);
    if (parsed.positionals.size() != 2)
        return context.usage("resize", "give a device and a size");
    uint64_t sectors = 0;
    if (!parse_size_sectors(parsed.positionals[1], sectors, error))
        return context.usage("resize", error);
    const std::string what = "resize " + parsed.positionals[0];
    std::string name;
    int code = 0;
    if (!resolve_device(context, what, parsed.positionals[0], name, code))
        return code;
    if (int write_error = context.sysfs.write(client_device_dir(context.sysfs, name) + "/resize", std::to_string(sectors)))
        return context.write_failed(Operation::kResize, what, write_error);
    if (context.json()) {
        ClientDevice device;
        if (!read_client_device(context.sysfs, name, device))
            return context.fail(what, "the device went away", kExitNotFound);
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion);
        json_client_device(json, device, "device");
        json.end_object();
        print_json(context, json);
    }
    return kExitOk;
}

int command_remap(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("remap", error);
    if (parsed.positionals.size() != 1)
        return context.usage("remap", "give one device");
    const std::string what = "remap " + parsed.positionals[0];
    std::string name;
    int code = 0;
    if (!resolve_device(context, what, parsed.positionals[0], name, code))
        return code;
    if (int write_error = context.sysfs.write(client_device_dir(context.sysfs, name) + "/remap_device", "1"))
        return context.write_failed(Operation::kRemap, what, write_error);
    if (context.json()) {
        ClientDevice device;
        if (!read_client_device(context.sysfs, name, device))
            return context.fail(what, "the device went away", kExitNotFound);
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion);
        json_client_device(json, device, "device");
        json.end_object();
        print_json(context, json);
    }
    return kExitOk;
}

int command_list(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("list", error);
    const std::string what = parsed.positionals.empty() ? "devices" : parsed.positionals[0];
    if (parsed.positionals.size() > 1 || (what != "devices" && what != "sessions"))
        return context.usage("list", "list [devices|sessions]");
    if (what == "sessions") {
        std::vector<ClientSession> sessions = read_client_sessions(context.sysfs);
        if (!context.json()) {
            table_client_sessions(context.out, sessions);
            return kExitOk;
        }
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion).begin_array("sessions");
        for (const ClientSession& session : sessions)
            json_client_session(json, session);
        json.end_array().end_object();
        print_json(context, json);
        return kExitOk;
    }
    std::vector<ClientDevice> devices = read_client_devices(context.sysfs);
    if (!context.json()) {
        table_client_devices(context.out, devices);
        return kExitOk;
    }
    JsonWriter json;
    json.begin_object().number("version", kJsonVersion).begin_array("devices");
    for (const ClientDevice& device : devices)
        json_client_device(json, device);
    json.end_array().end_object();
    print_json(context, json);
    return kExitOk;
}

int command_show(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error))
        return context.usage("show", error);
    if (parsed.positionals.size() != 1)
        return context.usage("show", "give one device");
    std::string name;
    int code = 0;
    if (!resolve_device(context, "show " + parsed.positionals[0], parsed.positionals[0], name, code))
        return code;
    ClientDevice device;
    if (!read_client_device(context.sysfs, name, device))
        return context.fail("show " + name, "no such rnbd device", kExitNotFound);
    ClientSession session;
    bool have_session = read_client_session(context.sysfs, device.session, session);
    if (!context.json()) {
        text_client_device(context.out, device);
        if (have_session) {
            fprintf(context.out, "\n");
            text_client_session(context.out, session);
        }
        return kExitOk;
    }
    JsonWriter json;
    json.begin_object().number("version", kJsonVersion);
    json_client_device(json, device, "device");
    if (have_session)
        json_client_session(json, session, "session");
    else
        json.null("session");
    json.end_object();
    print_json(context, json);
    return kExitOk;
}

}  // namespace rnbdctl
