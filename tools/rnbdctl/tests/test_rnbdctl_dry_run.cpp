// --dry-run of the commands that map and unmap, and restore --check
// (issue 27, item 4): every check of the real command, then the writes it
// would make printed ("would write to FILE: TEXT", or JSON), and nothing
// written: the fake kernel's write log stays empty and its tree unchanged.
#include <gtest/gtest.h>

#include <fstream>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

class RnbdctlDryRun : public ::testing::Test {
protected:
    void SetUp() override { kernel.load_client(); }
    std::string would_write(const std::string& relative, const std::string& text) const
    {
        return "would write to " + kernel.full(relative) + ": " + text + "\n";
    }
    void write_tab(const std::string& text) const { std::ofstream(tab()) << text; }
    std::string tab() const { return kernel.full("rnbdtab"); }
    FakeKernel kernel;
};

TEST_F(RnbdctlDryRun, MapPrintsItsWritesAndWritesNothing)
{
    RunResult r = kernel.run({"map", "--dry-run", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path",
                              "/dev/ram0", "--mpath-policy", "min-latency"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would_write("kernel/rnbd_client/map_device", "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0") +
                         would_write("class/rtrs-client/s1/mpath_policy", "min-latency"));
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_FALSE(kernel.exists("block/rnbd0"));

    r = kernel.run({"-o", "json", "map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0", "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    EXPECT_EQ(doc.keys(), (Strings{"version", "dry_run", "writes"}));
    EXPECT_EQ(doc.differences({
                  {"dry_run", "true"},
                  {"writes", "<array of 1>"},
                  {"writes.0.file", kernel.full("kernel/rnbd_client/map_device")},
                  {"writes.0.text", "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0"},
              }),
              Strings{});
    EXPECT_EQ(kernel.writes(), Writes{});
}

// A dry run checks what the real command checks, with the same exit codes.
TEST_F(RnbdctlDryRun, MapChecksEverythingARealMapChecks)
{
    RunResult r = kernel.run({"map", "--dry-run", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0",
                              "access_mode=rx"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.out, "");
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
    r = kernel.run({"map", "--dry-run", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: map s1 /dev/ram0: already mapped in that session as /dev/rnbd0 (the kernel would "
                     "refuse it: EEXIST)\n");
    EXPECT_EQ(r.out, "");
    FakeKernel bare;
    r = bare.run({"map", "--dry-run", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_EQ(bare.writes(), Writes{});
}

TEST_F(RnbdctlDryRun, UnmapPrintsItsWritesAndWritesNothing)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1");  // rnbd1
    RunResult r = kernel.run({"unmap", "--dry-run", "/dev/rnbd1"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would_write("block/rnbd1/rnbd_client/unmap_device", "normal"));
    r = kernel.run({"unmap", "--all", "--force", "--dry-run"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would_write("block/rnbd0/rnbd_client/unmap_device", "force") +
                         would_write("block/rnbd1/rnbd_client/unmap_device", "force"));
    EXPECT_EQ(kernel.run({"unmap", "--dry-run", "rnbd7"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"unmap", "--dry-run=yes", "rnbd0"}).code, kExitUsage);
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_TRUE(kernel.exists("block/rnbd0"));
    EXPECT_TRUE(kernel.exists("block/rnbd1"));
}

TEST_F(RnbdctlDryRun, RestorePrintsTheMappingsItWouldMakeAndWritesNothing)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // present: no write
    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\n"
              "sessname=s2 path=ip:192.0.2.2 device_path=/dev/ram1 max_reconnect_attempts=5\n");
    RunResult r = kernel.run({"restore", "--dry-run", "--file", tab()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, would_write("kernel/rnbd_client/map_device", "sessname=s2 path=ip:192.0.2.2 device_path=/dev/ram1") +
                         would_write("class/rtrs-client/s2/max_reconnect_attempts", "5"));
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_FALSE(kernel.exists("class/rtrs-client/s2"));
    // A bad line: exit 2, as restore.
    write_tab("sessname=s1 device_path=/dev/ram0 access_mode=wr\n");
    EXPECT_EQ(kernel.run({"restore", "--dry-run", "--file", tab()}).code, kExitUsage);
    EXPECT_EQ(kernel.run({"restore", "--dry-run", "--check", "--file", tab()}).code, kExitUsage);
    EXPECT_EQ(kernel.writes(), Writes{});
}

TEST_F(RnbdctlDryRun, RestoreCheckReportsEveryBadLineAndNeedsNoModule)
{
    write_tab("# two good lines, two bad ones\n"
              "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\n"
              "sessname=s1 device_path=/dev/ram1 access_mode=wr\n"
              "sessname=s1 device_path=/dev/ram2\n"
              "sessname=s1 device_path=/dev/ram0\n");
    RunResult r = kernel.run({"restore", "--check", "--file", tab()});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: restore --check: " + tab() +
                         ":3: invalid input: access_mode must be ro, rw or migration (at 'wr')\n"
                         "rnbdctl: restore --check: " + tab() +
                         ":5: /dev/ram0 of session s1 is listed a second time\n"
                         "rnbdctl: restore --check: " + tab() + ": 2 bad lines; restore would map nothing\n");
    EXPECT_EQ(r.out, "");

    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\nsessname=s1 device_path=/dev/ram2\n");
    FakeKernel bare;  // nothing loaded: the file alone is checked
    r = bare.run({"restore", "--check", "--file", tab()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, tab() + ": 2 mappings, every line valid\n");
    r = bare.run({"-o", "json", "restore", "--check", "--file", tab()});
    EXPECT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error << r.out;
    EXPECT_EQ(doc.differences({
                  {"file", tab()},
                  {"mappings", "<array of 2>"},
                  {"mappings.1.line_number", "2"},
                  {"mappings.1.session", "s1"},
                  {"mappings.1.device_path", "/dev/ram2"},
                  {"mappings.1.line", "sessname=s1 device_path=/dev/ram2"},
              }),
              Strings{});
    EXPECT_EQ(bare.run({"restore", "--check", "--file", tab() + ".missing"}).code, kExitNotFound);
    EXPECT_EQ(kernel.writes(), Writes{});
    EXPECT_EQ(bare.writes(), Writes{});
}

}  // namespace
}  // namespace rnbdctl::testing
