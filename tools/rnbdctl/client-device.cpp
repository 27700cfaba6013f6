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

// resize and remap: one write to the device's attribute directory, then
// (with --json) the device as it is after the write, so a script sees the
// new size without a second call.
int write_device_attribute(Context& context, Operation operation, const char* command, const std::string& argument,
                           const char* attribute, const std::string& value)
{
    const std::string what = std::string(command) + " " + argument;
    std::string name;
    int code = 0;
    if (!resolve_device(context, what, argument, name, code))
        return code;
    const std::string file = client_device_dir(context.sysfs, name) + "/" + attribute;
    if (int write_error = context.sysfs.write(file, value))
        return context.write_failed(operation, what, file, write_error);
    if (!context.json())
        return kExitOk;
    ClientDevice device;
    if (!read_client_device(context.sysfs, name, device))
        return context.fail(what, "the device went away", kExitNotFound);
    return print_document(context, [&](JsonWriter& json) { json_client_device(json, device, "device"); });
}

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
    if (!parse_arguments(args, {{"force", false, false}, {"all", false, false}, {"dry-run", false, false}}, parsed,
                         error))
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
    if (parsed.has("dry-run")) {
        std::vector<PlannedWrite> plan;
        context.sysfs.plan_writes(&plan);
        for (const std::string& name : names)
            context.sysfs.write(client_device_dir(context.sysfs, name) + "/unmap_device", mode);
        context.sysfs.plan_writes(nullptr);
        return print_planned_writes(context, plan);
    }
    Batch batch;
    for (const std::string& name : names) {
        const std::string dir = client_device_dir(context.sysfs, name);
        const std::string file = dir + "/unmap_device";
        int write_error = dir.empty() ? 0 : context.sysfs.write(file, mode);
        // Gone meanwhile (another unmap): that is what was asked for.
        if (write_error == 0 || write_error == ENOENT)
            batch.done.push_back(name);
        else
            batch.fail(context, "unmap " + name, name, write_error,
                       context.describe_write_error(Operation::kUnmap, file, write_error));
    }
    return batch.finish(context, "unmapped", "device", [](JsonWriter&) {});
}

int command_resize(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "resize", args, 2, "give a device and a size", parsed, code))
        return code;
    std::string error;
    uint64_t sectors = 0;
    if (!parse_size_sectors(parsed.positionals[1], sectors, error))
        return context.usage("resize", error);
    return write_device_attribute(context, Operation::kResize, "resize", parsed.positionals[0], "resize",
                                  std::to_string(sectors));
}

int command_remap(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "remap", args, 1, "give one device", parsed, code))
        return code;
    return write_device_attribute(context, Operation::kRemap, "remap", parsed.positionals[0], "remap_device", "1");
}

int list_client(Context& context, const std::string& what, const std::string& kind)
{
    int code = 0;
    if (kind == "sessions") {
        if (!require_module(context, what, Module::kRtrsClient, code))
            return code;
        return print_list(context, "sessions", read_client_sessions(context.sysfs), table_client_sessions,
                          [](JsonWriter& json, const ClientSession& session) { json_client_session(json, session); });
    }
    if (!require_module(context, what, Module::kRnbdClient, code))
        return code;
    return print_list(context, "devices", read_client_devices(context.sysfs), table_client_devices,
                      [](JsonWriter& json, const ClientDevice& device) { json_client_device(json, device); });
}

int command_list(Context& context, const Args& args)
{
    std::string kind;
    int code = 0;
    if (!parse_list_kind(context, "list", args, kind, code))
        return code;
    return list_client(context, kind == "sessions" ? "list sessions" : "list", kind);
}

int command_show(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "show", args, 1, "give one device", parsed, code))
        return code;
    std::string name;
    if (!resolve_device(context, "show " + parsed.positionals[0], parsed.positionals[0], name, code))
        return code;
    ClientDevice device;
    if (!read_client_device(context.sysfs, name, device))
        return context.fail("show " + name, "no such rnbd device", kExitNotFound);
    ClientSession session;
    bool have_session = read_client_session(context.sysfs, device.session, session);
    if (!context.json()) {
        text_client_device(context.out, device, context.sizes);
        if (have_session) {
            fprintf(context.out, "\n");
            text_client_session(context.out, session, context.sizes);
        }
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) {
        json_client_device(json, device, "device");
        if (have_session)
            json_client_session(json, session, "session");
        else
            json.null("session");
    });
}

}  // namespace rnbdctl
