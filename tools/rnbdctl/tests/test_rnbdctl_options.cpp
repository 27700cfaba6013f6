// rnbdctl's command line: a global option is one before the command, or in
// an option position after it, never as the value of the command's own
// option; "--" ends the options; each command has its own --help; --version;
// the one list of flags (args.hpp).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tools/rnbdctl/args.hpp"
#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

const char kHelpPrefix[] = "Usage: rnbdctl [-o table|json] [--bytes] [--sysfs-root DIR] ";

// The user's report: `--device-path help` printed the usage and mapped
// nothing. Every word a global option or help could be is mapped as the
// value it is.
TEST(RnbdctlOptions, AValueIsNeverAnOption)
{
    for (const char* value : {"help", "-h", "--help", "-o", "--output", "--output=json", "--sysfs-root", "--version",
                              "--force", "--"}) {
        FakeKernel kernel;
        kernel.load_client();
        RunResult r = kernel.run({"map", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path", value});
        EXPECT_EQ(r.code, 0) << value << ": " << r.err;
        EXPECT_EQ(r.out, "/dev/rnbd0\n") << value;
        EXPECT_EQ(kernel.writes(), (Writes{{"kernel/rnbd_client/map_device",
                                            std::string("sessname=s1 path=ip:192.0.2.1 device_path=") + value}}));
    }
    // The value first, then -o in an option position: both as meant.
    FakeKernel kernel;
    kernel.load_client();
    RunResult r = kernel.run(
        {"map", "--session", "--help", "--path", "ip:192.0.2.1", "--device-path", "-o", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    EXPECT_EQ(doc.text("device.session"), "--help");
    EXPECT_EQ(doc.text("device.device_path"), "-o");
}

// After the command, -o/--output/--sysfs-root/-h/--help in an option
// position are still the global ones; a flag takes no value, so the word
// after it is in an option position.
TEST(RnbdctlOptions, GlobalOptionsAfterTheCommand)
{
    FakeKernel kernel;
    kernel.load_client();
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1");  // rnbd1
    JsonValue doc;
    std::string error;
    RunResult r = kernel.run({"list", "-o", "json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(parse_json(r.out, doc, error)) << error;
    r = kernel.run({"list", "devices", "--output=json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(parse_json(r.out, doc, error)) << error;
    r = kernel.run({"unmap", "--force", "-o", "json", "rnbd0"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    EXPECT_EQ(doc.text("unmapped.0"), "rnbd0");
    FakeKernel other;
    other.load_client();  // loaded, nothing mapped
    r = kernel.run({"list", "--sysfs-root", other.root()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("rnbd1"), std::string::npos) << r.out;
}

// "--" ends the options, global ones included; before the command it only
// ends the global options.
TEST(RnbdctlOptions, DoubleDashEndsTheOptions)
{
    FakeKernel kernel;
    kernel.load_client();
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"-o", "json", "--", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    EXPECT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    r = kernel.run({"unmap", "--", "--help"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: unmap --help: no such rnbd device\n");
    r = kernel.run({"list", "--", "-o", "json"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: list: list [devices|sessions]\nTry 'rnbdctl --help'.\n");
    EXPECT_EQ(kernel.writes(), Writes{});
}

// `rnbdctl COMMAND --help`: the command's lines of the usage, nothing run.
TEST(RnbdctlOptions, EachCommandHasItsOwnHelp)
{
    FakeKernel kernel;
    kernel.load_client();
    for (const char* command :
         {"map", "unmap", "resize", "remap", "list", "show", "session", "path", "server", "save", "restore", "stats"})
        for (const char* help : {"--help", "-h"}) {
            RunResult r = kernel.run({command, help});
            EXPECT_EQ(r.code, 0) << command << " " << help << ": " << r.err;
            EXPECT_EQ(r.err, "");
            EXPECT_EQ(r.out.rfind(kHelpPrefix + std::string(command) + " ", 0), 0u) << r.out;
            // Its own lines only, not the whole usage.
            EXPECT_EQ(r.out.find("Exit codes"), std::string::npos) << r.out;
        }
    const std::string prefix = kHelpPrefix;
    const std::string more(prefix.size() - 2, ' ');  // continuation lines keep their place
    RunResult r = kernel.run({"unmap", "--help"});
    EXPECT_EQ(r.out, prefix + "unmap [--force] [--dry-run] DEVICE | --all\n" + more + std::string(35, ' ') +
                         "unmap (--force fails its IO if it is open)\n");
    r = kernel.run({"session", "set", "s1", "--help"});
    EXPECT_EQ(r.out, prefix + "session list | show S | set S [--mpath-policy P] [--max-reconnect-attempts N]\n" +
                         more + std::string(33, ' ') + "[--io-hold-timeout-ms MS]\n");
    r = kernel.run({"-o", "json", "server", "-h"});
    const std::string again = "       rnbdctl [-o table|json] [--bytes] [--sysfs-root DIR] ";
    const std::string col(35, ' ');  // the descriptions' column
    EXPECT_EQ(r.out, prefix + "server list [devices|sessions]   exported devices, or sessions with their paths\n" +
                         again + "server close EXPORT SESSION      force-close a session's mapping of an export\n" +
                         again + "server path disconnect S PATH    close a server-side path\n" + again +
                         "server export add NAME --path P --allow RULE [--allow RULE ...] [--read-only]\n" + more +
                         "      [--io-modes blockio|fileio|blockio,fileio] [--session S] [--dry-run]\n" + more + col +
                         "define an export (RULE: any, ip:ADDR[/BITS], gid:GID[/BITS])\n" + again +
                         "server export remove [--dry-run] NAME | --all\n" + more + col +
                         "remove an export (closes its mappings)\n" + again +
                         "server export list | show NAME   the exports, with the sessions mapping them\n" + again +
                         "server session disconnect S      close every path of a server session\n" + again +
                         "server save [--file F] [--force] write the exports' definitions (default /etc/rnbd/exports),\n" +
                         more + col + "keeping the old file as F~; --force empties it when none is defined\n" + again +
                         "server restore [--file F] [--check | --dry-run] [--replace]\n" + more + col +
                         "define the exports the file lists (--check: only check it;\n" + more + col +
                         "--replace: redefine those defined differently; --dry-run,\n" + more + col +
                         "as for export add/remove: print the writes, make none)\n");
    r = kernel.run({"save", "--help"});
    EXPECT_EQ(r.out.rfind(prefix + "save [--file F] [--force] ", 0), 0u) << r.out;
    // After an option's value, --help is in an option position again.
    r = kernel.run({"map", "--session", "s1", "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out.rfind(prefix + "map --session S ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\n" + more + "      [--io-mode blockio|fileio]"), std::string::npos) << r.out;
    EXPECT_EQ(kernel.writes(), Writes{});
    // The whole usage, as before: --help or help before any command, or no command.
    for (const Strings& args : {Strings{"--help"}, Strings{"help"}, Strings{"-h", "map"}, Strings{"help", "map"}}) {
        r = kernel.run(args);
        EXPECT_EQ(r.code, 0);
        EXPECT_EQ(r.out, kUsage) << args[0];
    }
    r = kernel.run({});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, kUsage);
}

std::string dkms_version()
{
    std::ifstream in("dkms.conf");  // the tests run at the top of the tree
    std::string line;
    const std::string key = "PACKAGE_VERSION=\"";
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0 && line.size() > key.size() && line.back() == '"')
            return line.substr(key.size(), line.size() - key.size() - 1);
    return "";
}

// The program's version is the project's (dkms.conf's PACKAGE_VERSION, the
// modules' MODULE_VERSION), then the JSON version.
TEST(RnbdctlOptions, VersionNamesTheProgramAndTheJsonVersion)
{
    const std::string version = dkms_version();
    ASSERT_NE(version, "");
    FakeKernel kernel;
    RunResult r = kernel.run({"--version"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "rnbdctl " + version + " (RNBD/RTRS in C++), JSON version 1\n");
    r = kernel.run({"--sysfs-root", kernel.root(), "--version", "list"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.out, "rnbdctl " + version + " (RNBD/RTRS in C++), JSON version 1\n");
}

// The flags are listed once; a command declaring another option without a
// value (or a listed flag with one) is a programming error, refused.
TEST(RnbdctlOptions, FlagsAreListedOnce)
{
    EXPECT_TRUE(is_flag_option("force"));
    EXPECT_TRUE(is_flag_option("all"));
    for (const char* name : {"file", "session", "device-path", "output", "help", "--force", ""})
        EXPECT_FALSE(is_flag_option(name)) << name;
    Arguments parsed;
    std::string error;
    EXPECT_TRUE(parse_arguments({"--force", "--file", "x", "y"}, {{"force", false, false}, {"file", true, false}},
                                parsed, error))
        << error;
    EXPECT_EQ(parsed.positionals, Strings{"y"});
    EXPECT_FALSE(parse_arguments({}, {{"verbose", false, false}}, parsed, error));
    EXPECT_EQ(error, "internal error: --verbose is declared without a value, but is_flag_option (args.cpp) does not "
                     "list it");
    EXPECT_FALSE(parse_arguments({"x"}, {{"all", true, false}}, parsed, error));
    EXPECT_EQ(error, "internal error: --all is declared with a value, but is_flag_option (args.cpp) lists it as a "
                     "flag");
}

}  // namespace
}  // namespace rnbdctl::testing
