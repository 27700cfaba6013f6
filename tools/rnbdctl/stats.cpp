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
    int code = 0;
    if (!parse_words(context, "stats", args, 0, "stats [-o table|json|prometheus] [--file FILE]", parsed, code,
                     {{"file", true, false}}))
        return code;
    std::string text;
    if (context.format == Format::kPrometheus) {
        text = format_prometheus(context.sysfs);
    } else if (context.format == Format::kJson) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion);
        json.begin_object("client")
            .array("devices", read_client_devices(context.sysfs),
                   [](JsonWriter& json, const ClientDevice& device) { json_client_device(json, device); })
            .array("sessions", read_client_sessions(context.sysfs),
                   [](JsonWriter& json, const ClientSession& session) { json_client_session(json, session); })
            .end_object();
        json.begin_object("server")
            .array("devices", read_server_devices(context.sysfs), json_server_device)
            .array("sessions", read_server_sessions(context.sysfs), json_server_session)
            .end_object();
        json.end_object();
        text = json.text();
    } else {
        char* buffer = nullptr;
        size_t size = 0;
        FILE* memory = open_memstream(&buffer, &size);
        if (!memory)
            return context.fail("stats", strerror(errno), kExitFailed);
        fprintf(memory, "client paths:\n");
        table_client_path_stats(memory, read_client_sessions(context.sysfs), context.sizes);
        fprintf(memory, "\nserver paths:\n");
        table_server_sessions(memory, read_server_sessions(context.sysfs), context.sizes);
        fclose(memory);
        text.assign(buffer, size);
        free(buffer);
    }
    if (!parsed.has("file")) {
        fputs(text.c_str(), context.out);
        return kExitOk;
    }
    if (int write_error = write_file_atomically(parsed.value("file"), text))
        return file_write_failed(context, "stats " + parsed.value("file"), parsed.value("file"), write_error);
    return kExitOk;
}

}  // namespace rnbdctl
