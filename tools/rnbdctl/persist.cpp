// `save` and `restore`: the current mappings to an rnbdtab file and back.
// restore checks the whole file before it maps anything, skips mappings
// that exist (so it can run again), maps the others with a timeout per line
// and the sessions at the same time (parallel-map.hpp), and goes on after a
// failed mapping (each is reported; the exit code is 1 if any failed). save keeps the
// file it replaces as FILE~ and, with nothing mapped, does not replace a
// file that lists mappings unless given --force.
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/parallel-map.hpp"
#include "tools/rnbdctl/rnbdtab.hpp"
#include "tools/rnbdctl/table.hpp"
#include "tools/rnbdctl/text.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

// How long restore waits for one line's map by default (--timeout): more
// than RTRS takes to give up a connect to a server that does not answer,
// and one line per session at most waits it out.
constexpr int64_t kDefaultLineTimeoutMs = 60000;

// --timeout SECONDS: a decimal number above 0, up to a day.
bool parse_timeout(const std::string& text, int64_t& milliseconds)
{
    char* end = nullptr;
    errno = 0;
    const double seconds = text.empty() ? 0 : strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || errno != 0 || !(seconds > 0) || seconds > 86400)
        return false;
    milliseconds = std::max<int64_t>(1, int64_t(seconds * 1000));
    return true;
}

// restore --check: every line checked with the module's parser, each bad
// one reported; nothing read from sysfs, nothing written. Exit 2 if any
// line is bad, as restore would refuse the file.
int check_rnbdtab_file(const Context& context, const std::string& file, const std::string& text)
{
    std::vector<RnbdtabEntry> entries;
    const std::vector<std::string> errors = check_rnbdtab(context, file, text, entries);
    for (const std::string& error : errors)
        context.fail("restore --check", error, kExitUsage);
    if (!errors.empty())
        return context.fail("restore --check",
                            file + ": " + std::to_string(errors.size()) + " bad line" +
                                (errors.size() == 1 ? "" : "s") + "; restore would map nothing",
                            kExitUsage);
    if (!context.json()) {
        fprintf(context.out, "%s: %zu mapping%s, every line valid\n", printable(file).c_str(), entries.size(),
                entries.size() == 1 ? "" : "s");
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) {
        json.string("file", file);
        json.array("mappings", entries, [](JsonWriter& json, const RnbdtabEntry& entry) {
            json.begin_object()
                .number("line_number", entry.line_number)
                .string("session", entry.request.session)
                .string("device_path", entry.request.device_path)
                .string("line", entry.line)
                .end_object();
        });
    });
}

// restore --dry-run: the writes of each mapping that is not there yet (its
// map_device line and session settings), printed instead of made.
int plan_restore(Context& context, const std::vector<RnbdtabEntry>& entries)
{
    std::vector<PlannedWrite> plan;
    context.sysfs.plan_writes(&plan);
    for (const RnbdtabEntry& entry : entries) {
        if (!mapped_device(context, entry.request.session, entry.request.device_path).empty())
            continue;
        context.sysfs.write(kMapDevice, entry.line);
        std::string setting;
        apply_session_settings(context, entry.request, setting);
    }
    context.sysfs.plan_writes(nullptr);
    return print_planned_writes(context, plan);
}

}  // namespace

int command_save(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    int code = 0;
    if (!parse_words(context, "save", args, 0, "save [--file FILE] [--force]", parsed, code,
                     {{"file", true, false}, {"force", false, false}}))
        return code;
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_rnbdtab;
    if (!client_loaded(context.sysfs))
        return context.fail("save", "rnbd-client is not loaded; nothing to save (the file is left as it is)",
                            kExitNotLoaded);
    SaveTarget target;
    if (!read_save_target(context, "save " + file, file, target, code))
        return code;
    // The file being replaced lends what sysfs does not show (dest_port=);
    // one that does not parse lends nothing.
    std::vector<RnbdtabEntry> previous;
    std::string old_error;
    if (target.replacing && !parse_rnbdtab(context, file, target.old_text, previous, old_error))
        previous.clear();
    std::vector<std::string> warnings;
    const std::string text = format_rnbdtab(context, previous, warnings);
    std::vector<RnbdtabEntry> saved;
    if (!parse_rnbdtab(context, file, text, saved, error))
        return context.fail(target.what, "the new file would not parse back: " + error + "; nothing written",
                            kExitFailed);
    if (save_would_empty(context, target, count_rnbdtab_lines(target.old_text), saved.size(), parsed.has("force"),
                         "nothing is mapped", "mapping", code))
        return code;
    if (!old_error.empty())
        fprintf(context.err, "rnbdctl: save: note: the old %s does not parse (%s); it is replaced (kept as %s)\n",
                printable(file).c_str(), printable(old_error).c_str(), printable(target.backup).c_str());
    for (const std::string& warning : warnings)
        fprintf(context.err, "rnbdctl: save: warning: %s\n", printable(warning).c_str());
    if (int written = write_save_target(context, target, context.default_rnbdtab, text))
        return written;
    if (!context.json()) {
        print_saved_summary(context, target, saved.size(), "mapping");
        return kExitOk;
    }
    JsonWriter json;
    begin_saved_document(json, target);
    json.begin_array("mappings");
    for (const RnbdtabEntry& entry : saved)
        json.begin_object()
            .string("session", entry.request.session)
            .string("device_path", entry.request.device_path)
            .string("line", entry.line)
            .end_object();
    json.end_array().end_object();
    print_json(context, json);
    return kExitOk;
}

int command_restore(Context& context, const Args& args)
{
    Arguments parsed;
    std::string error;
    int code = 0;
    if (!parse_words(context, "restore", args, 0, "restore [--file FILE] [--check | --dry-run] [--timeout SECONDS]",
                     parsed, code,
                     {{"file", true, false}, {"check", false, false}, {"dry-run", false, false}, {"timeout", true, false}}))
        return code;
    if (parsed.has("check") && parsed.has("dry-run"))
        return context.usage("restore", "give --check or --dry-run, not both");
    int64_t timeout_ms = kDefaultLineTimeoutMs;
    if (parsed.has("timeout") && !parse_timeout(parsed.value("timeout"), timeout_ms))
        return context.usage("restore", "--timeout must be a number of seconds above 0, up to 86400 (e.g. 60 or "
                                        "0.5), not '" + parsed.value("timeout") + "'");
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_rnbdtab;
    std::string text;
    if (int read_error = read_file(file, text)) {
        // No rnbdtab at the default place: nothing was ever saved.
        if (read_error == ENOENT && !parsed.has("file")) {
            fprintf(context.err, "rnbdctl: restore: no %s, nothing to restore\n", printable(file).c_str());
            text.clear();
        } else {
            return context.fail("restore " + file, file_error(read_error),
                                read_error == ENOENT ? kExitNotFound : kExitFailed);
        }
    }
    if (parsed.has("check"))
        return check_rnbdtab_file(context, file, text);
    std::vector<RnbdtabEntry> entries;
    if (!parse_rnbdtab(context, file, text, entries, error))
        return context.usage("restore", error);
    if (!entries.empty() && !context.sysfs.exists(kMapDevice))
        return context.fail("restore", "rnbd-client is not loaded (no /sys/" + std::string(kMapDevice) + ")",
                            kExitNotLoaded);
    if (parsed.has("dry-run"))
        return plan_restore(context, entries);
    struct Outcome {
        const RnbdtabEntry* entry;
        std::string device;
        const char* result;  // mapped | present | failed
        int error;
        std::string message;
    };
    // The mappings there already are left alone; the others are mapped by
    // map_entries (parallel-map.hpp): one timeout per line, the sessions
    // at the same time.
    std::vector<Outcome> outcomes;
    std::vector<const RnbdtabEntry*> to_map;
    std::vector<size_t> positions;  // of to_map's entries in outcomes
    for (const RnbdtabEntry& entry : entries) {
        const std::string device = mapped_device(context, entry.request.session, entry.request.device_path);
        if (device.empty()) {
            to_map.push_back(&entry);
            positions.push_back(outcomes.size());
        }
        outcomes.push_back({&entry, device, "present", 0, ""});
    }
    const std::vector<MapOutcome> mapped = map_entries(context, to_map, timeout_ms);
    bool any_failed = false;
    for (size_t index = 0; index < mapped.size(); ++index) {
        Outcome& outcome = outcomes[positions[index]];
        outcome.device = mapped[index].device;
        outcome.result = mapped[index].failed ? "failed" : "mapped";
        outcome.error = mapped[index].error;
        outcome.message = mapped[index].message;
        if (mapped[index].failed) {
            const MapRequest& request = outcome.entry->request;
            context.fail("restore " + request.session + " " + request.device_path, outcome.message, kExitFailed);
            any_failed = true;
        }
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
            outcome_error(json, outcome.error, outcome.message);
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
