// Sizes in tables (issue 27, item 5): binary units with one decimal
// ("1.0 GiB") for people, the exact number of bytes with --bytes; JSON and
// Prometheus always give exact bytes.
#include <gtest/gtest.h>

#include "tools/rnbdctl/context.hpp"
#include "tools/rnbdctl/model.hpp"
#include "tools/rnbdctl/table.hpp"
#include "tools/rnbdctl/tests/fake-kernel.hpp"
#include "tools/rnbdctl/tests/json-parse.hpp"

namespace rnbdctl::testing {
namespace {

class RnbdctlSizes : public ::testing::Test {
protected:
    void SetUp() override
    {
        kernel.load_client();
        kernel.load_server();
        kernel.map("sessname=s1 path=ip:192.0.2.1 device_path=/dev/ram0");  // rnbd0
        kernel.file("block/rnbd0/size", "2097152\n");                        // sectors: 1 GiB
        kernel.add_export("ram0", "s1", "/dev/ram0", "ip:192.0.2.5");
    }
    FakeKernel kernel;
};

TEST_F(RnbdctlSizes, TablesShowBinaryUnitsAndBytesGivesTheExactNumber)
{
    RunResult r = kernel.run({"list"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out,
              "DEVICE      SESSION  DEVICE_PATH  ACCESS  IO_MODE  STATE  SIZE\n"
              "/dev/rnbd0  s1       /dev/ram0    rw      blockio  open   1.0 GiB\n");
    // --bytes is a global option: before or after the command.
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--bytes", "list"}, std::vector<std::string>{"list", "--bytes"}}) {
        r = kernel.run(args);
        EXPECT_EQ(r.code, 0) << r.err;
        EXPECT_EQ(r.out,
                  "DEVICE      SESSION  DEVICE_PATH  ACCESS  IO_MODE  STATE  SIZE\n"
                  "/dev/rnbd0  s1       /dev/ram0    rw      blockio  open   1073741824\n");
    }
    r = kernel.run({"show", "rnbd0"});
    EXPECT_NE(r.out.find("size:           1.0 GiB (1073741824 bytes, 2097152 sectors)\n"), std::string::npos)
        << r.out;
    // The path counters (stats/rdma: 40960 bytes read, 20480 written).
    EXPECT_NE(r.out.find("  40.0 KiB    5       20.0 KiB     2 "), std::string::npos) << r.out;
    r = kernel.run({"show", "--bytes", "rnbd0"});
    EXPECT_NE(r.out.find("size:           1073741824 bytes (2097152 sectors)\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  40960       5       20480        2 "), std::string::npos) << r.out;
    r = kernel.run({"stats"});
    EXPECT_NE(r.out.find("  12.0 KiB    4       16.0 KiB     0"), std::string::npos) << r.out;  // server side
    r = kernel.run({"stats", "--bytes"});
    EXPECT_NE(r.out.find("  12288       4       16384        0"), std::string::npos) << r.out;
}

TEST_F(RnbdctlSizes, JsonAndPrometheusKeepExactBytes)
{
    RunResult r = kernel.run({"-o", "json", "list"});
    EXPECT_EQ(r.code, 0) << r.err;
    JsonValue doc;
    std::string error;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error;
    EXPECT_EQ(doc.text("devices.0.size_bytes"), "1073741824");
    r = kernel.run({"--bytes", "-o", "json", "list"});  // accepted, changes nothing
    EXPECT_EQ(r.code, 0) << r.err;
    ASSERT_TRUE(parse_json(r.out, doc, error)) << error;
    EXPECT_EQ(doc.text("devices.0.size_bytes"), "1073741824");
    r = kernel.run({"stats", "-o", "prometheus"});
    EXPECT_NE(r.out.find("rnbd_client_device_size_bytes{device=\"rnbd0\"} 1073741824\n"), std::string::npos);
}

TEST(RnbdctlSizeCells, RoundToOneDecimalInBinaryUnits)
{
    const std::pair<int64_t, const char*> cases[] = {
        {0, "0 B"},
        {1023, "1023 B"},
        {1024, "1.0 KiB"},
        {1536, "1.5 KiB"},
        {67108864, "64.0 MiB"},
        {1048575, "1.0 MiB"},  // 1023.999 KiB rounds up into the next unit
        {1073741824, "1.0 GiB"},
        {5497558138880, "5.0 TiB"},
        {INT64_MAX, "8.0 EiB"},
    };
    for (const auto& [bytes, text] : cases)
        EXPECT_EQ(size_cell(bytes, Sizes::kHuman), text) << bytes;
    EXPECT_EQ(size_cell(1536, Sizes::kBytes), "1536");
    EXPECT_EQ(size_cell(kUnknown, Sizes::kHuman), "-");
    EXPECT_EQ(size_cell(kUnknown, Sizes::kBytes), "-");
}

}  // namespace
}  // namespace rnbdctl::testing
