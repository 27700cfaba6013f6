// The commands; each takes its arguments after the command words and
// returns an exit code (context.hpp). cli.cpp dispatches to them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/view.hpp"

namespace rnbdctl {

using Args = std::vector<std::string>;

// client devices (client-device.cpp, client-map.cpp)
int command_map(Context& context, const Args& args);
int command_unmap(Context& context, const Args& args);
int command_resize(Context& context, const Args& args);
int command_remap(Context& context, const Args& args);
int command_list(Context& context, const Args& args);
int command_show(Context& context, const Args& args);
// client sessions and paths (client-session.cpp)
int command_session(Context& context, const Args& args);
int command_path(Context& context, const Args& args);
// server (server.cpp)
int command_server(Context& context, const Args& args);
// persistence (persist.cpp)
int command_save(Context& context, const Args& args);
int command_restore(Context& context, const Args& args);
// metrics (stats.cpp)
int command_stats(Context& context, const Args& args);

// --- shared by the commands ---

// A command with subcommands (session, path, server) is a table of these;
// run_subcommand picks the entry args[0] names and prints "GROUP SYNOPSIS"
// as usage when there is none or it is unknown (cli.cpp).
struct Subcommand {
    const char* name;
    int (*handler)(Context&, const Args&);
};
int run_subcommand(Context& context, const char* group, const char* synopsis, const Subcommand* table, size_t count,
                   const Args& args);
template <size_t Count>
int run_subcommand(Context& context, const char* group, const char* synopsis, const Subcommand (&table)[Count],
                   const Args& args)
{
    return run_subcommand(context, group, synopsis, table, Count, args);
}

void print_json(const Context& context, const JsonWriter& json);

// A command's JSON answer: {"version": kJsonVersion, ...} with the rest
// written by write_body(json); the exit code is kExitOk.
template <typename WriteBody>
int print_document(const Context& context, WriteBody write_body)
{
    JsonWriter json;
    json.begin_object().number("version", kJsonVersion);
    write_body(json);
    json.end_object();
    print_json(context, json);
    return kExitOk;
}

// Most commands take a fixed number of words and a few options: false
// with the usage printed (`usage` when the count of words is wrong) and its
// exit code in `code`.
bool parse_words(const Context& context, const std::string& command, const Args& args, size_t words,
                 const std::string& usage, Arguments& parsed, int& code, const std::vector<OptionSpec>& specs = {});

// `list` and `server list`: one optional word, "devices" (the default) or
// "sessions", in `kind`; false as parse_words.
bool parse_list_kind(const Context& context, const std::string& command, const Args& args, std::string& kind,
                     int& code);
// The module a command reads: when it is not loaded, the command says so
// and exits 4 (kExitNotLoaded), lists included, rather than print an empty
// list that looks like "nothing mapped".
enum class Module { kRnbdClient, kRtrsClient, kRnbdServer, kRtrsServer };
// True when `module` is loaded; else "<what>: <module> is not loaded (no
// /sys/<its directory>)" is printed, and `code` is kExitNotLoaded.
bool require_module(const Context& context, const std::string& what, Module module, int& code);
// `list [devices|sessions]` (and `session list`, which is `list sessions`
// under its own name `what`).
int list_client(Context& context, const std::string& what, const std::string& kind);
// --dry-run: the writes the command would have made, one "would write to
// FILE: TEXT" line each, or {version, dry_run: true, writes: [{file,
// text}]}; returns kExitOk.
int print_planned_writes(const Context& context, const std::vector<PlannedWrite>& plan);
// "No such file or directory (ENOENT)": a failed file read or write.
std::string file_error(int error);
// A failed write_file_atomically of `file` (save, stats --file), printed:
// exit 3 with the directory named when it does not exist (ENOENT), else 1.
int file_write_failed(const Context& context, const std::string& what, const std::string& file, int error);

// One command over several objects (the devices of `unmap`, the exports
// of `server export remove --all`, the paths of a session), going on after a failure: what was done and what
// failed, each failure printed when it happens and all of them in JSON.
struct Batch {
    struct Failure {
        std::string name;
        int error;
        std::string message;
    };
    std::vector<std::string> done;
    std::vector<Failure> failed;

    void fail(const Context& context, const std::string& what, const std::string& name, int error,
              std::string message)
    {
        failed.push_back({name, error, std::move(message)});
        context.fail(what, failed.back().message, kExitFailed);
    }

    // JSON: {"version", <fields>, done_key: [names], "failed": [{name_key,
    // "errno", "error"}]}; exit 1 if anything failed.
    template <typename Fields>
    int finish(const Context& context, const char* done_key, const char* name_key, Fields fields) const
    {
        if (context.json()) {
            JsonWriter json;
            json.begin_object().number("version", kJsonVersion);
            fields(json);
            json.begin_array(done_key);
            for (const std::string& name : done)
                json.string(name);
            json.end_array().begin_array("failed");
            for (const Failure& failure : failed)
                json.begin_object()
                    .string(name_key, failure.name)
                    .string("errno", errno_name(failure.error))
                    .string("error", failure.message)
                    .end_object();
            json.end_array().end_object();
            print_json(context, json);
        }
        return failed.empty() ? kExitOk : kExitFailed;
    }
};

// A restore line's "errno" (its name) and "error" (the message), each
// null when there is none: restore and server restore report alike.
inline void outcome_error(JsonWriter& json, int error, const std::string& message)
{
    if (error)
        json.string("errno", errno_name(error));
    else
        json.null("errno");
    if (message.empty())
        json.null("error");
    else
        json.string("error", message);
}

// `save` and `server save` (save.cpp): the file a save replaces, read
// first so that it can be kept as FILE~.
struct SaveTarget {
    std::string file;
    std::string backup;  // file + "~"
    std::string what;    // "save FILE": the messages' subject
    std::string old_text;
    bool replacing = false;  // there is a file (old_text) to replace
};
// False, with the failure printed and its exit code in `code`, when the
// file is there but cannot be read (it could not be kept).
bool read_save_target(const Context& context, const std::string& what, const std::string& file, SaveTarget& target,
                      int& code);
// True, with the refusal printed (usage, exit 2) in `code`, when a file
// listing `listed` entries would be replaced by one saving none and
// --force was not given; `why_none` says why there is nothing ("nothing
// is mapped"), `noun` names an entry ("mapping").
bool save_would_empty(const Context& context, const SaveTarget& target, size_t listed, size_t saving, bool force,
                      const std::string& why_none, const char* noun, int& code);
// The previous file kept as FILE~, then `text` written atomically; the
// directory of `default_file` is created if missing, no other. kExitOk or
// the printed failure's exit code.
int write_save_target(const Context& context, const SaveTarget& target, const std::string& default_file,
                      const std::string& text);
// {"version", "file", "backup" (null when nothing was replaced), ...: the
// caller adds its entries and ends the object.
void begin_saved_document(JsonWriter& json, const SaveTarget& target);
// "N <noun>s saved to FILE (the previous file is FILE~)".
void print_saved_summary(const Context& context, const SaveTarget& target, size_t saved, const char* noun);

// A list command's output: the table, or {"version": .., key: [..]} with
// write_entry(json, entry) writing each entry; client and server lists
// differ only in these.
template <typename Entry, typename WriteEntry>
int print_list(Context& context, const char* key, const std::vector<Entry>& entries,
               void (*table)(FILE*, const std::vector<Entry>&, Sizes), WriteEntry write_entry)
{
    if (!context.json()) {
        table(context.out, entries, context.sizes);
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) { json.array(key, entries, write_entry); });
}

// "rnbd0", "/dev/rnbd0" or a symlink to it (e.g. a udev name under
// /dev/rnbd/): the rnbdN name, or an error already printed (its exit code
// in `code`).
bool resolve_device(const Context& context, const std::string& what, const std::string& argument, std::string& name,
                    int& code);

// A size for `resize`: "<n>" or "<n>s" sectors of 512 bytes, "<n>K|M|G|T"
// (also "KiB", ... ; powers of 1024) bytes, which must be a multiple of 512.
// False with `error` set.
bool parse_size_sectors(const std::string& text, uint64_t& sectors, std::string& error);

// One mapping as rnbdctl asks for it: the map_device tokens plus the
// session settings rnbdctl applies after the map (not map_device keys).
struct MapRequest {
    std::vector<std::string> tokens;  // "key=value", in order
    std::string mpath_policy;            // "" leaves the session's
    std::string max_reconnect_attempts;  // "" leaves the session's
    std::string session;                 // sessname=, once checked
    std::string device_path;             // device_path=, once checked
};

// Splits "key=value" tokens into `request` (session settings apart);
// false with `error` set for a token without '=' or with a blank.
bool add_map_tokens(const std::vector<std::string>& tokens, MapRequest& request, std::string& error);
// Checks the request with the kernel's own parser (rnbd-clt-options) and
// the session settings' parsers; false with the kernel's message in `error`.
bool check_map_request(const Context& context, MapRequest& request, std::string& line, std::string& error);
// The device a mapping of (session, device_path) has now, or "".
std::string mapped_device(const Context& context, const std::string& session, const std::string& device_path);
// Writes the line to map_device and finds the new device. 0 (with
// `device` set, or "" if sysfs does not show it) or the write's errno.
int write_map(const Context& context, const MapRequest& request, const std::string& line, std::string& device);
// Writes the session settings the request carries; 0 or the errno, with
// `file` naming the attribute that failed.
int apply_session_settings(const Context& context, const MapRequest& request, std::string& file);

}  // namespace rnbdctl
