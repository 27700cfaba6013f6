// `rnbdctl stats`: the per-path figures of both sides, as a table, JSON or
// Prometheus text (optionally written atomically to a file, for
// node-exporter's textfile collector).
#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/prometheus.hpp"
#include "tools/rnbdctl/view.hpp"

#include <string.h>

namespace rnbdctl {

int command_stats(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {{"file", true, false}}, parsed, error))
        return context.usage("stats", error);
    if (!parsed.positionals.empty())
        return context.usage("stats", "stats [-o table|json|prometheus] [--file FILE]");
    std::string text;
    if (context.format == Format::kPrometheus) {
        text = format_prometheus(context.sysfs);
    } else if (context.format == Format::kJson) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion);
        json.begin_object("client").begin_array("devices");
        for (const ClientDevice& device : read_client_devices(context.sysfs))
            json_client_device(json, device);
        json.end_array().begin_array("sessions");
        for (const ClientSession& session : read_client_sessions(context.sysfs))
            json_client_session(json, session);
        json.end_array().end_object();
        json.begin_object("server").begin_array("devices");
        for (const ServerDevice& device : read_server_devices(context.sysfs))
            json_server_device(json, device);
        json.end_array().begin_array("sessions");
        for (const ServerSession& session : read_server_sessions(context.sysfs))
            json_server_session(json, session);
        json.end_array().end_object();
        json.end_object();
        text = json.text();
    } else {
        char* buffer = nullptr;
        size_t size = 0;
        FILE* memory = open_memstream(&buffer, &size);
        if (!memory)
            return context.fail("stats", strerror(errno), kExitFailed);
        fprintf(memory, "client paths:\n");
        table_client_path_stats(memory, read_client_sessions(context.sysfs));
        fprintf(memory, "\nserver paths:\n");
        table_server_sessions(memory, read_server_sessions(context.sysfs));
        fclose(memory);
        text.assign(buffer, size);
        free(buffer);
    }
    if (!parsed.has("file")) {
        fputs(text.c_str(), context.out);
        return kExitOk;
    }
    if (int write_error = write_file_atomically(parsed.value("file"), text))
        return context.fail("stats " + parsed.value("file"),
                            std::string(strerror(write_error)) + " (" + errno_name(write_error) + ")", kExitFailed);
    return kExitOk;
}

}  // namespace rnbdctl
