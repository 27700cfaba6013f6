// Global options and dispatch; see cli.hpp. Global options (-o, --output,
// --bytes, --sysfs-root, -h, --help; --version and `help` as the command
// word) stand before the command; -o, --output, --bytes, --sysfs-root, -h
// and --help also after
// it, where an option may stand, but never as the value of the command's
// own option (`map --device-path help` maps "help").
#include "tools/rnbdctl/cli.hpp"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/files.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/text.hpp"

namespace rnbdctl {

const char kUsage[] =
    "Usage: rnbdctl [-o table|json] [--bytes] [--sysfs-root DIR] COMMAND [ARGS]\n"
    "\n"
    "Client devices:\n"
    "  map --session S --path [SRC@]DST [--path ...] --device-path P [--access-mode ro|rw|migration]\n"
    "      [--io-mode blockio|fileio] [--input-mode mq] [--dest-port N] [--nr-poll-queues N]\n"
    "      [--io-hold-timeout-ms MS] [--mpath-policy P] [--max-reconnect-attempts N] [key=value ...]\n"
    "      [--dry-run]                  map a remote device; prints /dev/rnbdN (--dry-run: what it\n"
    "                                   would write, writing nothing)\n"
    "  unmap [--force] [--dry-run] DEVICE | --all\n"
    "                                   unmap (--force fails its IO if it is open)\n"
    "  resize DEVICE SIZE               SIZE in sectors (N or Ns) or bytes (NK, NM, NG, NT)\n"
    "  remap DEVICE                     re-open a closed device on the server\n"
    "  list [devices|sessions]          mapped devices, or sessions with their paths\n"
    "  show DEVICE                      a device, its session, paths and stats\n"
    "Client sessions and paths:\n"
    "  session list | show S | set S [--mpath-policy P] [--max-reconnect-attempts N]\n"
    "                                 [--io-hold-timeout-ms MS]\n"
    "  path list [S] | add S [SRC@]DST | remove S PATH | reconnect S PATH | disconnect S PATH\n"
    "Server:\n"
    "  server list [devices|sessions]   exported devices, or sessions with their paths\n"
    "  server close EXPORT SESSION      force-close a session's mapping of an export\n"
    "  server path disconnect S PATH    close a server-side path\n"
    "  server export add NAME --path P --allow RULE [--allow RULE ...] [--read-only]\n"
    "      [--io-modes blockio|fileio|blockio,fileio] [--session S] [--dry-run]\n"
    "                                   define an export (RULE: any, ip:ADDR[/BITS], gid:GID[/BITS])\n"
    "  server export remove [--dry-run] NAME | --all\n"
    "                                   remove an export (closes its mappings)\n"
    "  server export list | show NAME   the exports, with the sessions mapping them\n"
    "  server session disconnect S      close every path of a server session\n"
    "  server save [--file F] [--force] write the exports' definitions (default /etc/rnbd/exports),\n"
    "                                   keeping the old file as F~; --force empties it when none is defined\n"
    "  server restore [--file F] [--check | --dry-run] [--replace]\n"
    "                                   define the exports the file lists (--check: only check it;\n"
    "                                   --replace: redefine those defined differently; --dry-run,\n"
    "                                   as for export add/remove: print the writes, make none)\n"
    "Persistence and metrics:\n"
    "  save [--file F] [--force]        write the current mappings (default /etc/rnbd/rnbdtab), keeping\n"
    "                                   the old file as F~; --force empties a file when nothing is mapped\n"
    "  restore [--file F] [--check | --dry-run] [--timeout S]\n"
    "                                   map what the file lists, skipping existing mappings, each line\n"
    "                                   within S seconds (60), the sessions at once; --check only\n"
    "                                   checks every line, --dry-run prints what it would write\n"
    "  stats [-o table|json|prometheus] [--file F]   path statistics (--file: written atomically)\n"
    "\n"
    "DEVICE is rnbdN, /dev/rnbdN or a link to it. Tables show sizes in binary units\n"
    "(1.0 GiB); --bytes shows bytes. The sysfs root is --sysfs-root,\n"
    "else $RNBDCTL_SYSFS_ROOT, else /sys. Exit codes: 0 done, 1 the kernel refused\n"
    "(errno in the message), 2 usage (nothing written), 3 not found, 4 module not\n"
    "loaded. See rnbdctl(8).\n";

namespace {

constexpr Subcommand kCommands[] = {
    {"map", command_map},         {"unmap", command_unmap},     {"resize", command_resize},
    {"remap", command_remap},     {"list", command_list},       {"show", command_show},
    {"session", command_session}, {"path", command_path},       {"server", command_server},
    {"save", command_save},       {"restore", command_restore}, {"stats", command_stats},
};

const Subcommand* find_command(const std::string& name)
{
    for (const Subcommand& candidate : kCommands)
        if (name == candidate.name)
            return &candidate;
    return nullptr;
}

// dkms.conf's PACKAGE_VERSION, which is the modules' MODULE_VERSION
// (RnbdctlOptions.VersionNamesTheProgramAndTheJsonVersion checks it).
const char kVersion[] = "0.1";

// `rnbdctl COMMAND --help`: kUsage's first line up to COMMAND, then the
// command's lines of kUsage, so that the usage text has one copy. A
// command's line begins with two blanks and its name; the lines after it
// indented further continue it, and keep their place under it. False when
// `command` is none of kCommands, or kUsage has no line of it.
bool print_command_usage(FILE* out, const std::string& command)
{
    if (!find_command(command))
        return false;
    const std::string usage = kUsage;
    const std::string first = usage.substr(0, usage.find("COMMAND"));  // "Usage: rnbdctl [-o ...] "
    const size_t program = first.find("rnbdctl");
    const std::string again = std::string(program, ' ') + first.substr(program);  // a further command line
    const std::string start = "  " + command + " ";
    std::string text;
    bool continued = false;
    for (size_t begin = 0; begin < usage.size();) {
        size_t end = usage.find('\n', begin);
        if (end == std::string::npos)
            end = usage.size();
        const std::string line = usage.substr(begin, end - begin);
        begin = end + 1;
        if (line.rfind(start, 0) == 0) {
            text += (text.empty() ? first : again) + line.substr(2) + "\n";
            continued = true;
        } else if (continued && line.rfind("   ", 0) == 0) {
            text += std::string(first.size() - 2, ' ') + line + "\n";
        } else {
            continued = false;
        }
    }
    if (text.empty())
        return false;
    fputs(text.c_str(), out);
    return true;
}

}  // namespace

unsigned possible_cpus(const Sysfs& sysfs)
{
    std::string text;
    if (sysfs.read("devices/system/cpu/possible", text) && !text.empty()) {
        // The highest CPU number plus one, as nr_cpu_ids.
        unsigned highest = 0;
        const char* p = text.c_str();
        while (*p) {
            char* end = nullptr;
            unsigned long value = strtoul(p, &end, 10);
            if (end == p)
                break;
            if (value > highest)
                highest = unsigned(value);
            p = end;
            if (*p == ',' || *p == '-')
                ++p;
        }
        return highest + 1;
    }
    int count = get_nprocs_conf();
    return count > 0 ? unsigned(count) : 1;
}

int run_subcommand(Context& context, const char* group, const char* synopsis, const Subcommand* table, size_t count,
                   const Args& args)
{
    const std::string usage = std::string(group) + " " + synopsis;
    if (args.empty())
        return context.usage(group, usage);
    const Args rest(args.begin() + 1, args.end());
    for (size_t index = 0; index < count; ++index)
        if (args[0] == table[index].name)
            return table[index].handler(context, rest);
    return context.usage(group, "unknown command '" + args[0] + "'; " + usage);
}

void print_json(const Context& context, const JsonWriter& json) { fputs(json.text().c_str(), context.out); }

bool parse_words(const Context& context, const std::string& command, const Args& args, size_t words,
                 const std::string& usage, Arguments& parsed, int& code, const std::vector<OptionSpec>& specs)
{
    std::string error;
    if (!parse_arguments(args, specs, parsed, error)) {
        code = context.usage(command, error);
        return false;
    }
    if (parsed.positionals.size() != words) {
        code = context.usage(command, usage);
        return false;
    }
    return true;
}

bool parse_list_kind(const Context& context, const std::string& command, const Args& args, std::string& kind,
                     int& code)
{
    Arguments parsed;
    std::string error;
    if (!parse_arguments(args, {}, parsed, error)) {
        code = context.usage(command, error);
        return false;
    }
    kind = parsed.positionals.empty() ? "devices" : parsed.positionals[0];
    if (parsed.positionals.size() > 1 || (kind != "devices" && kind != "sessions")) {
        code = context.usage(command, command + " [devices|sessions]");
        return false;
    }
    return true;
}

bool require_module(const Context& context, const std::string& what, Module module, int& code)
{
    struct Known {
        Module module;
        const char* name;
        const char* directory;  // whose presence says the module is loaded
    };
    constexpr Known kModules[] = {
        {Module::kRnbdClient, "rnbd-client", kMapDevice},
        {Module::kRtrsClient, "rtrs-client", kRtrsClientClass},
        {Module::kRnbdServer, "rnbd-server", kServerDevices},
        {Module::kRtrsServer, "rtrs-server", kRtrsServerClass},
    };
    const Sysfs& sysfs = context.sysfs;
    for (const Known& known : kModules) {
        if (known.module != module)
            continue;
        const bool loaded = module == Module::kRnbdClient   ? client_loaded(sysfs)
                            : module == Module::kRnbdServer ? server_loaded(sysfs)
                                                            : sysfs.is_directory(known.directory);
        if (!loaded)
            code = context.fail(what, std::string(known.name) + " is not loaded (no /sys/" + known.directory + ")",
                                kExitNotLoaded);
        return loaded;
    }
    return true;
}

int print_planned_writes(const Context& context, const std::vector<PlannedWrite>& plan)
{
    if (!context.json()) {
        for (const PlannedWrite& write : plan)
            fprintf(context.out, "would write to %s: %s\n", printable(write.file).c_str(),
                    printable(write.text).c_str());
        return kExitOk;
    }
    return print_document(context, [&](JsonWriter& json) {
        json.boolean("dry_run", true);
        json.array("writes", plan, [](JsonWriter& json, const PlannedWrite& write) {
            json.begin_object().string("file", write.file).string("text", write.text).end_object();
        });
    });
}

std::string file_error(int error) { return std::string(strerror(error)) + " (" + errno_name(error) + ")"; }

int file_write_failed(const Context& context, const std::string& what, const std::string& file, int error)
{
    if (error != ENOENT)
        return context.fail(what, file_error(error), kExitFailed);
    return context.fail(what, file_error(error) + ": the directory " + directory_of(file) + " does not exist",
                        kExitNotFound);
}

int run(const std::vector<std::string>& args, const RunOptions& options)
{
    std::string root = options.sysfs_root_env.empty() ? "/sys" : options.sysfs_root_env;
    Format format = Format::kTable;
    Sizes sizes = Sizes::kHuman;
    bool have_command = false;
    std::string command;
    Args command_args;
    Context bootstrap{Sysfs(root), options.out, options.err};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        // "--" ends the global options: the words after it go to the command
        // as they are, after the command word with the "--", which ends the
        // command's own options too.
        if (arg == "--") {
            size_t rest = i + 1;
            if (have_command)
                command_args.push_back(arg);
            else if (rest < args.size()) {
                command = args[rest++];
                have_command = true;
            }
            command_args.insert(command_args.end(), args.begin() + rest, args.end());
            break;
        }
        std::string value;
        bool takes_value = false;
        std::string name;
        for (const char* option : {"-o", "--output", "--sysfs-root"}) {
            const std::string prefix = std::string(option) + "=";
            if (arg == option) {
                if (i + 1 >= args.size())
                    return bootstrap.usage(option, "needs a value");
                name = option;
                value = args[++i];
                takes_value = true;
            } else if (arg.rfind(prefix, 0) == 0 && option[1] == '-') {
                name = option;
                value = arg.substr(prefix.size());
                takes_value = true;
            }
        }
        if (takes_value) {
            if (name == "--sysfs-root") {
                root = value;
                continue;
            }
            if (value == "table")
                format = Format::kTable;
            else if (value == "json")
                format = Format::kJson;
            else if (value == "prometheus")
                format = Format::kPrometheus;
            else
                return bootstrap.usage(name, "must be table, json or prometheus, not '" + value + "'");
            continue;
        }
        if (arg == "--bytes") {
            sizes = Sizes::kBytes;
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            if (!have_command) {
                fputs(kUsage, options.out);
                return kExitOk;
            }
            return print_command_usage(options.out, command) ? kExitOk : bootstrap.usage(command, "unknown command");
        }
        if (!have_command) {
            if (arg == "help") {
                fputs(kUsage, options.out);
                return kExitOk;
            }
            if (arg == "--version") {
                fprintf(options.out, "rnbdctl %s (RNBD/RTRS in C++), JSON version %d\n", kVersion, kJsonVersion);
                return kExitOk;
            }
            command = arg;
            have_command = true;
            continue;
        }
        command_args.push_back(arg);
        // Every command option but the flags takes the next word as its
        // value, whatever it looks like; parse_arguments reads it so too.
        if (is_long_option(arg) && arg.find('=') == std::string::npos && !is_flag_option(arg.substr(2)) &&
            i + 1 < args.size())
            command_args.push_back(args[++i]);
    }
    Context context{Sysfs(root, options.hook), options.out, options.err, format, sizes};
    context.cpu_count = possible_cpus(context.sysfs);
    context.default_rnbdtab = options.default_rnbdtab;
    context.default_exports = options.default_exports;
    if (!have_command) {
        fputs(kUsage, options.err);
        return kExitUsage;
    }
    if (format == Format::kPrometheus && command != "stats")
        return context.usage(command, "-o prometheus is for the stats command only");
    if (const Subcommand* found = find_command(command))
        return found->handler(context, command_args);
    return context.usage(command, "unknown command");
}

}  // namespace rnbdctl
