// The server's exports and sessions: `server export add|remove|list|show`,
// `server session disconnect`, and `server save`/`server restore` of the
// exports file (default /etc/rnbd/exports). A definition is checked with
// the module's own parser (exports.cpp) before anything is written, as map
// is; save and restore follow save and restore of the rnbdtab (persist.cpp):
// restore checks the whole file first and leaves what is there alone, save
// keeps the old file as FILE~ and will not empty a file listing exports
// without --force. export add, export remove and restore take --dry-run as
// map, unmap and restore do (Sysfs::plan_writes); every write names its
// file to Context::describe_write_error, so a caller that may not write
// it is told to run as root.
#include <errno.h>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/exports.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/table.hpp"
#include "tools/rnbdctl/text.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

namespace {

// 0 when rnbd-server offers exports; otherwise the message is printed and
// its exit code (kExitNotLoaded) returned.
int need_exports(const Context& context, const std::string& what, const std::string& tail = "")
{
    if (exports_available(context.sysfs))
        return 0;
    const std::string where = "/sys/" + std::string(kServerExports);
    if (server_loaded(context.sysfs))
        return context.fail(what, "rnbd-server has no exports (no " + where + ": Linux's module, or an older one)" + tail,
                            kExitNotLoaded);
    return context.fail(what, "rnbd-server is not loaded (no " + where + ")" + tail, kExitNotLoaded);
}

bool has_blank_or_control(const std::string& text)
{
    for (unsigned char c : text)
        if (c <= 0x20 || c == 0x7f)
            return true;
    return false;
}

std::string join(const std::vector<std::string>& items, const char* separator)
{
    std::string text;
    for (const std::string& item : items)
        text += (text.empty() ? "" : separator) + item;
    return text;
}

void json_export(JsonWriter& json, const ServerExport& exported, const char* key = nullptr)
{
    json.begin_object(key);
    json.string("name", exported.name);
    json.string("definition", exported.definition);
    json.string("path", exported.path);
    json.string("access_mode", exported.access_mode);
    json.string("io_modes", exported.io_modes);
    json.begin_array("allow");
    for (const std::string& rule : exported.allow)
        json.string(rule);
    json.end_array();
    if (exported.session.empty())
        json.null("session");
    else
        json.string("session", exported.session);
    json.begin_array("mappings");
    for (const ExportMapping& mapping : exported.mappings)
        json.begin_object()
            .string("session", mapping.session)
            .string("device", mapping.device)
            .string("access_mode", mapping.access_mode)
            .end_object();
    json.end_array();
    json.end_object();
}

void table_exports(FILE* out, const std::vector<ServerExport>& exports, Sizes)
{
    Table table({"NAME", "PATH", "ACCESS", "IO_MODES", "ALLOW", "SESSION", "MAPPINGS"});
    for (const ServerExport& exported : exports)
        table.add({exported.name, cell(exported.path), cell(exported.access_mode), cell(exported.io_modes),
                   cell(join(exported.allow, ",")), cell(exported.session),
                   std::to_string(exported.mappings.size())});
    table.print(out);
}

// `show`'s "label: value" lines: every value comes from sysfs, so it is
// escaped as the tables' cells are (text.hpp).
void text_export(FILE* out, const ServerExport& exported)
{
    auto field = [out](const char* label, const std::string& value) {
        fprintf(out, "%s%s\n", label, printable(value).c_str());
    };
    field("export:      ", exported.name);
    field("definition:  ", cell(exported.definition));
    field("path:        ", cell(exported.path));
    field("access_mode: ", cell(exported.access_mode));
    field("io_modes:    ", cell(exported.io_modes));
    field("allow:       ", cell(join(exported.allow, " ")));
    field("session:     ", exported.session.empty() ? "any" : exported.session);
    fprintf(out, "mappings:    %zu\n", exported.mappings.size());
    if (exported.mappings.empty())
        return;
    Table table({"SESSION", "DEVICE", "ACCESS"});
    for (const ExportMapping& mapping : exported.mappings)
        table.add({mapping.session, mapping.device, cell(mapping.access_mode)});
    table.print(out);
}

const std::string kExportsAdd = std::string(kServerExports) + "/add";
const std::string kExportsRemove = std::string(kServerExports) + "/remove";

// Writes a checked definition to exports/add: 0 or the errno.
int write_add(const Context& context, const std::string& canonical)
{
    return context.sysfs.write(kExportsAdd, canonical);
}

int write_remove(const Context& context, const std::string& name)
{
    return context.sysfs.write(kExportsRemove, name);
}

// --- server export ... ---------------------------------------------------------------------

int export_add(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    const std::string command = "server export add";
    if (!parse_words(context, command, args, 1,
                     "give the export's name: server export add NAME --path P --allow RULE [--allow RULE ...]", parsed,
                     code,
                     {{"path", true, false},
                      {"allow", true, true},
                      {"read-only", false, false},
                      {"io-modes", true, false},
                      {"session", true, false},
                      {"dry-run", false, false}}))
        return code;
    const std::string& name = parsed.positionals[0];
    // Each value becomes one key=value word of the line: a blank in it would
    // make it two.
    struct Word {
        const char* option;
        const char* key;
        std::string value;
    };
    std::vector<Word> words = {{"NAME", "name", name}};
    if (parsed.has("path"))
        words.push_back({"--path", "path", parsed.value("path")});
    for (const std::string& rule : parsed.values("allow"))
        words.push_back({"--allow", "allow", rule});
    if (parsed.has("read-only"))
        words.push_back({"--read-only", "access", "ro"});
    if (parsed.has("io-modes"))
        words.push_back({"--io-modes", "io_modes", parsed.value("io-modes")});
    if (parsed.has("session"))
        words.push_back({"--session", "session", parsed.value("session")});
    std::string line;
    for (const Word& word : words) {
        if (has_blank_or_control(word.value))
            return context.usage(command, std::string(word.option) + " must not contain blanks or control characters");
        line += (line.empty() ? "" : " ") + std::string(word.key) + "=" + word.value;
    }
    CheckedDefinition checked;
    std::string error;
    if (!check_export_definition(line, checked, error))
        return context.usage(command, error);
    const std::string what = command + " " + checked.name;
    if (int missing = need_exports(context, what))
        return missing;
    if (parsed.has("dry-run")) {
        // As map --dry-run: the one refusal rnbdctl can foresee (the name
        // is in use), then the write printed instead of made.
        ServerExport existing;
        if (read_server_export(context.sysfs, checked.name, existing))
            return context.fail(what, "an export of this name exists (the kernel would refuse it: EEXIST)",
                                kExitFailed);
        std::vector<PlannedWrite> plan;
        context.sysfs.plan_writes(&plan);
        write_add(context, checked.canonical);
        context.sysfs.plan_writes(nullptr);
        return print_planned_writes(context, plan);
    }
    if (int write_error = write_add(context, checked.canonical))
        return context.write_failed(Operation::kExportAdd, what, kExportsAdd, write_error);
    if (context.json()) {
        ServerExport added;
        const bool found = read_server_export(context.sysfs, checked.name, added);
        return print_document(context, [&](JsonWriter& json) {
            if (found)
                json_export(json, added, "export");
            else
                json.null("export");
        });
    }
    return kExitOk;
}

int export_remove(Context& context, const Args& args)
{
    const std::string command = "server export remove";
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {{"all", false, false}, {"dry-run", false, false}}, parsed, error))
        return context.usage(command, error);
    const bool all = parsed.has("all");
    if (all ? !parsed.positionals.empty() : parsed.positionals.size() != 1)
        return context.usage(command, "give one export, or --all");
    const std::string what = all ? command + " --all" : command + " " + parsed.positionals[0];
    if (int missing = need_exports(context, what))
        return missing;
    std::vector<ServerExport> targets;
    if (all) {
        targets = read_server_exports(context.sysfs);
    } else {
        ServerExport found;
        if (!read_server_export(context.sysfs, parsed.positionals[0], found))
            return context.fail(what, "no such export", kExitNotFound);
        targets.push_back(found);
    }
    if (parsed.has("dry-run")) {
        std::vector<PlannedWrite> plan;
        context.sysfs.plan_writes(&plan);
        for (const ServerExport& exported : targets)
            write_remove(context, exported.name);
        context.sysfs.plan_writes(nullptr);
        return print_planned_writes(context, plan);
    }
    Batch batch;
    for (const ServerExport& exported : targets) {
        const int write_error = write_remove(context, exported.name);
        // Gone meanwhile (another remove): that is what was asked for.
        if (write_error == 0 || write_error == ENOENT)
            batch.done.push_back(exported.name);
        else
            batch.fail(context, command + " " + exported.name, exported.name, write_error,
                       context.describe_write_error(Operation::kExportRemove, kExportsRemove, write_error));
    }
    return batch.finish(context, "removed", "export", [](JsonWriter&) {});
}

int export_list(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server export list", args, 0, "takes no argument", parsed, code))
        return code;
    if (int missing = need_exports(context, "server export list"))
        return missing;
    return print_list(context, "exports", read_server_exports(context.sysfs), table_exports,
                      [](JsonWriter& json, const ServerExport& exported) { json_export(json, exported); });
}

int export_show(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server export show", args, 1, "give one export", parsed, code))
        return code;
    const std::string what = "server export show " + parsed.positionals[0];
    if (int missing = need_exports(context, what))
        return missing;
    ServerExport exported;
    if (!read_server_export(context.sysfs, parsed.positionals[0], exported))
        return context.fail(what, "no such export", kExitNotFound);
    if (!context.json()) {
        text_export(context.out, exported);
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) { json_export(json, exported, "export"); });
}

// --- server session disconnect ---------------------------------------------------------------

int session_disconnect(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server session disconnect", args, 1, "give one session", parsed, code))
        return code;
    const std::string& session = parsed.positionals[0];
    const std::string what = "server session disconnect " + session;
    if (!context.sysfs.is_directory(kRtrsServerClass))
        return context.fail(what, "rtrs-server is not loaded", kExitNotLoaded);
    const std::string dir = std::string(kRtrsServerClass) + "/" + session;
    if (session.empty() || session == "." || session == ".." || session.find('/') != std::string::npos ||
        !context.sysfs.is_directory(dir))
        return context.fail(what, "no such session", kExitNotFound);
    Batch batch;
    for (const std::string& path : context.sysfs.list(dir + "/paths")) {
        const std::string file = dir + "/paths/" + path + "/disconnect";
        const int write_error = context.sysfs.write(file, "1");
        // A path that went meanwhile is disconnected.
        if (write_error == 0 || write_error == ENOENT)
            batch.done.push_back(path);
        else
            batch.fail(context, what + " " + path, path, write_error,
                       context.describe_write_error(Operation::kServerPathDisconnect, file, write_error));
    }
    return batch.finish(context, "disconnected", "path",
                        [&](JsonWriter& json) { json.string("session", session); });
}

}  // namespace

int server_export(Context& context, const Args& args)
{
    constexpr Subcommand kSubcommands[] = {
        {"add", export_add}, {"remove", export_remove}, {"list", export_list}, {"show", export_show}};
    return run_subcommand(context, "server export", "add|remove|list|show", kSubcommands, args);
}

int server_session(Context& context, const Args& args)
{
    constexpr Subcommand kSubcommands[] = {{"disconnect", session_disconnect}};
    return run_subcommand(context, "server session", "disconnect SESSION", kSubcommands, args);
}

// --- server save / server restore ------------------------------------------------------------

int server_save(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server save", args, 0, "server save [--file FILE] [--force]", parsed, code,
                     {{"file", true, false}, {"force", false, false}}))
        return code;
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_exports;
    if (int missing = need_exports(context, "server save", "; nothing to save (the file is left as it is)"))
        return missing;
    SaveTarget target;
    if (!read_save_target(context, "server save " + file, file, target, code))
        return code;
    const std::vector<ServerExport> exports = read_server_exports(context.sysfs);
    const std::string text = format_exports_file(exports);
    std::vector<ExportsFileEntry> saved;
    std::string error;
    if (!parse_exports_file(file, text, saved, error) || saved.size() != exports.size())
        return context.fail(target.what, "the new file would not parse back: " + error + "; nothing written",
                            kExitFailed);
    if (save_would_empty(context, target, count_exports_lines(target.old_text), saved.size(), parsed.has("force"),
                         "no export is defined", "export", code))
        return code;
    if (int written = write_save_target(context, target, context.default_exports, text))
        return written;
    if (!context.json()) {
        print_saved_summary(context, target, saved.size(), "export");
        return kExitOk;
    }
    JsonWriter json;
    begin_saved_document(json, target);
    json.begin_array("exports");
    for (const ExportsFileEntry& entry : saved)
        json.begin_object().string("name", entry.name).string("definition", entry.canonical).end_object();
    json.end_array().end_object();
    print_json(context, json);
    return kExitOk;
}

namespace {

struct RestoreOutcome {
    const ExportsFileEntry* entry;
    const char* result;  // valid | added | present | replaced | refused | failed
    int error = 0;
    std::string message;
};

// One export of the file against the kernel's table.
RestoreOutcome restore_one(const Context& context, const ExportsFileEntry& entry, bool replace)
{
    RestoreOutcome outcome{&entry, "present", 0, ""};
    ServerExport current;
    if (!read_server_export(context.sysfs, entry.name, current)) {
        outcome.result = "added";
        if (int write_error = write_add(context, entry.canonical)) {
            outcome.result = "failed";
            outcome.error = write_error;
            outcome.message = context.describe_write_error(Operation::kExportAdd, kExportsAdd, write_error);
        }
        return outcome;
    }
    if (current.definition == entry.canonical)
        return outcome;
    if (!replace) {
        outcome.result = "refused";
        outcome.message = "defined differently (" + current.definition +
                          "); left as it is (--replace removes it, closing its mappings, and adds the file's)";
        return outcome;
    }
    outcome.result = "replaced";
    if (int remove_error = write_remove(context, entry.name)) {
        outcome.result = "failed";
        outcome.error = remove_error;
        outcome.message = "cannot remove the current definition: " +
                          context.describe_write_error(Operation::kExportRemove, kExportsRemove, remove_error);
        return outcome;
    }
    if (int add_error = write_add(context, entry.canonical)) {
        outcome.result = "failed";
        outcome.error = add_error;
        outcome.message = "removed, but the file's definition was refused: " +
                          context.describe_write_error(Operation::kExportAdd, kExportsAdd, add_error);
        // Not left without the export: the previous definition goes back.
        if (int back_error = write_add(context, current.definition))
            outcome.message += "; adding the previous definition back failed too: " +
                               context.describe_write_error(Operation::kExportAdd, kExportsAdd, back_error) +
                               " (the export is gone)";
        else
            outcome.message += "; the previous definition is back";
    }
    return outcome;
}

}  // namespace

int server_restore(Context& context, const Args& args)
{
    Arguments parsed;
    int code = 0;
    if (!parse_words(context, "server restore", args, 0,
                     "server restore [--file FILE] [--check | --dry-run] [--replace]", parsed, code,
                     {{"file", true, false}, {"check", false, false}, {"dry-run", false, false}, {"replace", false, false}}))
        return code;
    if (parsed.has("check") && parsed.has("replace"))
        return context.usage("server restore", "--check changes nothing; give it without --replace");
    if (parsed.has("check") && parsed.has("dry-run"))
        return context.usage("server restore", "give --check or --dry-run, not both");
    const std::string file = parsed.has("file") ? parsed.value("file") : context.default_exports;
    std::string text;
    if (int read_error = read_file(file, text)) {
        // No exports file at the default place: nothing was ever saved.
        if (read_error == ENOENT && !parsed.has("file")) {
            fprintf(context.err, "rnbdctl: server restore: no %s, nothing to restore\n", printable(file).c_str());
            text.clear();
        } else {
            return context.fail("server restore " + file, file_error(read_error),
                                read_error == ENOENT ? kExitNotFound : kExitFailed);
        }
    }
    std::vector<ExportsFileEntry> entries;
    std::string error;
    if (!parse_exports_file(file, text, entries, error))
        return context.usage("server restore", error);
    std::vector<RestoreOutcome> outcomes;
    bool any_failed = false;
    if (parsed.has("check")) {
        for (const ExportsFileEntry& entry : entries)
            outcomes.push_back({&entry, "valid", 0, ""});
    } else {
        if (!entries.empty())
            if (int missing = need_exports(context, "server restore"))
                return missing;
        // --dry-run: the same restore with its writes planned, not made
        // (a definition that differs is still reported, exit 1).
        std::vector<PlannedWrite> plan;
        if (parsed.has("dry-run"))
            context.sysfs.plan_writes(&plan);
        for (const ExportsFileEntry& entry : entries) {
            RestoreOutcome outcome = restore_one(context, entry, parsed.has("replace"));
            if (!outcome.message.empty()) {
                context.fail("server restore " + entry.name, outcome.message, kExitFailed);
                any_failed = true;
            }
            outcomes.push_back(outcome);
        }
        if (parsed.has("dry-run")) {
            context.sysfs.plan_writes(nullptr);
            const int printed = print_planned_writes(context, plan);
            return any_failed ? kExitFailed : printed;
        }
    }
    if (context.json()) {
        JsonWriter json;
        json.begin_object().number("version", kJsonVersion).string("file", file).begin_array("exports");
        for (const RestoreOutcome& outcome : outcomes) {
            json.begin_object()
                .string("name", outcome.entry->name)
                .number("line", outcome.entry->line_number)
                .string("definition", outcome.entry->canonical)
                .string("result", outcome.result);
            outcome_error(json, outcome.error, outcome.message);
            json.end_object();
        }
        json.end_array().end_object();
        print_json(context, json);
    } else if (!outcomes.empty()) {
        Table table({"NAME", "RESULT"});
        for (const RestoreOutcome& outcome : outcomes)
            table.add({outcome.entry->name, outcome.result});
        table.print(context.out);
    }
    return any_failed ? kExitFailed : kExitOk;
}

}  // namespace rnbdctl
