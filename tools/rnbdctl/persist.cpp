// `save` and `restore`: the current mappings to an rnbdtab file and back.
// restore checks the whole file before it maps anything, skips mappings
// that exist (so it can run again), and goes on after a failed mapping
// (each is reported; the exit code is 1 if any failed).
#include <errno.h>
#include <string.h>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/rnbdtab.hpp"
#include "tools/rnbdctl/table.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

int command_save(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    int code = 0;
    if (!parse_words(context, "save", args, 0, "save [--file FILE]", parsed, code,
                     {{"file", true, false}}))
        return code;
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_rnbdtab;
    if (!client_loaded(context.sysfs))
        return context.fail("save", "rnbd-client is not loaded; nothing to save (the file is left as it is)",
                            kExitNotLoaded);
    // The file being replaced lends what sysfs does not show (dest_port=);
    // a file that does not parse lends nothing.
    std::vector<RnbdtabEntry> previous;
    std::string old_text;
    if (read_file(file, old_text) == 0 && !parse_rnbdtab(context, file, old_text, previous, error)) {
        fprintf(context.err, "rnbdctl: save: note: the old %s does not parse (%s); it is replaced\n", file.c_str(),
                error.c_str());
        previous.clear();
    }
    std::vector<std::string> warnings;
    const std::string text = format_rnbdtab(context, previous, warnings);
    for (const std::string& warning : warnings)
        fprintf(context.err, "rnbdctl: save: warning: %s\n", warning.c_str());
    if (int write_error = write_file_atomically(file, text))
        return context.fail("save " + file, file_error(write_error), kExitFailed);
    std::vector<RnbdtabEntry> saved;
    if (!parse_rnbdtab(context, file, text, saved, error))
        return context.fail("save " + file, "the file written does not parse back: " + error, kExitFailed);
    if (context.json()) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion).string("file", file).begin_array("mappings");
        for (const RnbdtabEntry& entry : saved)
            json.begin_object()
                .string("session", entry.request.session)
                .string("device_path", entry.request.device_path)
                .string("line", entry.line)
                .end_object();
        json.end_array().end_object();
        print_json(context, json);
    } else {
        fprintf(context.out, "%zu mapping%s saved to %s\n", saved.size(), saved.size() == 1 ? "" : "s",
                file.c_str());
    }
    return kExitOk;
}

int command_restore(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    int code = 0;
    if (!parse_words(context, "restore", args, 0, "restore [--file FILE]", parsed, code,
                     {{"file", true, false}}))
        return code;
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_rnbdtab;
    std::string text;
    if (int read_error = read_file(file, text)) {
        // No rnbdtab at the default place: nothing was ever saved.
        if (read_error == ENOENT && !parsed.has("file")) {
            fprintf(context.err, "rnbdctl: restore: no %s, nothing to restore\n", file.c_str());
            text.clear();
        } else {
            return context.fail("restore " + file, file_error(read_error),
                                read_error == ENOENT ? kExitNotFound : kExitFailed);
        }
    }
    std::vector<RnbdtabEntry> entries;
    if (!parse_rnbdtab(context, file, text, entries, error))
        return context.usage("restore", error);
    if (!entries.empty() && !context.sysfs.exists(kMapDevice))
        return context.fail("restore", "rnbd-client is not loaded (no /sys/" + std::string(kMapDevice) + ")",
                            kExitNotLoaded);
    struct Outcome {
        const RnbdtabEntry* entry;
        std::string device;
        const char* result;  // mapped | present | failed
        int error;
        std::string message;
    };
    std::vector<Outcome> outcomes;
    bool any_failed = false;
    for (const RnbdtabEntry& entry : entries) {
        const MapRequest& request = entry.request;
        Outcome outcome{&entry, mapped_device(context, request.session, request.device_path), "present", 0, ""};
        if (outcome.device.empty()) {
            outcome.result = "mapped";
            const std::string what = "restore " + request.session + " " + request.device_path;
            if (int write_error = write_map(context, request, entry.line, outcome.device)) {
                outcome.result = "failed";
                outcome.error = write_error;
                outcome.message = describe_errno(Operation::kMap, write_error);
            } else if (outcome.device.empty()) {
                outcome.result = "failed";
                outcome.message = "mapped, but the new device does not show in sysfs";
            } else {
                std::string setting;
                if (int settings_error = apply_session_settings(context, request, setting)) {
                    outcome.result = "failed";
                    outcome.error = settings_error;
                    outcome.message = "mapped as /dev/" + outcome.device + ", but " + setting + ": " +
                                      describe_errno(Operation::kSessionSet, settings_error);
                }
            }
            if (std::string(outcome.result) == "failed") {
                context.fail(what, outcome.message, kExitFailed);
                any_failed = true;
            }
        }
        outcomes.push_back(outcome);
    }
    if (context.json()) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion).string("file", file).begin_array("mappings");
        for (const Outcome& outcome : outcomes) {
            json.begin_object()
                .string("session", outcome.entry->request.session)
                .string("device_path", outcome.entry->request.device_path);
            if (outcome.device.empty())
                json.null("device");
            else
                json.string("device", outcome.device);
            json.string("result", outcome.result);
            if (outcome.error)
                json.string("errno", errno_name(outcome.error));
            else
                json.null("errno");
            if (outcome.message.empty())
                json.null("error");
            else
                json.string("error", outcome.message);
            json.end_object();
        }
        json.end_array().end_object();
        print_json(context, json);
    } else if (!outcomes.empty()) {
        Table table({"DEVICE", "SESSION", "DEVICE_PATH", "RESULT"});
        for (const Outcome& outcome : outcomes)
            table.add({outcome.device.empty() ? "-" : "/dev/" + outcome.device, outcome.entry->request.session,
                       outcome.entry->request.device_path, outcome.result});
        table.print(context.out);
    }
    return any_failed ? kExitFailed : kExitOk;
}

}  // namespace rnbdctl
