// restore with a dead server (issue 27, item 7): each line is bounded by
// its own timeout (--timeout, 60 s by default), the sessions are mapped at
// the same time, and one session's dead server neither blocks nor fails
// the others. The fake kernel plays the server: a session's map can hang
// (dead), be slow, or wait until another session's map has begun.
#include <gtest/gtest.h>

#include <fstream>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

using Strings = std::vector<std::string>;

class RnbdctlRestoreTimeouts : public ::testing::Test {
protected:
    void SetUp() override { kernel.load_client(); }
    void write_tab(const std::string& text) const { std::ofstream(tab()) << text; }
    std::string tab() const { return kernel.full("rnbdtab"); }
    JsonValue json_of(const RunResult& result) const
    {
        JsonValue doc;
        std::string error;
        EXPECT_TRUE(parse_json(result.out, doc, error)) << error << "\n" << result.out;
        return doc;
    }
    FakeKernel kernel;
};

TEST_F(RnbdctlRestoreTimeouts, ADeadServerFailsItsSessionAfterTheTimeoutAndTheOthersAreMapped)
{
    write_tab("sessname=dead path=ip:192.0.2.9 device_path=/dev/ram0\n"
              "sessname=live path=ip:192.0.2.1 device_path=/dev/ram0\n"
              "sessname=dead device_path=/dev/ram1\n"
              "sessname=live device_path=/dev/ram1\n");
    kernel.hang_map("dead");
    RunResult r = kernel.run({"-o", "json", "restore", "--file", tab(), "--timeout", "1"});
    EXPECT_EQ(r.code, kExitFailed) << r.err;
    const std::string timed_out = "no answer within 1 s (--timeout); the kernel may still map it later";
    const std::string not_tried = "not tried: line 1 of session dead timed out";
    EXPECT_EQ(json_of(r).differences({
                  {"mappings.0.session", "dead"},
                  {"mappings.0.result", "failed"},
                  {"mappings.0.device", "null"},
                  {"mappings.0.errno", "ETIMEDOUT"},
                  {"mappings.0.error", timed_out},
                  {"mappings.1.session", "live"},
                  {"mappings.1.result", "mapped"},
                  {"mappings.1.errno", "null"},
                  {"mappings.2.result", "failed"},
                  {"mappings.2.errno", "null"},
                  {"mappings.2.error", not_tried},
                  {"mappings.3.session", "live"},
                  {"mappings.3.device_path", "/dev/ram1"},
                  {"mappings.3.result", "mapped"},
              }),
              Strings{});
    EXPECT_EQ(r.err, "rnbdctl: restore dead /dev/ram0: " + timed_out + "\nrnbdctl: restore dead /dev/ram1: " +
                         not_tried + "\n");
    // The live session's two devices are there; the dead one has none.
    EXPECT_TRUE(kernel.exists("class/rnbd-client/ctl/devices/!dev!ram0@live"));
    EXPECT_TRUE(kernel.exists("class/rnbd-client/ctl/devices/!dev!ram1@live"));
    EXPECT_FALSE(kernel.exists("class/rtrs-client/dead"));
    // The dead session's second line was never written.
    size_t dead_maps = 0;
    for (const auto& [file, text] : kernel.writes())
        dead_maps += text.find("sessname=dead") != std::string::npos;
    EXPECT_EQ(dead_maps, 1u);
}

// The timeout bounds each line, not the whole restore: three lines of
// 0.4 s each take longer than one timeout of 1 s, and all are mapped.
TEST_F(RnbdctlRestoreTimeouts, EachLineHasItsOwnTimeout)
{
    write_tab("sessname=slow path=ip:192.0.2.1 device_path=/dev/ram0\n"
              "sessname=slow device_path=/dev/ram1\n"
              "sessname=slow device_path=/dev/ram2\n");
    kernel.delay_map("slow", 400);
    RunResult r = kernel.run({"restore", "--file", tab(), "--timeout", "1"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    for (const char* device : {"!dev!ram0@slow", "!dev!ram1@slow", "!dev!ram2@slow"})
        EXPECT_TRUE(kernel.exists(std::string("class/rnbd-client/ctl/devices/") + device)) << device;
}

// Each session's map is done only once the other's has begun: mapped one
// after the other, the first would wait (10 s) past its timeout (5 s).
TEST_F(RnbdctlRestoreTimeouts, SessionsAreMappedAtTheSameTime)
{
    write_tab("sessname=a path=ip:192.0.2.1 device_path=/dev/ram0\n"
              "sessname=b path=ip:192.0.2.2 device_path=/dev/ram0\n");
    kernel.map_waits_for("a", "b");
    kernel.map_waits_for("b", "a");
    RunResult r = kernel.run({"restore", "--file", tab(), "--timeout", "5"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(kernel.exists("class/rnbd-client/ctl/devices/!dev!ram0@a"));
    EXPECT_TRUE(kernel.exists("class/rnbd-client/ctl/devices/!dev!ram0@b"));
    // The lines' order in the output is the file's, whichever finished first.
    EXPECT_NE(r.out.find(" a        /dev/ram0    mapped\n"), std::string::npos) << r.out;
    EXPECT_LT(r.out.find(" a "), r.out.find(" b ")) << r.out;
}

TEST_F(RnbdctlRestoreTimeouts, TheTimeoutIsANumberOfSecondsAboveZero)
{
    write_tab("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0\n");
    for (const char* bad : {"0", "-1", "x", "1s", "", "86401"}) {
        RunResult r = kernel.run({"restore", "--file", tab(), "--timeout", bad});
        EXPECT_EQ(r.code, kExitUsage) << bad;
        EXPECT_EQ(r.err, std::string("rnbdctl: restore: --timeout must be a number of seconds above 0, up to 86400 "
                                     "(e.g. 60 or 0.5), not '") +
                             bad + "'\nTry 'rnbdctl --help'.\n");
    }
    EXPECT_TRUE(kernel.writes().empty());
    RunResult r = kernel.run({"restore", "--file", tab(), "--timeout", "0.5"});
    EXPECT_EQ(r.code, 0) << r.err;
}

}  // namespace
}  // namespace rnbdctl::testing
