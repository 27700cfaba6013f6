// rnbdctl's client commands against a fake sysfs tree (fake-kernel.hpp):
// what each writes, what it prints, and each error path with its message
// and exit code.
#include <errno.h>
#include <gtest/gtest.h>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

class RnbdctlClient : public ::testing::Test {
protected:
    void SetUp() override { kernel.load_client(); }
    JsonValue json_of(const RunResult& result)
    {
        JsonValue value;
        std::string error;
        EXPECT_TRUE(parse_json(result.out, value, error)) << error << "\n" << result.out;
        return value;
    }
    FakeKernel kernel;
};

TEST_F(RnbdctlClient, MapWritesTheLineAndPrintsTheDevice)
{
    RunResult r = kernel.run({"map", "--session", "s1", "--path", "ip:192.0.2.1", "--path", "ip:198.51.100.1",
                              "--device-path", "/dev/ram0", "--access-mode", "ro", "--io-mode", "fileio",
                              "--input-mode", "mq", "--dest-port", "1234", "--nr-poll-queues", "-1",
                              "--io-hold-timeout-ms", "5000"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "/dev/rnbd0\n");
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(kernel.writes(), (Writes{{"kernel/rnbd_client/map_device",
                                        "sessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0 "
                                        "access_mode=ro io_mode=fileio input_mode=mq dest_port=1234 "
                                        "nr_poll_queues=-1 io_hold_timeout_ms=5000"}}));
}

TEST_F(RnbdctlClient, MapJsonHasTheDocumentedShape)
{
    kernel.map("sessname=other path=ip:192.0.2.1 device_path=/dev/ram9");  // rnbd0
    RunResult r = kernel.run({"-o", "json", "map", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path",
                              "/dev/ram0"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (std::vector<std::string>{"version", "device"}));
    EXPECT_EQ(doc.text("version"), "1");
    EXPECT_EQ(doc.at("device")->keys(),
              (std::vector<std::string>{"name", "dev", "session", "device_path", "access_mode", "io_mode",
                                        "nr_poll_queues", "state", "size_sectors", "size_bytes", "read_only"}));
    EXPECT_EQ(doc.differences({
                  {"device.name", "rnbd1"},
                  {"device.dev", "/dev/rnbd1"},
                  {"device.session", "s1"},
                  {"device.device_path", "/dev/ram0"},
                  {"device.state", "open"},
                  {"device.size_bytes", "67108864"},
                  {"device.read_only", "false"},
              }),
              Strings{});
}

TEST_F(RnbdctlClient, MapTakesKeyValueArgumentsAndSessionSettings)
{
    RunResult r = kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0",
                              "mpath_policy=min-latency", "--max-reconnect-attempts", "5"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes(),
              (Writes{{"kernel/rnbd_client/map_device", "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0"},
                      {"class/rtrs-client/s1/mpath_policy", "min-latency"},
                      {"class/rtrs-client/s1/max_reconnect_attempts", "5"}}));
}

// A bad option is refused with the module's own message, and nothing is
// written: the same parser (rnbd/core/rnbd-clt-options.cpp) decides.
TEST_F(RnbdctlClient, MapBadOptionsAreRefusedBeforeAnyWrite)
{
    struct Case {
        std::vector<std::string> args;
        std::string message;
    };
    const Case cases[] = {
        {{"--access-mode", "rx"}, "rnbdctl: map: invalid input: access_mode must be ro, rw or migration (at 'rx')"},
        {{"--io-mode", "aio"}, "io_mode must be blockio or fileio (at 'aio')"},
        {{"--input-mode", "rq"}, "input_mode=rq is not supported by this driver, only mq (at 'rq')"},
        {{"--dest-port", "0"}, "dest_port must be a number from 1 to 65535 (at '0')"},
        {{"--nr-poll-queues", "5"}, "nr_poll_queues must be -1 (one per CPU) or 0 up to the number of CPUs"},
        {{"--io-hold-timeout-ms", "3600001"}, "io_hold_timeout_ms must be a number of milliseconds"},
        {{"--path", "ip:192.0.2.300"}, "path is not [<src>@|,]<dst>"},
        {{"--path", "ip:192.0.2.1"}, "the same path is given twice"},
        {{"--mpath-policy", "fastest"}, "mpath_policy: expected 0, 1, 2 or a policy name (at 'fastest')"},
        {{"--max-reconnect-attempts", "10000"}, "max_reconnect_attempts: expected -1 .. 9999 (at '10000')"},
        {{"--device-path", "/a b"}, "contains a blank"},
        {{"bogus"}, "'bogus' is not a key=value option"},
        {{"colour=red"}, "invalid input: unknown key"},
        {{"--colour", "red"}, "unknown option --colour"},
    };
    for (const Case& c : cases) {
        std::vector<std::string> args = {"map", "--session", "s1", "--path", "ip:192.0.2.1"};
        if (c.args[0] != "--device-path")
            args.insert(args.end(), {"--device-path", "/dev/ram0"});
        args.insert(args.end(), c.args.begin(), c.args.end());
        RunResult r = kernel.run(args);
        EXPECT_EQ(r.code, kExitUsage) << c.message;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(kernel.writes().empty()) << c.message;
    }
    RunResult r = kernel.run({"map", "--path", "ip:192.0.2.1", "--device-path", "/dev/ram0"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find("invalid input: required key missing (at 'sessname')"), std::string::npos) << r.err;
    EXPECT_TRUE(kernel.writes().empty());
}

TEST_F(RnbdctlClient, MapErrorsNameTheKernelsErrno)
{
    kernel.fail("kernel/rnbd_client/map_device", ENOENT);
    RunResult r = kernel.run({"map", "--session", "s1", "--path", "ip:192.0.2.1", "--device-path", "/dev/nothing"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: map s1 /dev/nothing: No such file or directory (ENOENT): no such device on the server\n");
    kernel.fail("kernel/rnbd_client/map_device", 0);

    ASSERT_EQ(kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"}).code, 0);
    r = kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: map s1 /dev/ram0: File exists (EEXIST): the device is already mapped in that "
                     "session as /dev/rnbd0\n");

    kernel.fail("kernel/rnbd_client/map_device", ETIMEDOUT);
    r = kernel.run({"map", "sessname=s2", "path=ip:192.0.2.1", "device_path=/dev/ram0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_NE(r.err.find("Connection timed out (ETIMEDOUT): the server cannot be reached"), std::string::npos);
}

TEST(RnbdctlNotLoaded, CommandsSayTheModuleIsMissing)
{
    FakeKernel kernel;
    RunResult r = kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "device_path=/dev/ram0"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_NE(r.err.find("rnbd-client is not loaded"), std::string::npos);
    EXPECT_TRUE(kernel.writes().empty());
    r = kernel.run({"unmap", "rnbd0"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    r = kernel.run({"-o", "json", "list"});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_EQ(r.out, "");
    r = kernel.run({"server", "close", "ram0", "s1"});
    EXPECT_EQ(r.code, kExitNotLoaded);
}

TEST_F(RnbdctlClient, UnmapNormalForceAndAll)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1");
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram2");
    RunResult r = kernel.run({"unmap", "/dev/rnbd0"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    kernel.set_open("rnbd1", true);
    r = kernel.run({"unmap", "rnbd1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: unmap rnbd1: Device or resource busy (EBUSY): device is open (use --force to fail "
                     "its IO and unmap anyway)\n");
    EXPECT_TRUE(kernel.exists("block/rnbd1"));
    r = kernel.run({"unmap", "--force", "rnbd1"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes().back(), (std::pair<std::string, std::string>{"block/rnbd1/rnbd_client/unmap_device", "force"}));
    EXPECT_FALSE(kernel.exists("block/rnbd1"));
    r = kernel.run({"unmap", "rnbd7"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: unmap rnbd7: no such rnbd device\n");
    r = kernel.run({"unmap"});
    EXPECT_EQ(r.code, kExitUsage);
    r = kernel.run({"unmap", "--all", "rnbd2"});
    EXPECT_EQ(r.code, kExitUsage);

    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram3");  // rnbd3
    kernel.set_open("rnbd2", true);
    r = kernel.run({"-o", "json", "unmap", "--all"});
    EXPECT_EQ(r.code, kExitFailed);
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"unmapped.0", "rnbd3"},
                  {"failed.0.device", "rnbd2"},
                  {"failed.0.errno", "EBUSY"},
              }),
              Strings{});
    EXPECT_FALSE(kernel.exists("block/rnbd3"));
    kernel.set_open("rnbd2", false);
    r = kernel.run({"unmap", "--all"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(kernel.exists("block/rnbd2"));
    r = kernel.run({"unmap", "--all"});  // nothing left: fine
    EXPECT_EQ(r.code, 0);
}

TEST_F(RnbdctlClient, ResizeTakesUnits)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    struct Case {
        const char* size;
        const char* sectors;
    };
    for (Case c : {Case{"1G", "2097152"}, Case{"512M", "1048576"}, Case{"4096", "4096"}, Case{"100s", "100"},
                   Case{"2T", "4294967296"}, Case{"64KiB", "128"}}) {
        kernel.clear_writes();
        RunResult r = kernel.run({"resize", "rnbd0", c.size});
        EXPECT_EQ(r.code, 0) << c.size << r.err;
        EXPECT_EQ(kernel.writes(), (Writes{{"block/rnbd0/rnbd_client/resize", c.sectors}})) << c.size;
    }
    kernel.clear_writes();
    for (const char* bad : {"1X", "-1", "0", "1.5G", "", "G", "100000000000000T"}) {
        RunResult r = kernel.run({"resize", "rnbd0", bad});
        EXPECT_EQ(r.code, kExitUsage) << bad;
    }
    EXPECT_TRUE(kernel.writes().empty());
    RunResult r = kernel.run({"-o", "json", "resize", "rnbd0", "1M"});
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(json_of(r).text("device.size_sectors"), "2048");
    kernel.fail("block/rnbd0/rnbd_client/resize", EINVAL);
    r = kernel.run({"resize", "rnbd0", "1T"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: resize rnbd0: Invalid argument (EINVAL): the size is 0 or beyond the server's device\n");
    r = kernel.run({"resize", "rnbd5", "1M"});
    EXPECT_EQ(r.code, kExitNotFound);
}

TEST_F(RnbdctlClient, Remap)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"remap", "rnbd0"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(kernel.writes(), (Writes{{"block/rnbd0/rnbd_client/remap_device", "1"}}));
    kernel.fail("block/rnbd0/rnbd_client/remap_device", EALREADY);
    r = kernel.run({"remap", "rnbd0"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: remap rnbd0: Operation already in progress (EALREADY): the device is open already\n");
    EXPECT_EQ(kernel.run({"remap", "nbd0"}).code, kExitNotFound);
}

TEST_F(RnbdctlClient, ListAndShow)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0");
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1 access_mode=ro");
    RunResult r = kernel.run({"list"});
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(r.out,
              "DEVICE      SESSION  DEVICE_PATH  ACCESS  IO_MODE  STATE  SIZE\n"
              "/dev/rnbd0  s1       /dev/ram0    rw      blockio  open   64.0 MiB\n"
              "/dev/rnbd1  s1       /dev/ram1    ro      blockio  open   64.0 MiB\n");
    r = kernel.run({"list", "-o", "json"});
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"devices", "<array of 2>"},
                  {"devices.1.access_mode", "ro"},
                  {"devices.1.read_only", "true"},
              }),
              Strings{});

    r = kernel.run({"-o", "json", "list", "sessions"});
    doc = json_of(r);
    EXPECT_EQ(doc.at("sessions.0")->keys(),
              (std::vector<std::string>{"name", "mpath_policy", "max_reconnect_attempts", "io_hold_timeout_ms",
                                        "connected_paths", "devices", "paths"}));
    EXPECT_EQ(doc.differences({
                  {"sessions.0.mpath_policy", "min-inflight"},
                  {"sessions.0.connected_paths", "2"},
                  {"sessions.0.devices.1", "rnbd1"},
              }),
              Strings{});
    EXPECT_EQ(doc.at("sessions.0.paths.0")->keys(),
              (std::vector<std::string>{"name", "src_addr", "dst_addr", "state", "hca_name", "hca_port",
                                        "heartbeat_rtt_ns", "stats"}));
    EXPECT_EQ(doc.differences({
                  {"sessions.0.paths.0.name", "ip:10.0.0.9@ip:192.0.2.1"},
                  {"sessions.0.paths.0.heartbeat_rtt_ns", "123456"},
                  {"sessions.0.paths.0.stats.read_bytes", "40960"},
                  {"sessions.0.paths.0.stats.failovers", "1"},
                  {"sessions.0.paths.0.stats.reconnects_successful", "-1"},
                  {"sessions.0.paths.0.stats.latency.buckets.0.below_ms", "1"},
                  {"sessions.0.paths.0.stats.latency.buckets.0.reads", "7"},
                  {"sessions.0.paths.0.stats.latency.buckets.17.below_ms", "null"},
                  {"sessions.0.paths.0.stats.latency.max_read_ms", "70000"},
              }),
              Strings{});
    r = kernel.run({"list", "sessions"});
    EXPECT_NE(r.out.find("s1       min-inflight  rnbd0,rnbd1  ip:10.0.0.9@ip:192.0.2.1"), std::string::npos) << r.out;

    r = kernel.run({"show", "rnbd1", "-o", "json"});
    ASSERT_EQ(r.code, 0);
    doc = json_of(r);
    EXPECT_EQ(doc.keys(), (std::vector<std::string>{"version", "device", "session"}));
    EXPECT_EQ(doc.text("device.device_path"), "/dev/ram1");
    EXPECT_EQ(doc.text("session.name"), "s1");
    r = kernel.run({"show", "rnbd1"});
    EXPECT_NE(r.out.find("device_path:    /dev/ram1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mpath_policy:           min-inflight"), std::string::npos) << r.out;
    EXPECT_EQ(kernel.run({"show", "rnbd9"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"list", "things"}).code, kExitUsage);
    EXPECT_TRUE(kernel.writes().empty());
}

TEST_F(RnbdctlClient, ShowFollowsALinkToTheDevice)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    // As a udev name would: a link whose target ends in rnbd0.
    kernel.symlink("dev/rnbd/s1/ram0", "../../rnbd0");
    kernel.file("dev/rnbd0", "");
    RunResult r = kernel.run({"-o", "json", "show", kernel.full("dev/rnbd/s1/ram0")});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json_of(r).text("device.name"), "rnbd0");
}

TEST_F(RnbdctlClient, SessionSetChecksEveryValueFirst)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"session", "set", "s1", "--mpath-policy", "mi", "--max-reconnect-attempts", "-1",
                              "--io-hold-timeout-ms", "0"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes(), (Writes{{"class/rtrs-client/s1/mpath_policy", "mi"},
                                       {"class/rtrs-client/s1/max_reconnect_attempts", "-1"},
                                       {"class/rtrs-client/s1/io_hold_timeout_ms", "0"}}));
    kernel.clear_writes();
    r = kernel.run({"session", "set", "s1", "--mpath-policy", "rr", "--io-hold-timeout-ms", "3600001"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find("io_hold_timeout_ms: expected 0 .. 3600000 (milliseconds)"), std::string::npos) << r.err;
    EXPECT_TRUE(kernel.writes().empty());
    EXPECT_EQ(kernel.run({"session", "set", "s1"}).code, kExitUsage);
    r = kernel.run({"session", "set", "nosuch", "--mpath-policy", "rr"});
    EXPECT_EQ(r.code, kExitNotFound);
    EXPECT_EQ(r.err, "rnbdctl: session set nosuch: no such session\n");
    kernel.fail("class/rtrs-client/s1/mpath_policy", EINVAL);
    r = kernel.run({"session", "set", "s1", "--mpath-policy", "rr"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: session set s1 mpath_policy: Invalid argument (EINVAL): the kernel refused the value\n");
    r = kernel.run({"-o", "json", "session", "show", "s1"});
    EXPECT_EQ(r.code, 0);
    EXPECT_EQ(json_of(r).text("session.name"), "s1");
    r = kernel.run({"-o", "json", "session", "list"});
    EXPECT_EQ(json_of(r).text("sessions.0.name"), "s1");
    EXPECT_EQ(kernel.run({"session", "frobnicate"}).code, kExitUsage);
}

TEST_F(RnbdctlClient, PathCommands)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"path", "add", "s1", "ip:10.0.0.5@ip:192.0.2.17"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "ip:10.0.0.5@ip:192.0.2.17\n");
    EXPECT_EQ(kernel.writes(), (Writes{{"class/rtrs-client/s1/add_path", "ip:10.0.0.5@ip:192.0.2.17"}}));
    kernel.clear_writes();
    r = kernel.run({"path", "add", "s1", "ip:192.0.2.999"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find("add_path: expected [<src>@]<dst>"), std::string::npos);
    EXPECT_TRUE(kernel.writes().empty());
    kernel.fail("class/rtrs-client/s1/add_path", EEXIST);
    r = kernel.run({"path", "add", "s1", "ip:192.0.2.1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: path add s1 ip:192.0.2.1: File exists (EEXIST): a path with these addresses exists\n");
    EXPECT_EQ(kernel.run({"path", "add", "s9", "ip:192.0.2.1"}).code, kExitNotFound);

    kernel.clear_writes();
    EXPECT_EQ(kernel.run({"path", "disconnect", "s1", "ip:198.51.100.1"}).code, 0);
    EXPECT_EQ(kernel.run({"path", "reconnect", "s1", "ip:10.0.0.9@ip:198.51.100.1"}).code, 0);
    EXPECT_EQ(kernel.writes(),
              (Writes{{"class/rtrs-client/s1/paths/ip:10.0.0.9@ip:198.51.100.1/disconnect", "1"},
                      {"class/rtrs-client/s1/paths/ip:10.0.0.9@ip:198.51.100.1/reconnect", "1"}}));
    kernel.fail("class/rtrs-client/s1/paths/ip:10.0.0.9@ip:198.51.100.1/reconnect", ECONNRESET);
    r = kernel.run({"path", "reconnect", "s1", "ip:198.51.100.1"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_NE(r.err.find("(ECONNRESET): no server listening"), std::string::npos) << r.err;
    // The source address names two paths: ambiguous, nothing written.
    kernel.clear_writes();
    r = kernel.run({"path", "remove", "s1", "ip:10.0.0.9"});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find("names 2 paths"), std::string::npos) << r.err;
    EXPECT_TRUE(kernel.writes().empty());
    EXPECT_EQ(kernel.run({"path", "remove", "s1", "ip:203.0.113.1"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"path", "remove", "s1", "ip:192.0.2.17"}).code, 0);
    EXPECT_FALSE(kernel.exists("class/rtrs-client/s1/paths/ip:10.0.0.5@ip:192.0.2.17"));
    r = kernel.run({"-o", "json", "path", "list", "s1"});
    EXPECT_EQ(r.code, 0);
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"paths", "<array of 2>"},
                  {"paths.0.session", "s1"},
                  {"paths.0.path.state", "connected"},
              }),
              Strings{});
    EXPECT_EQ(kernel.run({"path"}).code, kExitUsage);
}

TEST_F(RnbdctlClient, GlobalOptionsAndUsage)
{
    RunResult r = kernel.run({});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find("Usage: rnbdctl"), std::string::npos);
    r = kernel.run({"--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
    EXPECT_EQ(kernel.run({"-o", "xml", "list"}).code, kExitUsage);
    EXPECT_EQ(kernel.run({"-o", "prometheus", "list"}).code, kExitUsage);
    EXPECT_EQ(kernel.run({"frob"}).code, kExitUsage);
    // --sysfs-root overrides the environment's root.
    FakeKernel other;
    other.load_client();
    other.map("sessname=elsewhere path=ip:192.0.2.1 device_path=/dev/ram0");
    r = kernel.run({"--sysfs-root", other.root(), "-o", "json", "list"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("elsewhere"), std::string::npos);
}

}  // namespace
}  // namespace rnbdctl::testing
