// Every error path of every rnbdctl command and subcommand against the fake
// sysfs tree, one named test per case (tools/rnbdctl/tests/COVERAGE.md
// lists them per command):
//   Usage/*      a bad option or argument: exit 2, the message, the hint to
//                --help, nothing on stdout, nothing written;
//   NotFound/*   an unknown device, session, path or export: exit 3, the
//                message, nothing written;
//   NotLoaded/*  the module the command needs is missing: exit 4;
//   Refused/*    the kernel refuses the one write: exit 1, the errno named
//                with its reason (Documentation/sysfs.md), no other write;
//   and the built program run as a user who may not write sysfs.
// The tree: rnbd-client with rnbd0 (session s1, two paths from
// ip:10.0.0.9), rnbd-server exporting ram0 to s1, and sda, a block device
// that is not an rnbd one.
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

struct ErrorCase {
    std::string name;  // the test's name (letters, digits, '_')
    Strings args;
    std::string message;  // the first line of stderr, exactly
    std::string failing_file = "";  // Refused: the write that fails ...
    int error = 0;                  // ... and its errno
};

std::string case_name(const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; }

// gtest prints a failing case's command line, not its bytes.
void PrintTo(const ErrorCase& c, std::ostream* os)
{
    *os << "rnbdctl";
    for (const std::string& arg : c.args)
        *os << " " << arg;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

class Tree {
public:
    Tree()
    {
        kernel.load_client();
        kernel.load_server();
        kernel.map("sessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0");  // rnbd0
        kernel.add_export("ram0", "s1", "/dev/ram0", "ip:192.0.2.5");
        kernel.mkdir("block/sda");
    }
    FakeKernel kernel;
};

// --- usage: exit 2, nothing written ---------------------------------------------------------

const char kPathSubcommands[] = "path list|add|remove|reconnect|disconnect";

std::vector<ErrorCase> usage_cases()
{
    std::vector<ErrorCase> cases = {
        // global options
        {"unknown_command", {"frob"}, "rnbdctl: frob: unknown command"},
        {"output_bad_value", {"-o", "xml", "list"}, "rnbdctl: -o: must be table, json or prometheus, not 'xml'"},
        {"output_equals_bad_value", {"--output=yaml", "list"},
         "rnbdctl: --output: must be table, json or prometheus, not 'yaml'"},
        {"output_without_value", {"list", "-o"}, "rnbdctl: -o: needs a value"},
        {"sysfs_root_without_value", {"list", "--sysfs-root"}, "rnbdctl: --sysfs-root: needs a value"},
        {"prometheus_outside_stats", {"-o", "prometheus", "list"},
         "rnbdctl: list: -o prometheus is for the stats command only"},
        // after the command, help is a word and --version the command's option
        {"help_after_the_command", {"list", "help"}, "rnbdctl: list: list [devices|sessions]"},
        {"help_of_an_unknown_command", {"frob", "--help"}, "rnbdctl: frob: unknown command"},
        {"help_of_a_command_lookalike", {"save [--file", "-h"}, "rnbdctl: save [--file: unknown command"},
        {"version_after_the_command", {"list", "--version"}, "rnbdctl: list: unknown option --version"},
        // map
        {"map_unknown_option", {"map", "--frob"}, "rnbdctl: map: unknown option --frob"},
        {"map_nothing", {"map"}, "rnbdctl: map: invalid input: empty input (at '')"},
        {"map_option_without_value", {"map", "--session"}, "rnbdctl: map: --session needs a value"},
        {"map_option_twice", {"map", "--session", "a", "--session", "b"}, "rnbdctl: map: --session given twice"},
        {"map_bad_value",
         {"map", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path", "/dev/ram1", "--access-mode", "rx"},
         "rnbdctl: map: invalid input: access_mode must be ro, rw or migration (at 'rx')"},
        // unmap
        {"unmap_unknown_option", {"unmap", "--frob", "rnbd0"}, "rnbdctl: unmap: unknown option --frob"},
        {"unmap_no_device", {"unmap"}, "rnbdctl: unmap: give one device, or --all"},
        {"unmap_two_devices", {"unmap", "rnbd0", "rnbd1"}, "rnbdctl: unmap: give one device, or --all"},
        {"unmap_all_and_a_device", {"unmap", "--all", "rnbd0"}, "rnbdctl: unmap: give one device, or --all"},
        {"unmap_flag_with_value", {"unmap", "--force=yes", "rnbd0"}, "rnbdctl: unmap: --force takes no value"},
        // resize
        {"resize_unknown_option", {"resize", "--frob", "rnbd0", "1M"}, "rnbdctl: resize: unknown option --frob"},
        {"resize_no_size", {"resize", "rnbd0"}, "rnbdctl: resize: give a device and a size"},
        {"resize_bad_unit", {"resize", "rnbd0", "1X"},
         "rnbdctl: resize: size must be <number>[s|K|M|G|T] (sectors of 512 bytes, or bytes in powers of 1024): "
         "'1X'"},
        {"resize_zero", {"resize", "rnbd0", "0"}, "rnbdctl: resize: size must not be 0: '0'"},
        {"resize_too_large", {"resize", "rnbd0", "100000000000000T"},
         "rnbdctl: resize: size is too large: '100000000000000T'"},
        // remap, list, show
        {"remap_unknown_option", {"remap", "--frob", "rnbd0"}, "rnbdctl: remap: unknown option --frob"},
        {"remap_no_device", {"remap"}, "rnbdctl: remap: give one device"},
        {"list_unknown_option", {"list", "--frob"}, "rnbdctl: list: unknown option --frob"},
        {"list_unknown_kind", {"list", "things"}, "rnbdctl: list: list [devices|sessions]"},
        {"list_two_kinds", {"list", "devices", "sessions"}, "rnbdctl: list: list [devices|sessions]"},
        {"show_unknown_option", {"show", "--frob", "rnbd0"}, "rnbdctl: show: unknown option --frob"},
        {"show_no_device", {"show"}, "rnbdctl: show: give one device"},
        // session
        {"session_no_subcommand", {"session"}, "rnbdctl: session: session list|show|set"},
        {"session_unknown_subcommand", {"session", "frob"},
         "rnbdctl: session: unknown command 'frob'; session list|show|set"},
        {"session_list_unknown_option", {"session", "list", "--frob"}, "rnbdctl: session list: unknown option --frob"},
        {"session_list_argument", {"session", "list", "s1"}, "rnbdctl: session list: takes no argument"},
        {"session_show_unknown_option", {"session", "show", "--frob", "s1"},
         "rnbdctl: session show: unknown option --frob"},
        {"session_show_no_session", {"session", "show"}, "rnbdctl: session show: give one session"},
        {"session_set_unknown_option", {"session", "set", "s1", "--frob", "1"},
         "rnbdctl: session set: unknown option --frob"},
        {"session_set_no_session", {"session", "set", "--mpath-policy", "rr"},
         "rnbdctl: session set: give one session"},
        {"session_set_no_setting", {"session", "set", "s1"},
         "rnbdctl: session set: give --mpath-policy, --max-reconnect-attempts or --io-hold-timeout-ms"},
        {"session_set_bad_policy", {"session", "set", "s1", "--mpath-policy", "fastest"},
         "rnbdctl: session set: mpath_policy: expected 0, 1, 2 or a policy name (at 'fastest')"},
        {"session_set_bad_attempts", {"session", "set", "s1", "--mpath-policy", "rr", "--max-reconnect-attempts", "-2"},
         "rnbdctl: session set: max_reconnect_attempts: expected -1 .. 9999 (at '-2')"},
        // path
        {"path_no_subcommand", {"path"}, std::string("rnbdctl: path: ") + kPathSubcommands},
        {"path_unknown_subcommand", {"path", "frob"},
         std::string("rnbdctl: path: unknown command 'frob'; ") + kPathSubcommands},
        {"path_list_unknown_option", {"path", "list", "--frob"}, "rnbdctl: path list: unknown option --frob"},
        {"path_list_two_sessions", {"path", "list", "s1", "s2"}, "rnbdctl: path list: path list [SESSION]"},
        {"path_add_unknown_option", {"path", "add", "--frob", "s1", "ip:192.0.2.7"},
         "rnbdctl: path add: unknown option --frob"},
        {"path_add_no_address", {"path", "add", "s1"}, "rnbdctl: path add: give a session and [<src>@]<dst>"},
        {"path_add_bad_address", {"path", "add", "s1", "ip:192.0.2.999"},
         "rnbdctl: path add s1 ip:192.0.2.999: add_path: expected [<src>@]<dst> or [<src>,]<dst> with "
         "ip:<ipv4|ipv6> or gid:<gid> addresses"},
    };
    for (const char* action : {"remove", "reconnect", "disconnect"}) {
        const std::string command = std::string("path ") + action;
        const std::string prefix = std::string("path_") + action;
        cases.push_back({prefix + "_unknown_option", {"path", action, "--frob", "s1", "ip:192.0.2.1"},
                         "rnbdctl: " + command + ": unknown option --frob"});
        cases.push_back(
            {prefix + "_no_path", {"path", action, "s1"}, "rnbdctl: " + command + ": give a session and a path"});
        cases.push_back({prefix + "_ambiguous_path", {"path", action, "s1", "ip:10.0.0.9"},
                         "rnbdctl: " + command +
                             " s1 ip:10.0.0.9: names 2 paths (ip:10.0.0.9@ip:192.0.2.1, ip:10.0.0.9@ip:198.51.100.1 "
                             "...); give the path's full name"});
    }
    const std::vector<ErrorCase> rest = {
        // server
        {"server_no_subcommand", {"server"}, "rnbdctl: server: server list|close|path|export|session|save|restore"},
        {"server_unknown_subcommand", {"server", "frob"},
         "rnbdctl: server: unknown command 'frob'; server list|close|path|export|session|save|restore"},
        {"server_list_unknown_option", {"server", "list", "--frob"}, "rnbdctl: server list: unknown option --frob"},
        {"server_list_unknown_kind", {"server", "list", "things"},
         "rnbdctl: server list: server list [devices|sessions]"},
        {"server_close_unknown_option", {"server", "close", "--frob", "ram0", "s1"},
         "rnbdctl: server close: unknown option --frob"},
        {"server_close_no_session", {"server", "close", "ram0"}, "rnbdctl: server close: give an export and a session"},
        {"server_path_no_action", {"server", "path"}, "rnbdctl: server path: server path disconnect SESSION PATH"},
        {"server_path_unknown_action", {"server", "path", "frob", "s1", "ip:192.0.2.5"},
         "rnbdctl: server path: server path disconnect SESSION PATH"},
        {"server_path_disconnect_unknown_option", {"server", "path", "disconnect", "--frob", "s1", "ip:192.0.2.5"},
         "rnbdctl: server path disconnect: unknown option --frob"},
        {"server_path_disconnect_no_path", {"server", "path", "disconnect", "s1"},
         "rnbdctl: server path disconnect: give a session and a path"},
        // save, restore, stats
        {"save_unknown_option", {"save", "--frob"}, "rnbdctl: save: unknown option --frob"},
        {"save_argument", {"save", "somewhere"}, "rnbdctl: save: save [--file FILE] [--force]"},
        {"save_force_with_value", {"save", "--force=yes"}, "rnbdctl: save: --force takes no value"},
        {"save_file_without_value", {"save", "--file"}, "rnbdctl: save: --file needs a value"},
        {"restore_unknown_option", {"restore", "--frob"}, "rnbdctl: restore: unknown option --frob"},
        {"restore_argument", {"restore", "somewhere"},
         "rnbdctl: restore: restore [--file FILE] [--check | --dry-run] [--timeout SECONDS]"},
        {"restore_file_without_value", {"restore", "--file"}, "rnbdctl: restore: --file needs a value"},
        {"stats_unknown_option", {"stats", "--frob"}, "rnbdctl: stats: unknown option --frob"},
        {"stats_argument", {"stats", "paths"}, "rnbdctl: stats: stats [-o table|json|prometheus] [--file FILE]"},
        {"stats_file_without_value", {"stats", "--file"}, "rnbdctl: stats: --file needs a value"},
    };
    cases.insert(cases.end(), rest.begin(), rest.end());
    return cases;
}

class Usage : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(Usage, ExitsTwoAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    Tree tree;
    tree.kernel.clear_writes();
    RunResult r = tree.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_EQ(r.err, c.message + "\nTry 'rnbdctl --help'.\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(tree.kernel.writes(), Writes{});
    EXPECT_TRUE(tree.kernel.exists("block/rnbd0"));
}

INSTANTIATE_TEST_SUITE_P(RnbdctlErrors, Usage, ::testing::ValuesIn(usage_cases()), case_name);

// --- no such device, session, path or export: exit 3, nothing written -------------------------

std::vector<ErrorCase> not_found_cases()
{
    std::vector<ErrorCase> cases = {
        {"unmap_unknown_device", {"unmap", "rnbd7"}, "rnbdctl: unmap rnbd7: no such rnbd device"},
        {"unmap_unknown_dev_path", {"unmap", "--force", "/dev/rnbd7"},
         "rnbdctl: unmap /dev/rnbd7: no such rnbd device"},
        {"unmap_not_an_rnbd_device", {"unmap", "sda"}, "rnbdctl: unmap sda: no such rnbd device"},
        {"unmap_device_named_like_an_option", {"unmap", "--", "-h"}, "rnbdctl: unmap -h: no such rnbd device"},
        {"resize_unknown_device", {"resize", "rnbd7", "1M"}, "rnbdctl: resize rnbd7: no such rnbd device"},
        {"remap_unknown_device", {"remap", "/dev/sda"}, "rnbdctl: remap /dev/sda: no such rnbd device"},
        {"show_unknown_device", {"show", "rnbd7"}, "rnbdctl: show rnbd7: no such rnbd device"},
        {"session_show_unknown_session", {"session", "show", "s9"}, "rnbdctl: session show s9: no such session"},
        {"session_set_unknown_session", {"session", "set", "s9", "--mpath-policy", "rr"},
         "rnbdctl: session set s9: no such session"},
        {"path_list_unknown_session", {"path", "list", "s9"}, "rnbdctl: path list s9: no such session"},
        {"path_add_unknown_session", {"path", "add", "s9", "ip:192.0.2.7"},
         "rnbdctl: path add s9 ip:192.0.2.7: no such session"},
        {"server_close_unknown_export", {"server", "close", "ram7", "s1"},
         "rnbdctl: server close ram7 s1: no such export"},
        {"server_close_unknown_session", {"server", "close", "ram0", "s9"},
         "rnbdctl: server close ram0 s9: the session has no mapping of this export"},
        {"server_path_disconnect_unknown_session", {"server", "path", "disconnect", "s9", "ip:192.0.2.5"},
         "rnbdctl: server path disconnect s9 ip:192.0.2.5: no such session or path"},
        {"server_path_disconnect_unknown_path", {"server", "path", "disconnect", "s1", "ip:192.0.2.99"},
         "rnbdctl: server path disconnect s1 ip:192.0.2.99: no such session or path"},
    };
    for (const char* action : {"remove", "reconnect", "disconnect"}) {
        const std::string command = std::string("path ") + action;
        cases.push_back({std::string("path_") + action + "_unknown_session", {"path", action, "s9", "ip:192.0.2.1"},
                         "rnbdctl: " + command + " s9 ip:192.0.2.1: no such session"});
        cases.push_back({std::string("path_") + action + "_unknown_path", {"path", action, "s1", "ip:203.0.113.1"},
                         "rnbdctl: " + command + " s1 ip:203.0.113.1: no such path in session s1"});
    }
    return cases;
}

class NotFound : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(NotFound, ExitsThreeAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    Tree tree;
    tree.kernel.clear_writes();
    RunResult r = tree.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitNotFound) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

INSTANTIATE_TEST_SUITE_P(RnbdctlErrors, NotFound, ::testing::ValuesIn(not_found_cases()), case_name);

TEST(RnbdctlErrors, RestoreOfAMissingFileIsNotFound)
{
    Tree tree;
    const std::string file = tree.kernel.root() + "/nowhere/rnbdtab";
    RunResult r = tree.kernel.run({"restore", "--file", file});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: restore " + file + ": No such file or directory (ENOENT)\n");
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

// --- the module is not loaded: exit 4 ----------------------------------------------------------

std::vector<ErrorCase> not_loaded_cases()
{
    const std::string no_client = "no such rnbd device (rnbd-client is not loaded)";
    const std::string no_rtrs = "no such session (rtrs-client is not loaded)";
    const std::string no_client_module = "rnbd-client is not loaded (no /sys/kernel/rnbd_client/map_device)";
    const std::string no_rtrs_module = "rtrs-client is not loaded (no /sys/class/rtrs-client)";
    std::vector<ErrorCase> cases = {
        {"map", {"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"},
         "rnbdctl: map: rnbd-client is not loaded (no /sys/kernel/rnbd_client/map_device)"},
        {"unmap", {"unmap", "rnbd0"}, "rnbdctl: unmap rnbd0: " + no_client},
        {"resize", {"resize", "rnbd0", "1M"}, "rnbdctl: resize rnbd0: " + no_client},
        {"remap", {"remap", "rnbd0"}, "rnbdctl: remap rnbd0: " + no_client},
        {"show", {"show", "rnbd0"}, "rnbdctl: show rnbd0: " + no_client},
        {"session_show", {"session", "show", "s1"}, "rnbdctl: session show s1: " + no_rtrs},
        {"session_set", {"session", "set", "s1", "--mpath-policy", "rr"}, "rnbdctl: session set s1: " + no_rtrs},
        {"path_list", {"path", "list", "s1"}, "rnbdctl: path list s1: " + no_rtrs},
        {"path_add", {"path", "add", "s1", "ip:192.0.2.7"}, "rnbdctl: path add s1 ip:192.0.2.7: " + no_rtrs},
        {"server_close", {"server", "close", "ram0", "s1"},
         "rnbdctl: server close ram0 s1: rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/devices)"},
        {"server_path_disconnect", {"server", "path", "disconnect", "s1", "ip:192.0.2.5"},
         "rnbdctl: server path disconnect s1 ip:192.0.2.5: rtrs-server is not loaded"},
        {"save", {"save", "--file", "/nonexistent/rnbdtab"},
         "rnbdctl: save: rnbd-client is not loaded; nothing to save (the file is left as it is)"},
        // The lists (issue 27, item 3): exit 4 as for every other command,
        // and with -o json no document (stdout is empty, as on any error).
        {"list", {"list"}, "rnbdctl: list: " + no_client_module},
        {"list_json", {"-o", "json", "list"}, "rnbdctl: list: " + no_client_module},
        {"list_sessions", {"list", "sessions"}, "rnbdctl: list sessions: " + no_rtrs_module},
        {"session_list", {"session", "list"}, "rnbdctl: session list: " + no_rtrs_module},
        {"session_list_json", {"-o", "json", "session", "list"}, "rnbdctl: session list: " + no_rtrs_module},
        {"path_list_of_all_sessions", {"path", "list"}, "rnbdctl: path list: " + no_rtrs_module},
        {"server_list", {"server", "list"},
         "rnbdctl: server list: rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/devices)"},
        {"server_list_sessions", {"server", "list", "sessions"},
         "rnbdctl: server list sessions: rtrs-server is not loaded (no /sys/class/rtrs-server)"},
        {"server_list_sessions_json", {"-o", "json", "server", "list", "sessions"},
         "rnbdctl: server list sessions: rtrs-server is not loaded (no /sys/class/rtrs-server)"},
    };
    for (const char* action : {"remove", "reconnect", "disconnect"})
        cases.push_back({std::string("path_") + action, {"path", action, "s1", "ip:192.0.2.1"},
                         std::string("rnbdctl: path ") + action + " s1 ip:192.0.2.1: " + no_rtrs});
    return cases;
}

class NotLoaded : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(NotLoaded, ExitsFourAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    FakeKernel bare;
    RunResult r = bare.run(c.args);
    EXPECT_EQ(r.code, kExitNotLoaded) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(bare.writes(), Writes{});
}

INSTANTIATE_TEST_SUITE_P(RnbdctlErrors, NotLoaded, ::testing::ValuesIn(not_loaded_cases()), case_name);

// Loaded modules with nothing mapped or exported: the lists are empty,
// exit 0 (only a missing module is exit 4, NotLoaded above).
TEST(RnbdctlErrors, ListsOfLoadedModulesWithNothingAreEmpty)
{
    FakeKernel empty;
    empty.load_client();
    empty.load_server();
    struct Case {
        Strings args;
        std::string empty_array;
    };
    for (const Case& c : {Case{{"list"}, "devices"}, Case{{"list", "sessions"}, "sessions"},
                          Case{{"session", "list"}, "sessions"}, Case{{"path", "list"}, "paths"},
                          Case{{"server", "list"}, "devices"}, Case{{"server", "list", "sessions"}, "sessions"}}) {
        Strings args = {"-o", "json"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        RunResult r = empty.run(args);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, "{\n  \"version\": 1,\n  \"" + c.empty_array + "\": []\n}\n") << c.args[0];
    }
}

// --- the kernel refuses the write: exit 1, the errno and its reason -----------------------------

std::vector<ErrorCase> refused_cases()
{
    const std::string path0 = "class/rtrs-client/s1/paths/ip:10.0.0.9@ip:192.0.2.1/";
    return {
        {"unmap_busy", {"unmap", "rnbd0"},
         "rnbdctl: unmap rnbd0: Device or resource busy (EBUSY): device is open (use --force to fail its IO and "
         "unmap anyway)",
         "block/rnbd0/rnbd_client/unmap_device", EBUSY},
        {"unmap_unloading", {"unmap", "--force", "rnbd0"},
         "rnbdctl: unmap rnbd0: No such device (ENODEV): rnbd-client is unloading",
         "block/rnbd0/rnbd_client/unmap_device", ENODEV},
        {"resize_not_open", {"resize", "rnbd0", "1M"},
         "rnbdctl: resize rnbd0: No such device (ENODEV): the device is not open", "block/rnbd0/rnbd_client/resize",
         ENODEV},
        {"remap_unmapping", {"remap", "rnbd0"},
         "rnbdctl: remap rnbd0: No such device (ENODEV): the device is being unmapped",
         "block/rnbd0/rnbd_client/remap_device", ENODEV},
        {"remap_refused_by_server", {"remap", "rnbd0"},
         "rnbdctl: remap rnbd0: No such file or directory (ENOENT)", "block/rnbd0/rnbd_client/remap_device", ENOENT},
        {"map_access_refused",
         {"map", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path", "/dev/ram1", "--access-mode", "rw"},
         "rnbdctl: map s1 /dev/ram1: Operation not permitted (EPERM): the server refuses this access mode (another "
         "client has it open)",
         "kernel/rnbd_client/map_device", EPERM},
        {"map_not_exported", {"map", "sessname=s1", "device_path=/etc/passwd"},
         "rnbdctl: map s1 /etc/passwd: Block device required (ENOTBLK): the server does not export this path (not a "
         "block device, or outside file_export_dir)",
         "kernel/rnbd_client/map_device", ENOTBLK},
        {"map_no_session", {"map", "sessname=s5", "device_path=/dev/ram1"},
         "rnbdctl: map s5 /dev/ram1: No such device or address (ENXIO): no --path given and no such session",
         "kernel/rnbd_client/map_device", ENXIO},
        {"map_session_setting_refused",
         {"map", "sessname=s2", "path=ip:192.0.2.1", "device_path=/dev/ram1", "mpath_policy=rr"},
         "rnbdctl: map s2 /dev/ram1: mapped as /dev/rnbd1, but class/rtrs-client/s2/mpath_policy: Invalid argument "
         "(EINVAL): the kernel refused the value",
         "class/rtrs-client/s2/mpath_policy", EINVAL},
        {"session_set_refused", {"session", "set", "s1", "--io-hold-timeout-ms", "100"},
         "rnbdctl: session set s1 io_hold_timeout_ms: Invalid argument (EINVAL): the kernel refused the value",
         "class/rtrs-client/s1/io_hold_timeout_ms", EINVAL},
        {"path_add_session_closing", {"path", "add", "s1", "ip:192.0.2.7"},
         "rnbdctl: path add s1 ip:192.0.2.7: Device or resource busy (EBUSY): the session is closing",
         "class/rtrs-client/s1/add_path", EBUSY},
        {"path_add_no_server", {"path", "add", "s1", "ip:192.0.2.7"},
         "rnbdctl: path add s1 ip:192.0.2.7: Connection reset by peer (ECONNRESET): the path did not come up (no "
         "server listening?)",
         "class/rtrs-client/s1/add_path", ECONNRESET},
        {"path_remove_refused", {"path", "remove", "s1", "ip:192.0.2.1"},
         "rnbdctl: path remove s1 ip:192.0.2.1: Invalid argument (EINVAL)", path0 + "remove_path", EINVAL},
        {"path_reconnect_busy", {"path", "reconnect", "s1", "ip:192.0.2.1"},
         "rnbdctl: path reconnect s1 ip:192.0.2.1: Device or resource busy (EBUSY): the path is making its first "
         "connect, or going away",
         path0 + "reconnect", EBUSY},
        {"path_disconnect_refused", {"path", "disconnect", "s1", "ip:10.0.0.9@ip:192.0.2.1"},
         "rnbdctl: path disconnect s1 ip:10.0.0.9@ip:192.0.2.1: Invalid argument (EINVAL)", path0 + "disconnect",
         EINVAL},
        {"server_close_refused", {"server", "close", "ram0", "s1"},
         "rnbdctl: server close ram0 s1: Invalid argument (EINVAL): the kernel refused the value",
         "class/rnbd-server/ctl/devices/ram0/sessions/s1/force_close", EINVAL},
        {"server_path_disconnect_refused", {"server", "path", "disconnect", "s1", "ip:192.0.2.5"},
         "rnbdctl: server path disconnect s1 ip:192.0.2.5: Invalid argument (EINVAL)",
         "class/rtrs-server/s1/paths/ip:192.0.2.5@ip:192.0.2.1/disconnect", EINVAL},
    };
}

class Refused : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(Refused, ExitsOneNamingTheErrno)
{
    const ErrorCase& c = GetParam();
    Tree tree;
    tree.kernel.clear_writes();
    tree.kernel.fail(c.failing_file, c.error);
    RunResult r = tree.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitFailed) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    // The refused write is the last one: nothing after it.
    ASSERT_FALSE(tree.kernel.writes().empty());
    EXPECT_EQ(tree.kernel.writes().back().first, c.failing_file);
}

INSTANTIATE_TEST_SUITE_P(RnbdctlErrors, Refused, ::testing::ValuesIn(refused_cases()), case_name);

// A file rnbdctl writes that cannot be written: exit 1, the errno named.
TEST(RnbdctlErrors, SaveAndStatsToAnUnwritablePlace)
{
    Tree tree;
    tree.kernel.file("plain-file", "x\n");
    const std::string file = tree.kernel.root() + "/plain-file/rnbdtab";
    RunResult r = tree.kernel.run({"save", "--file", file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: save " + file + ": Not a directory (ENOTDIR)\n");
    EXPECT_EQ(r.out, "");
    r = tree.kernel.run({"stats", "-o", "prometheus", "--file", file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: stats " + file + ": Not a directory (ENOTDIR)\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

// A --file in a directory that does not exist: exit 3, nothing created
// (save makes only the default file's directory, /etc/rnbd).
TEST(RnbdctlErrors, SaveAndStatsIntoAMissingDirectory)
{
    Tree tree;
    const std::string directory = tree.kernel.root() + "/nonexistent/dir";
    for (const char* command : {"save", "stats"}) {
        const std::string file = directory + "/" + command;
        RunResult r = tree.kernel.run({command, "--file", file});
        EXPECT_EQ(r.code, kExitNotFound) << command;
        EXPECT_EQ(r.err, std::string("rnbdctl: ") + command + " " + file +
                             ": No such file or directory (ENOENT): the directory " + directory +
                             " does not exist\n");
        EXPECT_EQ(r.out, "");
        EXPECT_FALSE(tree.kernel.exists("nonexistent"));
    }
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

// A source address naming two of the server's paths of one session.
TEST(RnbdctlErrors, ServerPathDisconnectOfAnAmbiguousAddress)
{
    Tree tree;
    const std::string second = "class/rtrs-server/s1/paths/ip:192.0.2.5@ip:198.51.100.1/";
    tree.kernel.file(second + "src_addr", "ip:192.0.2.5\n");
    tree.kernel.file(second + "dst_addr", "ip:198.51.100.1\n");
    tree.kernel.file(second + "disconnect", "Usage: echo 1 > disconnect\n");
    tree.kernel.clear_writes();
    RunResult r = tree.kernel.run({"server", "path", "disconnect", "s1", "ip:192.0.2.5"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(first_line(r.err),
              "rnbdctl: server path disconnect s1 ip:192.0.2.5: names several paths; give the path's full name");
    EXPECT_EQ(tree.kernel.writes(), Writes{});
    r = tree.kernel.run({"server", "path", "disconnect", "s1", "ip:192.0.2.5@ip:198.51.100.1"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree.kernel.writes(), (Writes{{second + "disconnect", "1"}}));
}

// --- not root: the caller may not write the sysfs file (issue 27, item 2) -----------------------

// The built rnbdctl run as an unprivileged user against the tree: as
// nobody when the tests run as root, else as the caller. The tree's files
// are made read-only for everyone but root, as sysfs attributes are, so the
// open is refused by the file's permissions, not by the fake's hook.
RunResult run_unprivileged(const FakeKernel& kernel, const Strings& args)
{
    const std::string root = kernel.root();
    const std::string program = root + "/rnbdctl";
    const std::string prepare = "cp build/rnbdctl/rnbdctl '" + program + "' && chmod -R a+rX '" + root +
                                "' && find '" + root + "' -type f ! -name rnbdctl -exec chmod a-w {} +";
    RunResult result;
    if (system(prepare.c_str()) != 0) {
        result.err = "cannot prepare the tree: " + prepare;
        return result;
    }
    const std::string out = root + "/unprivileged.out";
    const std::string err = root + "/unprivileged.err";
    const pid_t child = fork();
    if (child == 0) {
        const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out_fd < 0 || err_fd < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
            _exit(125);
        const uid_t nobody = 65534;
        if (geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(nobody) != 0 || setuid(nobody) != 0))
            _exit(126);
        setenv("RNBDCTL_SYSFS_ROOT", root.c_str(), 1);
        std::vector<char*> argv = {const_cast<char*>(program.c_str())};
        for (const std::string& arg : args)
            argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        execv(program.c_str(), argv.data());
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = kernel.read("unprivileged.out");
    result.err = kernel.read("unprivileged.err");
    return result;
}

TEST(RnbdctlErrors, NotRootIsToldToRunAsRootRatherThanThatTheServerRefuses)
{
    Tree tree;
    const std::string root = tree.kernel.root();
    const std::string as_root = ": Permission denied (EACCES): cannot write ";
    RunResult r = run_unprivileged(tree.kernel, {"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: map s1 /dev/ram1" + as_root + root +
                         "/kernel/rnbd_client/map_device: rnbdctl must run as root\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(tree.kernel.read("kernel/rnbd_client/map_device"), "Usage: ...\n");
    r = run_unprivileged(tree.kernel, {"unmap", "rnbd0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: unmap rnbd0" + as_root + root +
                         "/block/rnbd0/rnbd_client/unmap_device: rnbdctl must run as root\n");
    r = run_unprivileged(tree.kernel, {"session", "set", "s1", "--mpath-policy", "rr"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: session set s1 mpath_policy" + as_root + root +
                         "/class/rtrs-client/s1/mpath_policy: rnbdctl must run as root\n");
    // Reading needs no privilege.
    r = run_unprivileged(tree.kernel, {"list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("/dev/rnbd0"), std::string::npos) << r.out;
    // The kernel's own EACCES (the open succeeded: the server said no)
    // keeps its reason.
    tree.kernel.fail("kernel/rnbd_client/map_device", EACCES);
    r = tree.kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram1"});
    EXPECT_EQ(r.code, kExitFailed);
    if (geteuid() == 0) {  // else the caller may not write the file either
        EXPECT_EQ(r.err, "rnbdctl: map s1 /dev/ram1: Permission denied (EACCES): the server refuses access to the "
                         "device\n");
    }
}

// The server's writes as well: exports/add (server export add, server
// restore), exports/remove (server export remove, in JSON too) and a server
// session's paths (server session disconnect).
TEST(RnbdctlErrors, NotRootIsToldToRunAsRootForTheServersWritesToo)
{
    Tree tree;
    FakeKernel& kernel = tree.kernel;
    ASSERT_EQ(kernel.define_export("name=vol0 path=/dev/ram0 allow=any"), 0);
    kernel.file("exports", "name=vol1 path=/dev/ram1 allow=any\n");
    const std::string root = kernel.root();
    const std::string as_root = ": Permission denied (EACCES): cannot write ";
    const std::string exports = root + "/class/rnbd-server/ctl/exports/";
    RunResult r =
        run_unprivileged(kernel, {"server", "export", "add", "vol1", "--path", "/dev/ram1", "--allow", "any"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server export add vol1" + as_root + exports + "add: rnbdctl must run as root\n");
    EXPECT_EQ(r.out, "");
    r = run_unprivileged(kernel, {"server", "restore", "--file", root + "/exports"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server restore vol1" + as_root + exports + "add: rnbdctl must run as root\n");
    r = run_unprivileged(kernel, {"server", "export", "remove", "vol0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server export remove vol0" + as_root + exports + "remove: rnbdctl must run as root\n");
    r = run_unprivileged(kernel, {"-o", "json", "server", "export", "remove", "--all"});
    EXPECT_EQ(r.code, kExitFailed);
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << "\n" << r.out;
    EXPECT_EQ(doc.text("failed.0.error"),
              "Permission denied (EACCES): cannot write " + exports + "remove: rnbdctl must run as root");
    const std::string path = "ip:192.0.2.5@ip:192.0.2.1";
    r = run_unprivileged(kernel, {"server", "session", "disconnect", "s1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server session disconnect s1 " + path + as_root + root + "/class/rtrs-server/s1/paths/" +
                         path + "/disconnect: rnbdctl must run as root\n");
    EXPECT_FALSE(kernel.exists("class/rnbd-server/ctl/exports/vol1"));
    EXPECT_TRUE(kernel.exists("class/rnbd-server/ctl/exports/vol0/definition"));
}

// --- successes the other files leave out ------------------------------------------------------

TEST(RnbdctlErrors, VersionHelpAndTheOutputEqualsForm)
{
    Tree tree;
    RunResult r = tree.kernel.run({"--version"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find(" JSON version 1\n"), std::string::npos) << r.out;  // RnbdctlOptions has the whole line
    r = tree.kernel.run({"list", "-h"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind("Usage: rnbdctl", 0), 0u);
    r = tree.kernel.run({"help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind("Usage: rnbdctl", 0), 0u);
    r = tree.kernel.run({"--output=json", "list"});
    EXPECT_EQ(r.code, 0);
    JsonValue doc;
    std::string error;
    EXPECT_TRUE(parse_json(r.out, doc, error)) << error;
    EXPECT_EQ(doc.text("devices.0.name"), "rnbd0");
    r = tree.kernel.run({"--sysfs-root=" + tree.kernel.root(), "show", "rnbd0"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

TEST(RnbdctlErrors, SessionListShowAndPathListOfAllSessions)
{
    Tree tree;
    tree.kernel.map("sessname=s2 path=ip:203.0.113.1 device_path=/dev/ram1");
    RunResult r = tree.kernel.run({"session", "list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("s1 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("s2 "), std::string::npos) << r.out;
    r = tree.kernel.run({"session", "show", "s2"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("mpath_policy:           min-inflight"), std::string::npos) << r.out;
    r = tree.kernel.run({"-o", "json", "path", "list"});
    EXPECT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error;
    EXPECT_EQ(doc.differences({
                  {"paths", "<array of 3>"},
                  {"paths.0.session", "s1"},
                  {"paths.2.session", "s2"},
                  {"paths.2.path.dst_addr", "ip:203.0.113.1"},
              }),
              Strings{});
    r = tree.kernel.run({"path", "list"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("ip:203.0.113.1"), std::string::npos) << r.out;
    EXPECT_EQ(tree.kernel.writes(), Writes{});
}

TEST(RnbdctlErrors, UnmapJsonOfOneDevice)
{
    Tree tree;
    RunResult r = tree.kernel.run({"-o", "json", "unmap", "/dev/rnbd0"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "{\n  \"version\": 1,\n  \"unmapped\": [\n    \"rnbd0\"\n  ],\n  \"failed\": []\n}\n");
    EXPECT_EQ(tree.kernel.writes(), (Writes{{"block/rnbd0/rnbd_client/unmap_device", "normal"}}));
    tree.kernel.map("sessname=s1 device_path=/dev/ram1");  // rnbd1
    tree.kernel.set_open("rnbd1", true);
    r = tree.kernel.run({"-o", "json", "unmap", "rnbd1"});
    EXPECT_EQ(r.code, kExitFailed);
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    EXPECT_EQ(doc.differences({
                  {"unmapped", "<array of 0>"},
                  {"failed.0.device", "rnbd1"},
                  {"failed.0.errno", "EBUSY"},
                  {"failed.0.error",
                   "Device or resource busy (EBUSY): device is open (use --force to fail its IO and unmap anyway)"},
              }),
              Strings{});
    EXPECT_TRUE(tree.kernel.exists("block/rnbd1"));
}

}  // namespace
}  // namespace rnbdctl::testing
