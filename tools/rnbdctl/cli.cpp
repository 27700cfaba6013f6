// Global options and dispatch; see cli.hpp. Global options (-o, --output,
// --sysfs-root, --help, --version) may stand anywhere on the line.
#include "tools/rnbdctl/cli.hpp"

#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/model.hpp"

namespace rnbdctl {

const char kUsage[] =
    "Usage: rnbdctl [-o table|json] [--sysfs-root DIR] COMMAND [ARGS]\n"
    "\n"
    "Client devices:\n"
    "  map --session S --path [SRC@]DST [--path ...] --device-path P [--access-mode ro|rw|migration]\n"
    "      [--io-mode blockio|fileio] [--input-mode mq] [--dest-port N] [--nr-poll-queues N]\n"
    "      [--io-hold-timeout-ms MS] [--mpath-policy P] [--max-reconnect-attempts N] [key=value ...]\n"
    "                                   map a remote device; prints /dev/rnbdN\n"
    "  unmap [--force] DEVICE | --all   unmap (--force fails its IO if it is open)\n"
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
    "Persistence and metrics:\n"
    "  save [--file F]                  write the current mappings (default /etc/rnbd/rnbdtab)\n"
    "  restore [--file F]               map what the file lists, skipping existing mappings\n"
    "  stats [-o table|json|prometheus] [--file F]   path statistics (--file: written atomically)\n"
    "\n"
    "DEVICE is rnbdN, /dev/rnbdN or a link to it. The sysfs root is --sysfs-root,\n"
    "else $RNBDCTL_SYSFS_ROOT, else /sys. Exit codes: 0 done, 1 the kernel refused\n"
    "(errno in the message), 2 usage (nothing written), 3 not found, 4 module not\n"
    "loaded. See rnbdctl(8).\n";

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

std::string file_error(int error) { return std::string(strerror(error)) + " (" + errno_name(error) + ")"; }

int run(const std::vector<std::string>& args, const RunOptions& options)
{
    std::string root = options.sysfs_root_env.empty() ? "/sys" : options.sysfs_root_env;
    Format format = Format::kTable;
    std::vector<std::string> rest;
    Context bootstrap{Sysfs(root), options.out, options.err};
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
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
        if (arg == "-h" || arg == "--help" || arg == "help") {
            fputs(kUsage, options.out);
            return kExitOk;
        }
        if (arg == "--version") {
            fprintf(options.out, "rnbdctl (RNBD/RTRS in C++) JSON version %d\n", 1);
            return kExitOk;
        }
        rest.push_back(arg);
    }
    Context context{Sysfs(root, options.hook), options.out, options.err, format};
    context.cpu_count = possible_cpus(context.sysfs);
    context.default_rnbdtab = options.default_rnbdtab;
    if (rest.empty()) {
        fputs(kUsage, options.err);
        return kExitUsage;
    }
    const std::string command = rest[0];
    const Args command_args(rest.begin() + 1, rest.end());
    if (format == Format::kPrometheus && command != "stats")
        return context.usage(command, "-o prometheus is for the stats command only");
    struct Command {
        const char* name;
        int (*handler)(Context&, const Args&);
    };
    constexpr Command kCommands[] = {
        {"map", command_map},         {"unmap", command_unmap},     {"resize", command_resize},
        {"remap", command_remap},     {"list", command_list},       {"show", command_show},
        {"session", command_session}, {"path", command_path},       {"server", command_server},
        {"save", command_save},       {"restore", command_restore}, {"stats", command_stats},
    };
    for (const Command& candidate : kCommands)
        if (command == candidate.name)
            return candidate.handler(context, command_args);
    return context.usage(command, "unknown command");
}

}  // namespace rnbdctl
