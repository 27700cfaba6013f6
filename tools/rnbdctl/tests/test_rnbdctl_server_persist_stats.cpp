// rnbdctl's server commands, save/restore and stats against a fake sysfs
// tree, and the built binary run as a program.
#include <errno.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tools/rnbdctl/commands.hpp"
#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/prometheus.hpp"
#include "tools/rnbdctl/sysfs.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Writes = std::vector<std::pair<std::string, std::string>>;
using Strings = std::vector<std::string>;

JsonValue json_of(const RunResult& result)
{
    JsonValue value;
    std::string error;
    EXPECT_TRUE(parse_json(result.out, value, error)) << error << "\n" << result.out;
    return value;
}

TEST(RnbdctlServer, ListAndClose)
{
    FakeKernel kernel;
    kernel.load_server();
    kernel.add_export("ram0", "s1", "/dev/ram0", "ip:192.0.2.5");
    kernel.add_export("ram0", "s2", "ram0", "ip:192.0.2.6", "ro");
    RunResult r = kernel.run({"-o", "json", "server", "list"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.at("devices.0")->keys(), (std::vector<std::string>{"name", "block_dev", "sessions"}));
    EXPECT_EQ(doc.differences({
                  {"devices.0.name", "ram0"},
                  {"devices.0.block_dev", "ram0"},
                  {"devices.0.sessions.1.session", "s2"},
                  {"devices.0.sessions.1.read_only", "true"},
                  {"devices.0.sessions.0.mapping_path", "/dev/ram0"},
              }),
              Strings{});
    r = kernel.run({"-o", "json", "server", "list", "sessions"});
    doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"sessions.0.name", "s1"},
                  {"sessions.0.devices.0", "ram0"},
                  {"sessions.0.paths.0.src_addr", "ip:192.0.2.5"},
                  {"sessions.0.paths.0.stats.write_bytes", "16384"},
              }),
              Strings{});
    r = kernel.run({"server", "list"});
    EXPECT_NE(r.out.find("ram0    ram0       s2       ro      yes        ram0"), std::string::npos) << r.out;
    r = kernel.run({"server", "list", "sessions"});
    EXPECT_NE(r.out.find("s1       ram0     ip:192.0.2.5@ip:192.0.2.1  rxe0:1"), std::string::npos) << r.out;
    EXPECT_TRUE(kernel.writes().empty());

    r = kernel.run({"server", "close", "/dev/ram0", "s1"});  // by the path the client mapped
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(kernel.writes(), (Writes{{"class/rnbd-server/ctl/devices/ram0/sessions/s1/force_close", "1"}}));
    EXPECT_EQ(kernel.run({"server", "close", "ram0", "s3"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"server", "close", "ram7", "s1"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"server", "close", "ram0"}).code, kExitUsage);
    kernel.fail("class/rnbd-server/ctl/devices/ram0/sessions/s2/force_close", EINVAL);
    r = kernel.run({"server", "close", "ram0", "s2"});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: server close ram0 s2: Invalid argument (EINVAL): the kernel refused the value\n");

    kernel.clear_writes();
    EXPECT_EQ(kernel.run({"server", "path", "disconnect", "s2", "ip:192.0.2.6"}).code, 0);
    EXPECT_EQ(kernel.writes(),
              (Writes{{"class/rtrs-server/s2/paths/ip:192.0.2.6@ip:192.0.2.1/disconnect", "1"}}));
    EXPECT_EQ(kernel.run({"server", "path", "disconnect", "s2", "ip:192.0.2.99"}).code, kExitNotFound);
    EXPECT_EQ(kernel.run({"server", "frob"}).code, kExitUsage);
}

class RnbdctlPersist : public ::testing::Test {
protected:
    void SetUp() override
    {
        kernel.load_client();
        // save creates only the default file's directory; this is another.
        kernel.mkdir("etc/rnbd");
        tab = kernel.root() + "/etc/rnbd/rnbdtab";
    }
    std::string read_tab() const
    {
        std::ifstream in(tab);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    void write_tab(const std::string& text) const { std::ofstream(tab) << text; }
    FakeKernel kernel;
    std::string tab;
};

TEST_F(RnbdctlPersist, SaveUnmapAllRestore)
{
    ASSERT_EQ(kernel.run({"map", "sessname=s1", "path=ip:192.0.2.1", "path=ip:198.51.100.1",
                          "device_path=/dev/ram0", "io_hold_timeout_ms=5000"})
                  .code,
              0);
    ASSERT_EQ(kernel.run({"map", "sessname=s1", "device_path=/dev/ram1", "access_mode=ro"}).code, 0);
    kernel.file("class/rtrs-client/s1/mpath_policy", "min-latency (ML: 2)\n");
    RunResult r = kernel.run({"save", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "2 mappings saved to " + tab + "\n");
    const std::string saved = read_tab();
    EXPECT_NE(saved.find("\nsessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0 "
                         "access_mode=rw io_hold_timeout_ms=5000 mpath_policy=min-latency\n"),
              std::string::npos)
        << saved;
    EXPECT_NE(saved.find("\nsessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram1 "
                         "access_mode=ro io_hold_timeout_ms=5000 mpath_policy=min-latency\n"),
              std::string::npos)
        << saved;

    ASSERT_EQ(kernel.run({"unmap", "--all"}).code, 0);
    kernel.clear_writes();
    r = kernel.run({"-o", "json", "restore", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.differences({
                  {"mappings", "<array of 2>"},
                  {"mappings.0.result", "mapped"},
                  {"mappings.0.device", "rnbd2"},
                  {"mappings.1.device_path", "/dev/ram1"},
                  {"mappings.1.errno", "null"},
              }),
              Strings{});
    EXPECT_EQ(kernel.writes().size(), 4u);  // two maps, each with its policy
    EXPECT_EQ(kernel.read("block/rnbd3/rnbd_client/access_mode"), "ro\n");

    // Again: everything is there, nothing is written.
    kernel.clear_writes();
    r = kernel.run({"restore", "--file", tab});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("/dev/rnbd2  s1       /dev/ram0    present"), std::string::npos) << r.out;
    EXPECT_TRUE(kernel.writes().empty());
}

TEST_F(RnbdctlPersist, RestoreChecksTheWholeFileFirst)
{
    write_tab("# comment\n\nsessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0   # trailing comment\n"
              "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1 access_mode=wr\n");
    RunResult r = kernel.run({"restore", "--file", tab});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: restore: " + tab +
                         ":4: invalid input: access_mode must be ro, rw or migration (at 'wr')\nTry 'rnbdctl "
                         "--help'.\n");
    EXPECT_TRUE(kernel.writes().empty());
    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\nsessname=s1 device_path=/dev/ram0\n");
    r = kernel.run({"restore", "--file", tab});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_NE(r.err.find(":2: /dev/ram0 of session s1 is listed a second time"), std::string::npos) << r.err;
    EXPECT_EQ(kernel.run({"restore", "--file", tab + ".missing"}).code, kExitNotFound);
    // The default file missing: nothing was ever saved, nothing to do.
    r = kernel.run({"restore"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.err.find("nothing to restore"), std::string::npos);
    EXPECT_TRUE(kernel.writes().empty());
}

TEST_F(RnbdctlPersist, RestoreGoesOnAfterAFailureAndSaysSo)
{
    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/gone\n"
              "sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\n");
    kernel.fail("kernel/rnbd_client/map_device", ENOENT);
    RunResult r = kernel.run({"restore", "--file", tab});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(kernel.writes().size(), 2u);
    EXPECT_NE(r.err.find("rnbdctl: restore s1 /dev/gone: No such file or directory (ENOENT): no such device on the "
                         "server\n"),
              std::string::npos)
        << r.err;
    // Restore when the module is missing: exit 4, nothing written.
    FakeKernel bare;
    r = bare.run({"restore", "--file", tab});
    EXPECT_EQ(r.code, kExitNotLoaded);
    EXPECT_TRUE(bare.writes().empty());
}

TEST_F(RnbdctlPersist, SaveKeepsTheDestinationPortAndSeparatesEqualDestinations)
{
    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0 dest_port=4321\n");
    kernel.map("sessname=s1 path=ip:10.0.0.1@ip:192.0.2.1 path=ip:10.0.0.2@ip:192.0.2.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"save", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(read_tab().find("\nsessname=s1 path=ip:10.0.0.1@ip:192.0.2.1 path=ip:10.0.0.2@ip:192.0.2.1 "
                              "device_path=/dev/ram0 access_mode=rw dest_port=4321 io_hold_timeout_ms=60000\n"),
              std::string::npos)
        << read_tab();
    // The default file, its directory created on first use.
    r = kernel.run({"-o", "json", "save"});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.text("file"), kernel.root() + "/etc-rnbd/rnbdtab");
    EXPECT_EQ(doc.text("mappings.0.session"), "s1");
    EXPECT_TRUE(kernel.exists("etc-rnbd/rnbdtab"));
    FakeKernel bare;
    EXPECT_EQ(bare.run({"save", "--file", tab}).code, kExitNotLoaded);
}

// The user's report: `save` with nothing mapped emptied a populated
// rnbdtab. Now that takes --force, and the old file is kept as FILE~.
TEST_F(RnbdctlPersist, SaveRefusesToEmptyAFileThatListsMappings)
{
    const std::string old = "# mine\nsessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\n";
    write_tab(old);
    RunResult r = kernel.run({"save", "--file", tab});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err, "rnbdctl: save " + tab +
                         ": nothing is mapped, and the file lists 1 mapping; it is left as it is (--force "
                         "replaces it)\nTry 'rnbdctl --help'.\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(read_tab(), old);
    EXPECT_FALSE(kernel.exists("etc/rnbd/rnbdtab~"));
    // A line that does not parse is a mapping too (a typo, not nothing).
    write_tab("sessname=s1 device_path=/dev/ram0 access_mode=wr\nsessname=s1 device_path=/dev/ram1\n");
    r = kernel.run({"-o", "json", "save", "--file", tab});
    EXPECT_EQ(r.code, kExitUsage);
    EXPECT_EQ(r.err.rfind("rnbdctl: save " + tab + ": nothing is mapped, and the file lists 2 mappings;", 0), 0u)
        << r.err;
    EXPECT_EQ(r.out, "");

    write_tab(old);
    r = kernel.run({"save", "--force", "--file", tab});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "0 mappings saved to " + tab + " (the previous file is " + tab + "~)\n");
    EXPECT_EQ(kernel.read("etc/rnbd/rnbdtab~"), old);
    EXPECT_EQ(read_tab().find("sessname="), std::string::npos) << read_tab();
    // Comments only: nothing to lose, no --force needed.
    r = kernel.run({"save", "--file", tab});
    EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(RnbdctlPersist, SaveKeepsThePreviousFileAsTilde)
{
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    RunResult r = kernel.run({"-o", "json", "save", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (std::vector<std::string>{"version", "file", "backup", "mappings"}));
    EXPECT_EQ(doc.text("backup"), "null");  // a new file replaces nothing
    EXPECT_FALSE(kernel.exists("etc/rnbd/rnbdtab~"));
    const std::string first = read_tab();

    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram1");
    r = kernel.run({"save", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "2 mappings saved to " + tab + " (the previous file is " + tab + "~)\n");
    EXPECT_EQ(kernel.read("etc/rnbd/rnbdtab~"), first);
    r = kernel.run({"-o", "json", "save", "--file", tab});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(json_of(r).text("backup"), tab + "~");

    // No backup, no replacement: the file is left as it is.
    const std::string second = read_tab();
    ::unlink((tab + "~").c_str());
    kernel.mkdir("etc/rnbd/rnbdtab~/occupied");
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram2");
    r = kernel.run({"save", "--file", tab});
    EXPECT_EQ(r.code, kExitFailed);
    EXPECT_EQ(r.err, "rnbdctl: save " + tab + ": cannot keep the previous file as " + tab +
                         "~: Is a directory (EISDIR); the file is left as it is\n");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(read_tab(), second);
}

TEST(RnbdctlStats, PrometheusTextIsWellFormedAndComplete)
{
    FakeKernel kernel;
    kernel.load_client();
    kernel.load_server();
    kernel.map("sessname=s1 path=ip:192.0.2.1 path=ip:198.51.100.1 device_path=/dev/ram0");
    kernel.file("class/rtrs-client/s1/paths/ip:10.0.0.9@ip:198.51.100.1/state", "disconnected\n");
    kernel.add_export("ram0", "s\"odd\\name", "/dev/ram0", "ip:192.0.2.5");
    RunResult r = kernel.run({"stats", "-o", "prometheus"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(check_prometheus_syntax(r.out), "") << r.out;
    const std::string& text = r.out;
    for (const char* line : {
             "rnbd_client_module_loaded 1\n",
             "rnbd_client_device_info{device=\"rnbd0\",session=\"s1\",device_path=\"/dev/ram0\",access_mode=\"rw\","
             "io_mode=\"blockio\"} 1\n",
             "rnbd_client_device_open{device=\"rnbd0\"} 1\n",
             "rnbd_client_device_size_bytes{device=\"rnbd0\"} 67108864\n",
             "rnbd_client_session_info{session=\"s1\",mpath_policy=\"min-inflight\"} 1\n",
             "rnbd_client_path_up{session=\"s1\",path=\"ip:10.0.0.9@ip:198.51.100.1\",src_addr=\"ip:10.0.0.9\","
             "dst_addr=\"ip:198.51.100.1\",state=\"disconnected\"} 0\n",
             "rnbd_client_path_read_bytes_total{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\"} 40960\n",
             "rnbd_client_path_inflight_requests{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\"} 2\n",
             "rnbd_client_path_failovers_total{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\"} 1\n",
             "rnbd_client_path_reconnects_total{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\",result=\"successful\"} "
             "0\n",
             "rnbd_client_path_heartbeat_rtt_seconds{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\"} 0.000123456\n",
             // rows: <1 ms 7 reads, <4 ms 3 reads, >= 65536 ms 1 read
             "rnbd_client_path_request_latency_seconds_bucket{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"read\",le=\"0.001\"} 7\n",
             "rnbd_client_path_request_latency_seconds_bucket{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"read\",le=\"0.004\"} 10\n",
             "rnbd_client_path_request_latency_seconds_bucket{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"read\",le=\"65.536\"} 10\n",
             "rnbd_client_path_request_latency_seconds_bucket{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"read\",le=\"+Inf\"} 11\n",
             "rnbd_client_path_request_latency_seconds_count{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"write\"} 5\n",
             "rnbd_client_path_request_latency_max_seconds{session=\"s1\",path=\"ip:10.0.0.9@ip:192.0.2.1\","
             "op=\"read\"} 70\n",
             "rnbd_server_export_mapping_info{export=\"ram0\",session=\"s\\\"odd\\\\name\",access_mode=\"rw\","
             "read_only=\"0\"} 1\n",
             "rnbd_server_path_write_requests_total{session=\"s\\\"odd\\\\name\",path=\"ip:192.0.2.5@ip:192.0.2.1\"} 4\n",
         })
        EXPECT_NE(text.find(line), std::string::npos) << line << "\n---\n" << text;
    // Atomically to a file, as node-exporter's textfile collector wants, in
    // its directory (which rnbdctl does not create).
    kernel.mkdir("textfile");
    const std::string file = kernel.root() + "/textfile/rnbd.prom";
    r = kernel.run({"stats", "-o", "prometheus", "--file", file});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    std::ifstream in(file);
    std::stringstream written;
    written << in.rdbuf();
    EXPECT_EQ(check_prometheus_syntax(written.str()), "");
    r = kernel.run({"stats", "-o", "json"});
    JsonValue doc = json_of(r);
    EXPECT_EQ(doc.keys(), (std::vector<std::string>{"version", "client", "server"}));
    EXPECT_EQ(doc.text("client.sessions.0.paths.1.state"), "disconnected");
    EXPECT_EQ(doc.text("server.sessions.0.paths.0.stats.read_requests"), "3");
    r = kernel.run({"stats"});
    EXPECT_NE(r.out.find("client paths:"), std::string::npos);
    EXPECT_TRUE(kernel.writes().empty());
}

TEST(RnbdctlStats, NothingLoadedIsStillValid)
{
    FakeKernel kernel;
    RunResult r = kernel.run({"stats", "-o", "prometheus"});
    ASSERT_EQ(r.code, 0);
    EXPECT_EQ(check_prometheus_syntax(r.out), "");
    EXPECT_NE(r.out.find("rnbd_client_module_loaded 0\n"), std::string::npos);
}

TEST(RnbdctlSyntaxChecker, CatchesBrokenLines)
{
    EXPECT_NE(check_prometheus_syntax("# TYPE a gauge\na{x=\"1} 1\n"), "");
    EXPECT_NE(check_prometheus_syntax("# TYPE a gauge\na 1\n# TYPE b gauge\na 2\n"), "");
    EXPECT_NE(check_prometheus_syntax("# TYPE a gauge\na one\n"), "");
    EXPECT_NE(check_prometheus_syntax("# TYPE a gauge\n1a 1\n"), "");
    EXPECT_EQ(check_prometheus_syntax("# HELP a x\n# TYPE a gauge\na{x=\"\\\"\"} 1.5e3\n"), "");
}

TEST(RnbdctlParsers, SizesHistogramsNumbersNames)
{
    uint64_t sectors = 0;
    std::string error;
    EXPECT_TRUE(parse_size_sectors("3G", sectors, error));
    EXPECT_EQ(sectors, 3u << 21);
    EXPECT_TRUE(parse_size_sectors("1K", sectors, error));
    EXPECT_EQ(sectors, 2u);
    LatencyHistogram histogram;
    EXPECT_FALSE(parse_latency_histogram("< 1 ms: 1 2\n", histogram));  // rows missing
    EXPECT_EQ(parse_numbers("12 ns"), (std::vector<int64_t>{12}));
    EXPECT_EQ(parse_numbers("-1 0\n"), (std::vector<int64_t>{-1, 0}));
    EXPECT_EQ(policy_word("min-inflight (MI: 1)"), "min-inflight");
    EXPECT_TRUE(natural_less("rnbd2", "rnbd10"));
    EXPECT_FALSE(natural_less("rnbd10", "rnbd2"));
    EXPECT_EQ(prometheus_escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    EXPECT_EQ(errno_name(EBUSY), "EBUSY");
}

// The built program: the environment names the root, stdout/stderr and the
// exit code are the contract scripts see.
TEST(RnbdctlProgram, RunsAgainstTheEnvironmentsRoot)
{
    FakeKernel kernel;
    kernel.load_client();
    kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");
    const std::string out = kernel.root() + "/out.txt";
    const std::string command = "RNBDCTL_SYSFS_ROOT='" + kernel.root() + "' build/rnbdctl/rnbdctl -o json list >'" +
                                out + "' 2>&1";
    int status = system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    JsonValue doc;
    std::string error;
    EXPECT_TRUE(parse_json(text.str(), doc, error)) << error << text.str();
    EXPECT_EQ(doc.text("devices.0.name"), "rnbd0");
    status = system(("RNBDCTL_SYSFS_ROOT='" + kernel.root() + "' build/rnbdctl/rnbdctl unmap rnbd9 2>/dev/null").c_str());
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), kExitNotFound);
    status = system("build/rnbdctl/rnbdctl map --access-mode=xx >/dev/null 2>&1");
    EXPECT_EQ(WEXITSTATUS(status), kExitUsage);
}

}  // namespace
}  // namespace rnbdctl::testing
