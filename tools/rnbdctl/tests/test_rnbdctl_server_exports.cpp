// rnbdctl's server exports (server export add|remove|list|show), server
// session disconnect and server save/restore of the exports file, against
// the fake sysfs tree, whose exports/add checks a line with the module's
// own parser and creates the export's directory. Each error path asserts
// its message, exit code and that nothing was written; the named cases
// follow test_rnbdctl_errors.cpp (tools/rnbdctl/tests/COVERAGE.md).
#include <errno.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/exports.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

const std::string kAdd = "class/rnbd-server/ctl/exports/add";
const std::string kRemove = "class/rnbd-server/ctl/exports/remove";
const std::string kExports = "class/rnbd-server/ctl/exports/";

JsonValue json_of(const RunResult& result)
{
    JsonValue value;
    std::string error;
    EXPECT_TRUE(parse_json(result.out, value, error)) << error << "\n" << result.out;
    return value;
}

std::string read_text(const std::string& file)
{
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// rnbd-server with two exports: vol0 (mapped by s1 and s2) and db/ro.
class Server {
public:
    Server()
    {
        kernel.load_server();
        EXPECT_EQ(kernel.define_export("name=vol0 path=/dev/ram0 allow=ip:192.0.2.0/24 io_modes=blockio"), 0);
        EXPECT_EQ(kernel.define_export("name=db/ro path=/dev/ram1 allow=ip:198.51.100.7 allow=ip:2001:db8:1::/48 "
                                       "access=ro session=reader"),
                  0);
        kernel.add_export("ram0", "s1", "vol0", "ip:192.0.2.5");
        kernel.add_export("ram0", "s2", "vol0", "ip:192.0.2.6", "ro");
        kernel.add_export("ram2", "s3", "/dev/ram2", "ip:192.0.2.7");  // from before the first export
        kernel.mkdir("etc/rnbd");
        file = kernel.root() + "/etc/rnbd/exports";
        kernel.clear_writes();
    }
    void write_file(const std::string& text) const { std::ofstream(file) << text; }
    std::string read_file() const { return read_text(file); }
    FakeKernel kernel;
    std::string file;
};

const char kVol0[] = "name=vol0 path=/dev/ram0 allow=ip:192.0.2.0/24 access=rw io_modes=blockio";
const char kDbRo[] =
    "name=db/ro path=/dev/ram1 allow=ip:198.51.100.7 allow=ip:2001:db8:1::/48 access=ro io_modes=blockio,fileio "
    "session=reader";

// --- export add ---------------------------------------------------------------------------------

TEST(RnbdctlExports, AddWritesTheCanonicalLineAndTheExportAppears)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    RunResult r = kernel.run({"server", "export", "add", "web/img", "--path", "/dev/ram3", "--allow",
                              "ip:2001:db8::/32", "--allow", "any", "--read-only", "--io-modes", "fileio,blockio",
                              "--session", "web1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
    const std::string line =
        "name=web/img path=/dev/ram3 allow=ip:2001:db8::/32 allow=any access=ro io_modes=blockio,fileio session=web1";
    EXPECT_EQ(kernel.writes(), (Writes{{kAdd, line}}));
    EXPECT_EQ(kernel.read(kExports + "web!img/definition"), line + "\n");
    // The defaults: rw, both io modes, any session.
    kernel.clear_writes();
    r = kernel.run({"-o", "json", "server", "export", "add", "plain", "--path", "/dev/ram4", "--allow", "any"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes(), (Writes{{kAdd, "name=plain path=/dev/ram4 allow=any access=rw io_modes=blockio,fileio"}}));
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "export"}));
    EXPECT_EQ(doc.differences({
                  {"version", "1"},
                  {"export.name", "plain"},
                  {"export.access_mode", "rw"},
                  {"export.session", "null"},
                  {"export.mappings", "<array of 0>"},
              }),
              Strings{});
}

TEST(RnbdctlExports, ListAndShowCountTheSessionsMappingAnExport)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    RunResult r = kernel.run({"server", "export", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "NAME   PATH       ACCESS  IO_MODES        ALLOW                               SESSION  MAPPINGS\n"
              "db/ro  /dev/ram1  ro      blockio,fileio  ip:198.51.100.7,ip:2001:db8:1::/48  reader   0\n"
              "vol0   /dev/ram0  rw      blockio         ip:192.0.2.0/24                     -        2\n");
    r = kernel.run({"-o", "json", "server", "export", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "exports"}));
    EXPECT_EQ(doc.at("exports.0")->keys(), (Strings{"name", "definition", "path", "access_mode", "io_modes", "allow",
                                                    "session", "mappings"}));
    EXPECT_EQ(doc.differences({
                  {"exports", "<array of 2>"},
                  {"exports.0.name", "db/ro"},
                  {"exports.0.definition", kDbRo},
                  {"exports.0.allow.1", "ip:2001:db8:1::/48"},
                  {"exports.0.session", "reader"},
                  {"exports.1.name", "vol0"},
                  {"exports.1.session", "null"},
                  {"exports.1.mappings", "<array of 2>"},
                  {"exports.1.mappings.1.session", "s2"},
                  {"exports.1.mappings.1.device", "ram0"},
                  {"exports.1.mappings.1.access_mode", "ro"},
              }),
              Strings{});
    r = kernel.run({"server", "export", "show", "vol0"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("export:      vol0\n") + "definition:  " + kVol0 +
                         "\n"
                         "path:        /dev/ram0\n"
                         "access_mode: rw\n"
                         "io_modes:    blockio\n"
                         "allow:       ip:192.0.2.0/24\n"
                         "session:     any\n"
                         "mappings:    2\n"
                         "SESSION  DEVICE  ACCESS\n"
                         "s1       ram0    rw\n"
                         "s2       ram0    ro\n");
    // By its directory name too ('/' as '!').
    r = kernel.run({"-o", "json", "server", "export", "show", "db!ro"});
    ASSERT_EQ(r.code, 0) << r.err;
    doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "export"}));
    EXPECT_EQ(doc.differences({{"export.name", "db/ro"}, {"export.mappings", "<array of 0>"}}), Strings{});
    EXPECT_EQ(kernel.writes(), Writes{});
    // None defined: an empty list.
    FakeKernel empty;
    empty.load_server();
    r = empty.run({"-o", "json", "server", "export", "list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "{\n  \"version\": 1,\n  \"exports\": []\n}\n");
}

// --- export remove --------------------------------------------------------------------------------

TEST(RnbdctlExports, RemoveClosesTheMappingsAndAllRemovesEvery)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    RunResult r = kernel.run({"server", "export", "remove", "vol0"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(kernel.writes(), (Writes{{kRemove, "vol0"}}));
    EXPECT_FALSE(kernel.exists(kExports + "vol0"));
    EXPECT_FALSE(kernel.exists("class/rnbd-server/ctl/devices/ram0"));  // both mappings closed
    EXPECT_TRUE(kernel.exists("class/rnbd-server/ctl/devices/ram2"));   // not through an export
    kernel.clear_writes();
    ASSERT_EQ(kernel.define_export("name=vol1 path=/dev/ram0 allow=any"), 0);
    r = kernel.run({"-o", "json", "server", "export", "remove", "--all"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "{\n  \"version\": 1,\n  \"removed\": [\n    \"db/ro\",\n    \"vol1\"\n  ],\n  \"failed\": []\n}\n");
    EXPECT_EQ(kernel.writes(), (Writes{{kRemove, "db/ro"}, {kRemove, "vol1"}}));
    EXPECT_EQ(kernel.run({"server", "export", "list"}).out, "NAME  PATH  ACCESS  IO_MODES  ALLOW  SESSION  MAPPINGS\n");
    // Nothing left: --all has nothing to do.
    kernel.clear_writes();
    EXPECT_EQ(kernel.run({"server", "export", "remove", "--all"}).code, 0);
    EXPECT_EQ(kernel.writes(), Writes{});
}

TEST(RnbdctlExports, RemoveAllGoesOnAfterAFailureAndSaysSo)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    kernel.fail(kRemove, ENODEV);
    RunResult r = kernel.run({"-o", "json", "server", "export", "remove", "--all"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(kernel.writes(), (Writes{{kRemove, "db/ro"}, {kRemove, "vol0"}}));
    EXPECT_EQ(r.err,
              "rnbdctl: server export remove db/ro: No such device (ENODEV)\n"
              "rnbdctl: server export remove vol0: No such device (ENODEV)\n");
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"removed", "<array of 0>"},
                  {"failed.1.export", "vol0"},
                  {"failed.1.errno", "ENODEV"},
              }),
              Strings{});
}

// --- server session disconnect ----------------------------------------------------------------------

TEST(RnbdctlExports, SessionDisconnectClosesEveryPath)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    const std::string second = "class/rtrs-server/s1/paths/ip:192.0.2.9@ip:198.51.100.1/";
    kernel.file(second + "disconnect", "Usage: echo 1 > disconnect\n");
    RunResult r = kernel.run({"server", "session", "disconnect", "s1"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(kernel.writes(), (Writes{{"class/rtrs-server/s1/paths/ip:192.0.2.5@ip:192.0.2.1/disconnect", "1"},
                                       {second + "disconnect", "1"}}));
    // A refused path is reported, the others are still disconnected.
    kernel.clear_writes();
    kernel.fail("class/rtrs-server/s1/paths/ip:192.0.2.5@ip:192.0.2.1/disconnect", EINVAL);
    r = kernel.run({"-o", "json", "server", "session", "disconnect", "s1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server session disconnect s1 ip:192.0.2.5@ip:192.0.2.1: Invalid argument (EINVAL)\n");
    EXPECT_EQ(kernel.writes().size(), 2u);
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "session", "disconnected", "failed"}));
    EXPECT_EQ(doc.differences({
                  {"session", "s1"},
                  {"disconnected.0", "ip:192.0.2.9@ip:198.51.100.1"},
                  {"failed.0.path", "ip:192.0.2.5@ip:192.0.2.1"},
                  {"failed.0.errno", "EINVAL"},
              }),
              Strings{});
}

// --- server save ---------------------------------------------------------------------------------

TEST(RnbdctlExports, SaveWritesTheCanonicalDefinitionsAndKeepsTheOldFile)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    RunResult r = kernel.run({"server", "save", "--file", server.file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "2 exports saved to " + server.file + "\n");
    const std::string saved = server.read_file();
    EXPECT_EQ(saved.rfind("# rnbd-server exports: ", 0), 0u) << saved;
    EXPECT_NE(saved.find("\n" + std::string(kDbRo) + "\n" + kVol0 + "\n"), std::string::npos) << saved;
    EXPECT_EQ(saved.substr(saved.size() - std::string(kVol0).size() - 1), std::string(kVol0) + "\n");
    EXPECT_FALSE(kernel.exists("etc/rnbd/exports~"));
    EXPECT_EQ(kernel.writes(), Writes{});  // sysfs is only read

    ASSERT_EQ(kernel.define_export("name=new path=/dev/ram5 allow=any"), 0);
    r = kernel.run({"-o", "json", "server", "save", "--file", server.file});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "file", "backup", "exports"}));
    EXPECT_EQ(doc.differences({
                  {"file", server.file},
                  {"backup", server.file + "~"},
                  {"exports", "<array of 3>"},
                  {"exports.1.name", "new"},
                  {"exports.1.definition", "name=new path=/dev/ram5 allow=any access=rw io_modes=blockio,fileio"},
              }),
              Strings{});
    EXPECT_EQ(kernel.read("etc/rnbd/exports~"), saved);

    // The default file, and its directory made on first use.
    r = kernel.run({"server", "save"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "3 exports saved to " + kernel.root() + "/etc-rnbd/exports\n");
    EXPECT_TRUE(kernel.exists("etc-rnbd/exports"));
}

TEST(RnbdctlExports, SaveRefusesToEmptyAFileThatListsExports)
{
    FakeKernel kernel;
    kernel.load_server();
    kernel.mkdir("etc/rnbd");
    const std::string file = kernel.root() + "/etc/rnbd/exports";
    const std::string old = std::string("# mine\n") + kVol0 + "\n";
    std::ofstream(file) << old;
    RunResult r = kernel.run({"server", "save", "--file", file});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: server save " + file +
                         ": no export is defined, and the file lists 1 export; it is left as it is (--force replaces "
                         "it)\nTry 'rnbdctl --help'.\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(read_text(file), old);
    EXPECT_FALSE(kernel.exists("etc/rnbd/exports~"));
    // A line that does not parse counts as an export too.
    std::ofstream(file) << "name=x path=relative allow=any\n";
    EXPECT_EQ(kernel.run({"server", "save", "--file", file}).code, kExitUsage);
    std::ofstream(file) << old;
    r = kernel.run({"server", "save", "--force", "--file", file});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "0 exports saved to " + file + " (the previous file is " + file + "~)\n");
    EXPECT_EQ(kernel.read("etc/rnbd/exports~"), old);
    EXPECT_EQ(count_exports_lines(read_text(file)), 0u);
    // Comments only: nothing to lose.
    EXPECT_EQ(kernel.run({"server", "save", "--file", file}).code, 0);
    EXPECT_EQ(kernel.writes(), Writes{});
}

TEST(RnbdctlExports, SaveWhereItCannotWrite)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    const std::string directory = kernel.root() + "/nonexistent";
    RunResult r = kernel.run({"server", "save", "--file", directory + "/exports"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: server save " + directory +
                         "/exports: No such file or directory (ENOENT): the directory " + directory +
                         " does not exist\n");
    EXPECT_FALSE(kernel.exists("nonexistent"));
    // The backup cannot be written: the file is left as it is.
    server.write_file("# old\n");
    kernel.mkdir("etc/rnbd/exports~/occupied");
    r = kernel.run({"server", "save", "--file", server.file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server save " + server.file + ": cannot keep the previous file as " + server.file +
                         "~: Is a directory (EISDIR); the file is left as it is\n");
    EXPECT_EQ(server.read_file(), "# old\n");
    EXPECT_EQ(kernel.writes(), Writes{});
}

// --- server restore ------------------------------------------------------------------------------

TEST(RnbdctlExports, RestoreAddsWhatIsMissingAndLeavesWhatIsThere)
{
    FakeKernel kernel;
    kernel.load_server();
    kernel.mkdir("etc/rnbd");
    const std::string file = kernel.root() + "/etc/rnbd/exports";
    // Not canonical: keys in another order, defaults left out, comments.
    std::ofstream(file) << "# exports\n\n  allow=ip:192.0.2.0/24 path=/dev/ram0 name=vol0 io_modes=blockio  # ours\n"
                        << kDbRo << "\n";
    RunResult r = kernel.run({"server", "restore", "--file", file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "NAME   RESULT\nvol0   added\ndb/ro  added\n");
    EXPECT_EQ(kernel.writes(), (Writes{{kAdd, kVol0}, {kAdd, kDbRo}}));
    EXPECT_EQ(kernel.read(kExports + "vol0/definition"), std::string(kVol0) + "\n");
    // Again: all present, nothing written.
    kernel.clear_writes();
    r = kernel.run({"-o", "json", "server", "restore", "--file", file});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "file", "exports"}));
    EXPECT_EQ(doc.at("exports.0")->keys(), (Strings{"name", "line", "definition", "result", "errno", "error"}));
    EXPECT_EQ(doc.differences({
                  {"file", file},
                  {"exports.0.name", "vol0"},
                  {"exports.0.line", "3"},
                  {"exports.0.definition", kVol0},
                  {"exports.0.result", "present"},
                  {"exports.1.result", "present"},
                  {"exports.1.errno", "null"},
                  {"exports.1.error", "null"},
              }),
              Strings{});
    EXPECT_EQ(kernel.writes(), Writes{});
}

TEST(RnbdctlExports, RestoreRefusesADifferentDefinitionUnlessReplace)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    const std::string vol0_ro = "name=vol0 path=/dev/ram0 allow=ip:192.0.2.0/24 access=ro io_modes=blockio";
    server.write_file(vol0_ro + "\nname=more path=/dev/ram6 allow=any\n" + kDbRo + "\n");
    RunResult r = kernel.run({"server", "restore", "--file", server.file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, std::string("rnbdctl: server restore vol0: defined differently (") + kVol0 +
                         "); left as it is (--replace removes it, closing its mappings, and adds the file's)\n");
    EXPECT_EQ(r.out, "NAME   RESULT\nvol0   refused\nmore   added\ndb/ro  present\n");
    EXPECT_EQ(kernel.writes(), (Writes{{kAdd, "name=more path=/dev/ram6 allow=any access=rw io_modes=blockio,fileio"}}));
    EXPECT_EQ(kernel.read(kExports + "vol0/definition"), std::string(kVol0) + "\n");
    EXPECT_TRUE(kernel.exists("class/rnbd-server/ctl/devices/ram0/sessions/s1"));

    kernel.clear_writes();
    r = kernel.run({"-o", "json", "server", "restore", "--replace", "--file", server.file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes(), (Writes{{kRemove, "vol0"}, {kAdd, vol0_ro}}));
    EXPECT_EQ(kernel.read(kExports + "vol0/definition"), vol0_ro + "\n");
    EXPECT_FALSE(kernel.exists("class/rnbd-server/ctl/devices/ram0"));  // the removal closed its mappings
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"exports.0.result", "replaced"},
                  {"exports.1.result", "present"},
                  {"exports.2.result", "present"},
              }),
              Strings{});
}

TEST(RnbdctlExports, RestoreReplaceThatFailsPutsThePreviousDefinitionBack)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    server.write_file("name=vol0 path=/dev/ram9 allow=any\n");
    kernel.refuse_backing("/dev/ram9", ENOTBLK);
    RunResult r = kernel.run({"-o", "json", "server", "restore", "--replace", "--file", server.file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err,
              "rnbdctl: server restore vol0: removed, but the file's definition was refused: Block device required "
              "(ENOTBLK): the server does not export this path (not a block device, or a file outside "
              "file_export_dir); the previous definition is back\n");
    EXPECT_EQ(kernel.writes(),
              (Writes{{kRemove, "vol0"}, {kAdd, "name=vol0 path=/dev/ram9 allow=any access=rw io_modes=blockio,fileio"},
                      {kAdd, kVol0}}));
    EXPECT_EQ(kernel.read(kExports + "vol0/definition"), std::string(kVol0) + "\n");
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({{"exports.0.result", "failed"}, {"exports.0.errno", "ENOTBLK"}}), Strings{});
}

TEST(RnbdctlExports, RestoreGoesOnAfterARefusedAdd)
{
    FakeKernel kernel;
    kernel.load_server();
    kernel.mkdir("etc/rnbd");
    const std::string file = kernel.root() + "/etc/rnbd/exports";
    std::ofstream(file) << "name=gone path=/dev/nothing allow=any\nname=rw path=/dev/sr0 allow=any\n" << kVol0 << "\n";
    kernel.refuse_backing("/dev/nothing", ENOENT);
    kernel.refuse_backing("/dev/sr0", EROFS);
    RunResult r = kernel.run({"server", "restore", "--file", file});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err,
              "rnbdctl: server restore gone: No such file or directory (ENOENT): the path leads nowhere on the server\n"
              "rnbdctl: server restore rw: Read-only file system (EROFS): the device is read-only: define the export "
              "read-only (--read-only, access=ro)\n");
    EXPECT_EQ(r.out, "NAME  RESULT\ngone  failed\nrw    failed\nvol0  added\n");
    EXPECT_EQ(kernel.writes().size(), 3u);
    EXPECT_TRUE(kernel.exists(kExports + "vol0"));
}

TEST(RnbdctlExports, RestoreChecksTheWholeFileFirst)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    // A good line before the bad one is not applied either.
    server.write_file("name=fresh path=/dev/ram7 allow=any\n# comment\nname=bad path=/dev/ram8 allow=ip:192.0.2.1/24\n");
    for (const Strings& extra : {Strings{}, Strings{"--check"}, Strings{"--replace"}}) {
        Strings args = {"server", "restore", "--file", server.file};
        args.insert(args.end(), extra.begin(), extra.end());
        RunResult r = kernel.run(args);
        EXPECT_EQ(r.code, kExitUsage);
        EXPECT_EQ(r.err, "rnbdctl: server restore: " + server.file +
                             ":3: exports/add: allow: the address has bits set beyond its prefix length: "
                             "'ip:192.0.2.1/24'\nTry 'rnbdctl --help'.\n");
        EXPECT_EQ(r.out, "");
    }
    server.write_file(std::string(kVol0) + "\n\nname=vol0 path=/dev/ram8 allow=any\n");
    RunResult r = kernel.run({"server", "restore", "--file", server.file});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: server restore: " + server.file +
                         ":3: export 'vol0' is listed a second time (first on line 1)\nTry 'rnbdctl --help'.\n");
    server.write_file("name=add path=/dev/ram8 allow=any\n");
    r = kernel.run({"server", "restore", "--check", "--file", server.file});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: server restore: " + server.file +
                         ":1: exports/add: 'add' is the name of a file in exports/: choose another name\nTry 'rnbdctl "
                         "--help'.\n");
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_FALSE(kernel.exists(kExports + "fresh"));
}

TEST(RnbdctlExports, RestoreCheckChangesNothingAndNeedsNoModule)
{
    FakeKernel bare;  // nothing loaded
    bare.mkdir("etc");
    const std::string file = bare.root() + "/etc/exports";
    std::ofstream(file) << kVol0 << "\n" << kDbRo << "\n";
    RunResult r = bare.run({"server", "restore", "--check", "--file", file});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "NAME   RESULT\nvol0   valid\ndb/ro  valid\n");
    r = bare.run({"-o", "json", "server", "restore", "--check", "--file", file});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json_of(r).text("exports.1.result"), "valid");
    // Without --check it needs the module.
    r = bare.run({"server", "restore", "--file", file});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_EQ(r.err, "rnbdctl: server restore: rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/exports)\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(bare.writes(), Writes{});
}

TEST(RnbdctlExports, RestoreOfAMissingFile)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    // The default file missing: nothing was ever saved, nothing to do.
    RunResult r = kernel.run({"server", "restore"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(r.err, "rnbdctl: server restore: no " + kernel.root() + "/etc-rnbd/exports, nothing to restore\n");
    EXPECT_EQ(r.out, "");
    r = kernel.run({"server", "restore", "--file", server.file + ".missing"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: server restore " + server.file + ".missing: No such file or directory (ENOENT)\n");
    EXPECT_EQ(kernel.writes(), Writes{});
}

// save, remove --all, restore: the same exports again.
TEST(RnbdctlExports, SaveRemoveAllRestoreRoundTrip)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    ASSERT_EQ(kernel.run({"server", "save", "--file", server.file}).code, 0);
    const std::string before = kernel.run({"-o", "json", "server", "export", "list"}).out;
    ASSERT_EQ(kernel.run({"server", "export", "remove", "--all"}).code, 0);
    kernel.add_export("ram0", "s1", "vol0", "ip:192.0.2.5");
    kernel.add_export("ram0", "s2", "vol0", "ip:192.0.2.6", "ro");
    RunResult r = kernel.run({"server", "restore", "--file", server.file});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "NAME   RESULT\ndb/ro  added\nvol0   added\n");
    EXPECT_EQ(kernel.run({"-o", "json", "server", "export", "list"}).out, before);
}

// --- the error paths, one named case each --------------------------------------------------------

struct ErrorCase {
    std::string name;
    Strings args;
    std::string message;            // stderr's first line, exactly
    std::string failing_file = "";  // Refused: the write that fails ...
    int error = 0;                  // ... and its errno
};

std::string case_name(const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; }

void PrintTo(const ErrorCase& c, std::ostream* os)
{
    *os << "rnbdctl";
    for (const std::string& arg : c.args)
        *os << " " << arg;
}

Strings add_args(const Strings& extra)
{
    Strings args = {"server", "export", "add"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

std::vector<ErrorCase> usage_cases()
{
    const std::string add = "rnbdctl: server export add: ";
    return {
        {"server_export_no_subcommand", {"server", "export"}, "rnbdctl: server export: server export add|remove|list|show"},
        {"server_export_unknown_subcommand", {"server", "export", "frob"},
         "rnbdctl: server export: unknown command 'frob'; server export add|remove|list|show"},
        {"export_add_unknown_option", add_args({"v", "--frob"}), add + "unknown option --frob"},
        {"export_add_no_name", add_args({"--path", "/dev/ram0", "--allow", "any"}),
         add + "give the export's name: server export add NAME --path P --allow RULE [--allow RULE ...]"},
        {"export_add_two_names", add_args({"v", "w", "--path", "/dev/ram0", "--allow", "any"}),
         add + "give the export's name: server export add NAME --path P --allow RULE [--allow RULE ...]"},
        {"export_add_path_twice", add_args({"v", "--path", "/a", "--path", "/b", "--allow", "any"}),
         add + "--path given twice"},
        {"export_add_read_only_with_value", add_args({"v", "--read-only=yes"}), add + "--read-only takes no value"},
        {"export_add_no_allow", add_args({"v", "--path", "/dev/ram0"}), add + "exports/add: required key missing: 'allow'"},
        {"export_add_no_path", add_args({"v", "--allow", "any"}), add + "exports/add: required key missing: 'path'"},
        {"export_add_host_bits", add_args({"v", "--path", "/dev/ram0", "--allow", "ip:192.0.2.1/24"}),
         add + "exports/add: allow: the address has bits set beyond its prefix length: 'ip:192.0.2.1/24'"},
        {"export_add_bad_address", add_args({"v", "--path", "/dev/ram0", "--allow", "ip:192.0.2"}),
         add + "exports/add: allow must be 'any' or ip:<ipv4|ipv6>[/<bits>] or gid:<gid>[/<bits>]: 'ip:192.0.2'"},
        {"export_add_too_many_rules",
         add_args({"v", "--path", "/dev/ram0", "--allow", "any", "--allow", "any", "--allow", "any", "--allow", "any",
                   "--allow", "any", "--allow", "any", "--allow", "any", "--allow", "any", "--allow", "any", "--allow",
                   "any", "--allow", "any", "--allow", "any", "--allow", "any", "--allow", "any", "--allow", "any",
                   "--allow", "any", "--allow", "any"}),
         add + "exports/add: key given too many times: 'allow'"},
        {"export_add_relative_path", add_args({"v", "--path", "dev/ram0", "--allow", "any"}),
         add + "exports/add: path must be an absolute path below 1024 bytes without control characters or '.'/'..' "
               "components: 'dev/ram0'"},
        {"export_add_dot_dot_path", add_args({"v", "--path", "/dev/../dev/ram0", "--allow", "any"}),
         add + "exports/add: path must be an absolute path below 1024 bytes without control characters or '.'/'..' "
               "components: '/dev/../dev/ram0'"},
        {"export_add_bad_io_modes", add_args({"v", "--path", "/dev/ram0", "--allow", "any", "--io-modes", "both"}),
         add + "exports/add: io_modes must be blockio, fileio or blockio,fileio: 'both'"},
        {"export_add_bad_session", add_args({"v", "--path", "/dev/ram0", "--allow", "any", "--session", "a/b"}),
         add + "exports/add: session must be at most 254 bytes without '/' or control characters, and not '.' or "
               "'..': 'a/b'"},
        {"export_add_empty_session", add_args({"v", "--path", "/dev/ram0", "--allow", "any", "--session", ""}),
         add + "exports/add: empty value: 'session'"},
        {"export_add_bang_in_name", add_args({"a!b", "--path", "/dev/ram0", "--allow", "any"}),
         add + "exports/add: name must be 1..254 bytes without control characters or '!', and not '.' or '..': 'a!b'"},
        {"export_add_name_dot_dot", add_args({"..", "--path", "/dev/ram0", "--allow", "any"}),
         add + "exports/add: name must be 1..254 bytes without control characters or '!', and not '.' or '..': '..'"},
        {"export_add_name_of_a_control_file", add_args({"remove", "--path", "/dev/ram0", "--allow", "any"}),
         add + "exports/add: 'remove' is the name of a file in exports/: choose another name"},
        {"export_add_blank_in_a_value", add_args({"v", "--path", "/dev/ram0 allow=any", "--allow", "ip:192.0.2.9"}),
         add + "--path must not contain blanks or control characters"},
        {"export_add_blank_in_the_name", add_args({"v allow=any", "--path", "/dev/ram0", "--allow", "ip:192.0.2.9"}),
         add + "NAME must not contain blanks or control characters"},
        {"export_add_newline_in_a_rule", add_args({"v", "--path", "/dev/ram0", "--allow", "any\nname=w"}),
         add + "--allow must not contain blanks or control characters"},
        {"export_remove_unknown_option", {"server", "export", "remove", "--frob", "vol0"},
         "rnbdctl: server export remove: unknown option --frob"},
        {"export_remove_nothing", {"server", "export", "remove"}, "rnbdctl: server export remove: give one export, or --all"},
        {"export_remove_all_and_a_name", {"server", "export", "remove", "--all", "vol0"},
         "rnbdctl: server export remove: give one export, or --all"},
        {"export_list_argument", {"server", "export", "list", "vol0"}, "rnbdctl: server export list: takes no argument"},
        {"export_show_no_export", {"server", "export", "show"}, "rnbdctl: server export show: give one export"},
        {"export_show_unknown_option", {"server", "export", "show", "--frob", "vol0"},
         "rnbdctl: server export show: unknown option --frob"},
        {"server_session_no_subcommand", {"server", "session"}, "rnbdctl: server session: server session disconnect SESSION"},
        {"server_session_unknown_subcommand", {"server", "session", "close", "s1"},
         "rnbdctl: server session: unknown command 'close'; server session disconnect SESSION"},
        {"server_session_disconnect_no_session", {"server", "session", "disconnect"},
         "rnbdctl: server session disconnect: give one session"},
        {"server_session_disconnect_unknown_option", {"server", "session", "disconnect", "--frob", "s1"},
         "rnbdctl: server session disconnect: unknown option --frob"},
        {"server_save_unknown_option", {"server", "save", "--frob"}, "rnbdctl: server save: unknown option --frob"},
        {"server_save_argument", {"server", "save", "somewhere"}, "rnbdctl: server save: server save [--file FILE] [--force]"},
        {"server_save_file_without_value", {"server", "save", "--file"}, "rnbdctl: server save: --file needs a value"},
        {"server_restore_unknown_option", {"server", "restore", "--frob"}, "rnbdctl: server restore: unknown option --frob"},
        {"server_restore_argument", {"server", "restore", "somewhere"},
         "rnbdctl: server restore: server restore [--file FILE] [--check | --dry-run] [--replace]"},
        {"server_restore_check_and_replace", {"server", "restore", "--check", "--replace"},
         "rnbdctl: server restore: --check changes nothing; give it without --replace"},
        {"server_restore_check_with_value", {"server", "restore", "--check=yes"},
         "rnbdctl: server restore: --check takes no value"},
    };
}

class ExportUsage : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ExportUsage, ExitsTwoAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    Server server;
    RunResult r = server.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_EQ(r.err, c.message + "\nTry 'rnbdctl --help'.\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(server.kernel.writes(), Writes{});
    EXPECT_EQ(server.kernel.run({"server", "export", "list"}).out.find("\nv "), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(RnbdctlExportErrors, ExportUsage, ::testing::ValuesIn(usage_cases()), case_name);

std::vector<ErrorCase> not_found_cases()
{
    return {
        {"export_show_unknown", {"server", "export", "show", "vol9"}, "rnbdctl: server export show vol9: no such export"},
        {"export_show_control_file", {"server", "export", "show", "add"},
         "rnbdctl: server export show add: no such export"},
        {"export_show_outside", {"server", "export", "show", ".."}, "rnbdctl: server export show ..: no such export"},
        {"export_remove_unknown", {"server", "export", "remove", "vol9"},
         "rnbdctl: server export remove vol9: no such export"},
        {"server_session_disconnect_unknown", {"server", "session", "disconnect", "s9"},
         "rnbdctl: server session disconnect s9: no such session"},
        {"server_session_disconnect_outside", {"server", "session", "disconnect", "../rtrs-server"},
         "rnbdctl: server session disconnect ../rtrs-server: no such session"},
    };
}

class ExportNotFound : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ExportNotFound, ExitsThreeAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    Server server;
    RunResult r = server.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitNotFound) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(server.kernel.writes(), Writes{});
}

INSTANTIATE_TEST_SUITE_P(RnbdctlExportErrors, ExportNotFound, ::testing::ValuesIn(not_found_cases()), case_name);

std::vector<ErrorCase> not_loaded_cases()
{
    const std::string missing = "rnbd-server is not loaded (no /sys/class/rnbd-server/ctl/exports)";
    return {
        {"export_add", add_args({"v", "--path", "/dev/ram0", "--allow", "any"}),
         "rnbdctl: server export add v: " + missing},
        {"export_remove", {"server", "export", "remove", "vol0"}, "rnbdctl: server export remove vol0: " + missing},
        {"export_remove_all", {"server", "export", "remove", "--all"},
         "rnbdctl: server export remove --all: " + missing},
        {"export_list", {"server", "export", "list"}, "rnbdctl: server export list: " + missing},
        {"export_show", {"server", "export", "show", "vol0"}, "rnbdctl: server export show vol0: " + missing},
        {"server_session_disconnect", {"server", "session", "disconnect", "s1"},
         "rnbdctl: server session disconnect s1: rtrs-server is not loaded"},
        {"server_save", {"server", "save", "--file", "/nonexistent/exports"},
         "rnbdctl: server save: " + missing + "; nothing to save (the file is left as it is)"},
    };
}

class ExportNotLoaded : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ExportNotLoaded, ExitsFourAndWritesNothing)
{
    const ErrorCase& c = GetParam();
    FakeKernel bare;
    RunResult r = bare.run(c.args);
    EXPECT_EQ(r.code, kExitNotLoaded) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(bare.writes(), Writes{});
}

INSTANTIATE_TEST_SUITE_P(RnbdctlExportErrors, ExportNotLoaded, ::testing::ValuesIn(not_loaded_cases()), case_name);

// rnbd-server loaded without exports/ (Linux's module): said so, exit 4.
TEST(RnbdctlExports, ServerWithoutExportsIsNotLoadedForTheExportCommands)
{
    FakeKernel kernel;
    kernel.mkdir("class/rnbd-server/ctl/devices");
    RunResult r = kernel.run({"server", "export", "list"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_EQ(r.err,
              "rnbdctl: server export list: rnbd-server has no exports (no /sys/class/rnbd-server/ctl/exports: "
              "Linux's module, or an older one)\n");
    EXPECT_EQ(kernel.writes(), Writes{});
}

std::vector<ErrorCase> refused_cases()
{
    const Strings vol1 = add_args({"vol1", "--path", "/dev/ram1", "--allow", "any"});
    const std::string what = "rnbdctl: server export add vol1: ";
    return {
        {"export_add_invalid", vol1, what + "Invalid argument (EINVAL): the server refused the definition (see dmesg)",
         kAdd, EINVAL},
        {"export_add_exists", vol1, what + "File exists (EEXIST): an export of this name exists (remove it first)", kAdd,
         EEXIST},
        {"export_add_no_such_path", vol1,
         what + "No such file or directory (ENOENT): the path leads nowhere on the server", kAdd, ENOENT},
        {"export_add_not_exportable", vol1,
         what + "Block device required (ENOTBLK): the server does not export this path (not a block device, or a "
                "file outside file_export_dir)",
         kAdd, ENOTBLK},
        {"export_add_read_only_device", vol1,
         what + "Read-only file system (EROFS): the device is read-only: define the export read-only (--read-only, "
                "access=ro)",
         kAdd, EROFS},
        {"export_add_unloading", vol1, what + "No such device (ENODEV): rnbd-server is unloading", kAdd, ENODEV},
        {"export_remove_refused", {"server", "export", "remove", "vol0"},
         "rnbdctl: server export remove vol0: Device or resource busy (EBUSY)", kRemove, EBUSY},
        {"server_session_disconnect_refused", {"server", "session", "disconnect", "s1"},
         "rnbdctl: server session disconnect s1 ip:192.0.2.5@ip:192.0.2.1: Invalid argument (EINVAL)",
         "class/rtrs-server/s1/paths/ip:192.0.2.5@ip:192.0.2.1/disconnect", EINVAL},
    };
}

class ExportRefused : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ExportRefused, ExitsOneNamingTheErrno)
{
    const ErrorCase& c = GetParam();
    Server server;
    server.kernel.fail(c.failing_file, c.error);
    RunResult r = server.kernel.run(c.args);
    EXPECT_EQ(r.code, kExitFailed) << r.err;
    EXPECT_EQ(r.err, c.message + "\n");
    EXPECT_EQ(r.out, "");
    ASSERT_EQ(server.kernel.writes().size(), 1u);
    EXPECT_EQ(server.kernel.writes().back().first, c.failing_file);
}

INSTANTIATE_TEST_SUITE_P(RnbdctlExportErrors, ExportRefused, ::testing::ValuesIn(refused_cases()), case_name);

// The fake kernel's own answers (the module's parser, EEXIST, a backing
// refused) reach the user as the module's would.
TEST(RnbdctlExports, TheFakeKernelAnswersAsTheModule)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    RunResult r = kernel.run(add_args({"vol0", "--path", "/dev/ram0", "--allow", "any"}));
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err,
              "rnbdctl: server export add vol0: File exists (EEXIST): an export of this name exists (remove it first)\n");
    kernel.refuse_backing("/dev/ram1", EROFS);
    r = kernel.run(add_args({"vol1", "--path", "/dev/ram1", "--allow", "any"}));
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(kernel.define_export("name=x path=/dev/ram0"), EINVAL);
    EXPECT_EQ(kernel.define_export("name=remove path=/dev/ram0 allow=any"), EINVAL);
    EXPECT_FALSE(kernel.exists(kExports + "vol1"));
}

// The built program links the module's export parser (rnbdctl.mk).
TEST(RnbdctlExports, TheProgramChecksADefinitionWithTheModulesParser)
{
    FakeKernel kernel;
    kernel.load_server();
    const std::string out = kernel.root() + "/out.txt";
    const std::string command = "RNBDCTL_SYSFS_ROOT='" + kernel.root() +
                                "' build/rnbdctl/rnbdctl server export add v --path /dev/ram0 --allow ip:192.0.2.1/24 "
                                ">'" + out + "' 2>&1";
    int status = system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), kExitUsage);
    EXPECT_EQ(read_text(out),
              "rnbdctl: server export add: exports/add: allow: the address has bits set beyond its prefix length: "
              "'ip:192.0.2.1/24'\nTry 'rnbdctl --help'.\n");
}

// --- on main's issue 27 work: untrusted names, --dry-run ------------------------------------------

// An export's names and values come from sysfs, and a mapping's session is
// named by the client: tables, show and messages print them through
// printable() (\xNN), JSON stays valid UTF-8 (json-parse refuses anything
// else), as the other lists do (test_rnbdctl_untrusted_text.cpp).
TEST(RnbdctlExports, NamesFromSysfsAreShownEscapedAndJsonStaysValid)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    const std::string hostile = "evil\x1b[2J\n\xff";
    const std::string shown = "evil\\x1b[2J\\x0a\\xff";
    const std::string in_json = "evil\x1b[2J\n\xef\xbf\xbd";
    const std::string dir = kExports + hostile;
    kernel.file(dir + "/definition", "name=" + hostile + " path=/dev/" + hostile + " allow=any\n");
    kernel.file(dir + "/path", "/dev/" + hostile + "\n");
    kernel.file(dir + "/access_mode", "rw\n");
    kernel.file(dir + "/io_modes", "blockio\n");
    kernel.file(dir + "/allow", "any\n");
    kernel.file(dir + "/session", hostile + "\n");
    kernel.add_export("ram5", hostile, hostile, "ip:192.0.2.9");
    auto safe = [](const std::string& text) {
        return text.find('\x1b') == std::string::npos && text.find('\xff') == std::string::npos;
    };
    RunResult r = kernel.run({"server", "export", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(safe(r.out)) << r.out;
    EXPECT_NE(r.out.find(shown + "  /dev/" + shown + "  rw"), std::string::npos) << r.out;
    r = kernel.run({"server", "export", "show", hostile});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(safe(r.out)) << r.out;
    for (const std::string& line : Strings{"export:      " + shown + "\n", "path:        /dev/" + shown + "\n",
                                           "session:     " + shown + "\n", "mappings:    1\n"})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
    EXPECT_NE(r.out.find(shown + "  ram5"), std::string::npos) << r.out;  // the mapping's session
    r = kernel.run({"-o", "json", "server", "export", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.text("exports.1.name"), in_json) << r.out;
    EXPECT_EQ(doc.text("exports.1.session"), in_json);
    EXPECT_EQ(doc.text("exports.1.mappings.0.session"), in_json);
    r = kernel.run({"server", "export", "remove", "x\x1b]0;owned\x07"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: server export remove x\\x1b]0;owned\\x07: no such export\n");
    EXPECT_EQ(kernel.writes(), Writes{});
}

// --dry-run of export add and remove and of server restore, as map's,
// unmap's and restore's (test_rnbdctl_dry_run.cpp): every check of the
// real command with its exit code, then the writes printed instead of made.
TEST(RnbdctlExports, DryRunPrintsTheWritesAndWritesNothing)
{
    Server server;
    FakeKernel& kernel = server.kernel;
    auto would = [&](const std::string& relative, const std::string& text) {
        return "would write to " + kernel.full(relative) + ": " + text + "\n";
    };
    const std::string web = "name=web path=/dev/ram3 allow=any access=rw io_modes=blockio,fileio";
    RunResult r = kernel.run({"server", "export", "add", "web", "--path", "/dev/ram3", "--allow", "any", "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would(kAdd, web));
    EXPECT_EQ(r.err, "");
    EXPECT_FALSE(kernel.exists(kExports + "web"));
    r = kernel.run(
        {"server", "export", "add", "web", "--path", "/dev/ram3", "--allow", "ip:192.0.2.1/24", "--dry-run"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.out, "");
    r = kernel.run({"server", "export", "add", "vol0", "--path", "/dev/ram3", "--allow", "any", "--dry-run"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err,
              "rnbdctl: server export add vol0: an export of this name exists (the kernel would refuse it: EEXIST)\n");
    EXPECT_EQ(r.out, "");

    r = kernel.run({"server", "export", "remove", "--dry-run", "db/ro"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would(kRemove, "db/ro"));
    r = kernel.run({"server", "export", "remove", "--dry-run", "nosuch"});
    EXPECT_EQ(r.code, kExitNotFound);
    r = kernel.run({"-o", "json", "server", "export", "remove", "--all", "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (Strings{"version", "dry_run", "writes"}));
    EXPECT_EQ(doc.differences({
                  {"dry_run", "true"},
                  {"writes", "<array of 2>"},
                  {"writes.0.file", kernel.full(kRemove)},
                  {"writes.0.text", "db/ro"},
                  {"writes.1.text", "vol0"},
              }),
              Strings{});

    // restore: what is missing is added, what is there left alone; a
    // different definition is reported as the real restore reports it
    // (exit 1), or with --replace removed and added.
    server.write_file(std::string(kVol0) + "\nname=web path=/dev/ram3 allow=any\n");
    r = kernel.run({"server", "restore", "--file", server.file, "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would(kAdd, web));
    server.write_file("name=vol0 path=/dev/ram0 allow=any\n");
    r = kernel.run({"server", "restore", "--file", server.file, "--dry-run"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("rnbdctl: server restore vol0: defined differently (" + std::string(kVol0) + ")", 0), 0u)
        << r.err;
    r = kernel.run({"server", "restore", "--file", server.file, "--replace", "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would(kRemove, "vol0") +
                         would(kAdd, "name=vol0 path=/dev/ram0 allow=any access=rw io_modes=blockio,fileio"));
    r = kernel.run({"server", "restore", "--file", server.file, "--check", "--dry-run"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: server restore: give --check or --dry-run, not both\nTry 'rnbdctl --help'.\n");

    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_EQ(kernel.read(kExports + "vol0/definition"), std::string(kVol0) + "\n");
    FakeKernel bare;
    r = bare.run({"server", "export", "add", "web", "--path", "/dev/ram3", "--allow", "any", "--dry-run"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_EQ(bare.writes(), Writes{});
}

}  // namespace
}  // namespace rnbdctl::testing
