// Host unit tests of the RNBD wire codec: round trips, golden bytes
// (hand-computed from the Linux 6.1 layout), one test per rejection.
#include <gtest/gtest.h>

#include <algorithm>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "rnbd/core/rnbd-codec.hpp"
#include "cxxrt/tests/host/bytes.hpp"

using namespace rnbd;
using namespace rnbd::codec;
namespace err = cxxrt::err;
using namespace host;

namespace {


Bytes open_bytes(wire::AccessMode mode, const char* name, wire::IoMode io = wire::IoMode::kUnspecified)
{
    Bytes b(264, 0xcc);
    auto r = build_open(span_of(b), mode, name, io);
    EXPECT_TRUE(r.is_ok());
    return b;
}

OpenRspFields sample_open_rsp()
{
    OpenRspFields f;
    f.device_id = 0x01020304;
    f.nsectors = 0x0000001122334455ull;
    f.max_hw_sectors = 0x800;
    f.max_write_zeroes_sectors = 0;
    f.max_discard_sectors = 0x400000;
    f.discard_granularity = 4096;
    f.discard_alignment = 0;
    f.physical_block_size = 4096;
    f.logical_block_size = 512;
    f.max_segments = 128;
    f.secure_discard = 1;
    f.cache_policy = wire::kCacheWriteback | wire::kCacheFua;
    return f;
}

Bytes open_rsp_bytes(const OpenRspFields& f)
{
    Bytes b(56, 0xcc);
    auto r = build_open_rsp(span_of(b), f);
    EXPECT_TRUE(r.is_ok());
    return b;
}

IoFields sample_write()
{
    IoFields f;
    f.device_id = 1;
    f.sector = 0x0000000100000008ull;
    f.op = wire::IoOp::kWrite;
    f.flags = wire::kIoFlagSync | wire::kIoFlagFua;
    f.bi_size = 4096;
    f.prio = 0x4003;
    return f;
}

Bytes io_bytes(const IoFields& f)
{
    Bytes b(32, 0xcc);
    auto r = build_io(span_of(b), f);
    EXPECT_TRUE(r.is_ok());
    return b;
}

IoLimits io_limits(uint32_t data_len)
{
    IoLimits l;
    l.data_len = data_len;
    l.max_io_size = 128 * 1024;
    l.device_sectors = 0;
    return l;
}

}  // namespace

// =================================================================== header

TEST(RnbdType, DecodesEveryKnownType)
{
    for (uint16_t t = 0; t < 6; ++t) {
        Bytes b{uint8_t(t), 0, 0, 0};
        auto r = decode_type(cspan_of(b));
        ASSERT_TRUE(r.is_ok());
        EXPECT_EQ(uint16_t(r.value()), t);
    }
}

TEST(RnbdType, RejectsUnknownType)
{
    Bytes b{6, 0, 0, 0};
    EXPECT_EQ(error_of(decode_type(cspan_of(b))), err::kProto);
    Bytes c{0, 1, 0, 0};
    EXPECT_EQ(error_of(decode_type(cspan_of(c))), err::kProto);
}

TEST(RnbdType, RejectsShort)
{
    Bytes b{0, 0, 0};
    EXPECT_EQ(error_of(decode_type(cspan_of(b))), err::kBadMsg);
}

// ================================================================ SESS_INFO

TEST(RnbdSessInfo, RoundTripAndGolden)
{
    Bytes b(36, 0xcc);
    ASSERT_TRUE(build_sess_info(span_of(b)).is_ok());
    EXPECT_EQ(b, golden({0x00, 0x00, 0x00, 0x00, 0x02}, 36));
    auto r = decode_sess_info(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().ver, 2);
    EXPECT_EQ(r.value().negotiated, 2);
}

TEST(RnbdSessInfo, NegotiatesDownFromNewerPeer)
{
    Bytes b = golden({0x00, 0x00, 0x00, 0x00, 0x07}, 36);
    auto r = decode_sess_info(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().negotiated, 2);
    Bytes old = golden({0x00, 0x00, 0x00, 0x00, 0x01}, 36);
    EXPECT_EQ(decode_sess_info(cspan_of(old)).value().negotiated, 1);
}

TEST(RnbdSessInfo, IgnoresGarbageInPaddingAndReserved)
{
    Bytes b = golden({0x00, 0x00, 0xAB, 0xCD, 0x02}, 36);
    b[20] = 0x55;
    EXPECT_TRUE(decode_sess_info(cspan_of(b)).is_ok());
}

TEST(RnbdSessInfo, RejectsShort)
{
    Bytes b = golden({0x00, 0x00, 0x00, 0x00, 0x02}, 35);
    EXPECT_EQ(error_of(decode_sess_info(cspan_of(b))), err::kBadMsg);
}

TEST(RnbdSessInfo, RejectsWrongType)
{
    Bytes b = golden({0x01, 0x00, 0x00, 0x00, 0x02}, 36);
    EXPECT_EQ(error_of(decode_sess_info(cspan_of(b))), err::kProto);
}

TEST(RnbdSessInfo, RejectsVersionZero)
{
    Bytes b = golden({0x00, 0x00, 0x00, 0x00, 0x00}, 36);
    EXPECT_EQ(error_of(decode_sess_info(cspan_of(b))), err::kProto);
}

TEST(RnbdSessInfoRsp, RoundTripAndGolden)
{
    Bytes b(36, 0xcc);
    ASSERT_TRUE(build_sess_info_rsp(span_of(b), 2).is_ok());
    EXPECT_EQ(b, golden({0x01, 0x00, 0x00, 0x00, 0x02}, 36));
    auto r = decode_sess_info_rsp(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value(), 2);
}

TEST(RnbdSessInfoRsp, RejectsVersionAboveOurs)
{
    Bytes b = golden({0x01, 0x00, 0x00, 0x00, 0x03}, 36);
    EXPECT_EQ(error_of(decode_sess_info_rsp(cspan_of(b))), err::kProto);
}

TEST(RnbdSessInfoRsp, RejectsVersionZero)
{
    Bytes b = golden({0x01, 0x00, 0x00, 0x00, 0x00}, 36);
    EXPECT_EQ(error_of(decode_sess_info_rsp(cspan_of(b))), err::kProto);
}

TEST(RnbdSessInfoRsp, RejectsShortAndWrongType)
{
    Bytes s = golden({0x01, 0x00, 0x00, 0x00, 0x02}, 10);
    EXPECT_EQ(error_of(decode_sess_info_rsp(cspan_of(s))), err::kBadMsg);
    Bytes t = golden({0x00, 0x00, 0x00, 0x00, 0x02}, 36);
    EXPECT_EQ(error_of(decode_sess_info_rsp(cspan_of(t))), err::kProto);
}

// ===================================================================== OPEN

TEST(RnbdOpen, RoundTrip)
{
    Bytes b = open_bytes(wire::AccessMode::kMigration, "vg0/disk-1", wire::IoMode::kBlockIo);
    auto r = decode_open(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().access_mode, wire::AccessMode::kMigration);
    EXPECT_EQ(r.value().io_mode, wire::IoMode::kBlockIo);
    EXPECT_TRUE(r.value().dev_name == StringView("vg0/disk-1"));
}

TEST(RnbdOpen, Golden)
{
    Bytes b = open_bytes(wire::AccessMode::kReadWrite, "nullb0", wire::IoMode::kFileIo);
    EXPECT_EQ(b, golden({0x02, 0x00, 0x00, 0x00, 0x01, 0x02, 'n', 'u', 'l', 'l', 'b', '0'}, 264));
}

TEST(RnbdOpen, LinuxClientMessageHasNoIoMode)
{
    // What Linux 6.1's client sends for a read-only map of /dev/ram0.
    Bytes b = golden({0x02, 0x00, 0x00, 0x00, 0x00, 0x00, '/', 'd', 'e', 'v', '/', 'r', 'a', 'm', '0'}, 264);
    auto r = decode_open(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().access_mode, wire::AccessMode::kReadOnly);
    EXPECT_EQ(r.value().io_mode, wire::IoMode::kUnspecified);
    EXPECT_TRUE(r.value().dev_name == StringView("/dev/ram0"));
}

TEST(RnbdOpen, UnknownIoModeReadsAsUnspecified)
{
    Bytes b = open_bytes(wire::AccessMode::kReadOnly, "d");
    b[5] = 0x9c;
    b[261] = 0x11;  // reserved garbage is ignored too
    auto r = decode_open(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().io_mode, wire::IoMode::kUnspecified);
}

TEST(RnbdOpen, LongestNameRoundTrip)
{
    std::string name(254, 'd');
    Bytes b(264);
    ASSERT_TRUE(build_open(span_of(b), wire::AccessMode::kReadOnly, StringView(name.data(), name.size())).is_ok());
    auto r = decode_open(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().dev_name.length(), 254u);
}

TEST(RnbdOpen, RejectsShort)
{
    Bytes b = open_bytes(wire::AccessMode::kReadOnly, "d");
    b.resize(263);
    EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kBadMsg);
}

TEST(RnbdOpen, RejectsWrongType)
{
    Bytes b = open_bytes(wire::AccessMode::kReadOnly, "d");
    b[0] = 3;
    EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kProto);
}

TEST(RnbdOpen, RejectsUnknownAccessMode)
{
    Bytes b = open_bytes(wire::AccessMode::kReadOnly, "d");
    b[4] = 3;
    EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kInval);
}

TEST(RnbdOpen, RejectsUnterminatedName)
{
    Bytes b(264, 'x');
    put16(b, 0, 2);
    put16(b, 2, 0);
    b[4] = 0;
    b[5] = 0;
    b[261] = b[262] = b[263] = 0;  // NULs only after the 255-byte field
    EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kNameTooLong);
}

TEST(RnbdOpen, RejectsEmptyName)
{
    Bytes b = golden({0x02, 0x00, 0x00, 0x00, 0x00}, 264);
    EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kInval);
}

TEST(RnbdOpen, RejectsDotDotComponent)
{
    for (const char* bad : {"..", "../etc/shadow", "a/../b", "a/..", "/..", "a//../b"}) {
        Bytes b = golden({0x02, 0x00, 0x00, 0x00, 0x00, 0x00}, 264);
        memcpy(b.data() + 6, bad, strlen(bad));
        EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kInval) << bad;
    }
}

TEST(RnbdOpen, RejectsControlCharacters)
{
    for (const char* bad : {"/dev/ram0\n", "a\nb", "\x1b]0;x\x07", "/dev/\x7fram0"}) {
        Bytes b = golden({0x02, 0x00, 0x00, 0x00, 0x00, 0x00}, 264);
        memcpy(b.data() + 6, bad, strlen(bad));
        EXPECT_EQ(error_of(decode_open(cspan_of(b))), err::kInval) << bad;
    }
}

TEST(RnbdOpen, BuilderChecks)
{
    Bytes b(264);
    EXPECT_EQ(error_of(build_open(span_of(b), wire::AccessMode(3), "d")), err::kInval);
    EXPECT_EQ(error_of(build_open(span_of(b), wire::AccessMode::kReadOnly, "d", wire::IoMode(3))), err::kInval);
    EXPECT_EQ(error_of(build_open(span_of(b), wire::AccessMode::kReadOnly, "x/../y")), err::kInval);
    std::string name(255, 'd');
    EXPECT_EQ(error_of(build_open(span_of(b), wire::AccessMode::kReadOnly, StringView(name.data(), name.size()))),
              err::kNameTooLong);
    Bytes small(263);
    EXPECT_EQ(error_of(build_open(span_of(small), wire::AccessMode::kReadOnly, "d")), err::kMsgSize);
}

TEST(RnbdDevicePath, Policy)
{
    EXPECT_TRUE(check_device_path("/dev/ram0").is_ok());
    EXPECT_TRUE(check_device_path("a..b").is_ok());
    EXPECT_TRUE(check_device_path("...").is_ok());
    EXPECT_TRUE(check_device_path("./x").is_ok());
    EXPECT_TRUE(check_device_path(".hidden/..x").is_ok());
    EXPECT_EQ(error_of(check_device_path("")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("..")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("x/..")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("../x")), err::kInval);
    EXPECT_EQ(error_of(check_device_path(StringView("a\0b", 3))), err::kInval);
    // Control characters (below 0x20, and 0x7f) are refused anywhere.
    EXPECT_EQ(error_of(check_device_path("/dev/ram0\n")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("/dev/\x1b[2Jram0")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("a\tb")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("\x01")), err::kInval);
    EXPECT_EQ(error_of(check_device_path("ram\x7f")), err::kInval);
    EXPECT_TRUE(check_device_path("/dev/disk/by-label/caf\xc3\xa9 ~").is_ok());
}

// ================================================================= OPEN_RSP

TEST(RnbdOpenRsp, RoundTrip)
{
    OpenRspFields in = sample_open_rsp();
    Bytes b = open_rsp_bytes(in);
    auto r = decode_open_rsp(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    const OpenRspFields& o = r.value();
    EXPECT_EQ(o.device_id, in.device_id);
    EXPECT_EQ(o.nsectors, in.nsectors);
    EXPECT_EQ(o.max_hw_sectors, in.max_hw_sectors);
    EXPECT_EQ(o.max_write_zeroes_sectors, in.max_write_zeroes_sectors);
    EXPECT_EQ(o.max_discard_sectors, in.max_discard_sectors);
    EXPECT_EQ(o.discard_granularity, in.discard_granularity);
    EXPECT_EQ(o.discard_alignment, in.discard_alignment);
    EXPECT_EQ(o.physical_block_size, in.physical_block_size);
    EXPECT_EQ(o.logical_block_size, in.logical_block_size);
    EXPECT_EQ(o.max_segments, in.max_segments);
    EXPECT_EQ(o.secure_discard, in.secure_discard);
    EXPECT_EQ(o.cache_policy, in.cache_policy);
}

TEST(RnbdOpenRsp, Golden)
{
    Bytes expected = golden({0x03, 0x00, 0x00, 0x00,                          // hdr
                             0x04, 0x03, 0x02, 0x01,                          // device_id
                             0x55, 0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x00,  // nsectors
                             0x00, 0x08, 0x00, 0x00,                          // max_hw_sectors
                             0x00, 0x00, 0x00, 0x00,                          // max_write_zeroes
                             0x00, 0x00, 0x40, 0x00,                          // max_discard
                             0x00, 0x10, 0x00, 0x00,                          // granularity
                             0x00, 0x00, 0x00, 0x00,                          // alignment
                             0x00, 0x10,                                      // physical bs
                             0x00, 0x02,                                      // logical bs
                             0x80, 0x00,                                      // max_segments
                             0x01, 0x00,                                      // secure_discard
                             0x00,                                            // rotational
                             0x03},                                           // cache policy
                            56);
    EXPECT_EQ(open_rsp_bytes(sample_open_rsp()), expected);
}

TEST(RnbdOpenRsp, RejectsShort)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    b.resize(55);
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kBadMsg);
}

TEST(RnbdOpenRsp, RejectsWrongType)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    b[0] = 2;
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kProto);
}

TEST(RnbdOpenRsp, RejectsBadLogicalBlockSize)
{
    for (uint16_t bad : {0, 256, 768, 1000}) {
        Bytes b = open_rsp_bytes(sample_open_rsp());
        put16(b, 38, bad);
        EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kInval) << bad;
    }
}

TEST(RnbdOpenRsp, RejectsBadPhysicalBlockSize)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    put16(b, 36, 3000);
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kInval);
    put16(b, 36, 4096);
    put16(b, 38, 8192);  // physical smaller than logical
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kInval);
}

TEST(RnbdOpenRsp, RejectsZeroMaxHwSectors)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    put32(b, 16, 0);
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kInval);
}

TEST(RnbdOpenRsp, RejectsZeroMaxSegments)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    put16(b, 40, 0);
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kInval);
}

TEST(RnbdOpenRsp, RejectsSizeOverflow)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    put64(b, 8, (~0ull >> 9) + 1);
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kRange);
}

TEST(RnbdOpenRsp, RejectsUnknownCachePolicy)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    b[45] = 0x04;
    EXPECT_EQ(error_of(decode_open_rsp(cspan_of(b))), err::kProto);
}

TEST(RnbdOpenRsp, IgnoresRotationalAndReserved)
{
    Bytes b = open_rsp_bytes(sample_open_rsp());
    b[44] = 1;
    b[50] = 0x77;
    EXPECT_TRUE(decode_open_rsp(cspan_of(b)).is_ok());
}

// ==================================================================== CLOSE

TEST(RnbdClose, RoundTripAndGolden)
{
    Bytes b(8, 0xcc);
    ASSERT_TRUE(build_close(span_of(b), 0x11223344).is_ok());
    EXPECT_EQ(b, (Bytes{0x05, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22, 0x11}));
    auto r = decode_close(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value(), 0x11223344u);
}

TEST(RnbdClose, RejectsShort)
{
    Bytes b{0x05, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22};
    EXPECT_EQ(error_of(decode_close(cspan_of(b))), err::kBadMsg);
}

TEST(RnbdClose, RejectsWrongType)
{
    Bytes b{0x04, 0x00, 0x00, 0x00, 0x44, 0x33, 0x22, 0x11};
    EXPECT_EQ(error_of(decode_close(cspan_of(b))), err::kProto);
}

// ======================================================================= IO

TEST(RnbdIo, RoundTrip)
{
    IoFields in = sample_write();
    Bytes b = io_bytes(in);
    auto r = decode_io(cspan_of(b), io_limits(4096));
    ASSERT_TRUE(r.is_ok());
    const IoFields& o = r.value();
    EXPECT_EQ(o.device_id, 1u);
    EXPECT_EQ(o.sector, in.sector);
    EXPECT_EQ(o.op, wire::IoOp::kWrite);
    EXPECT_EQ(o.flags, uint32_t(wire::kIoFlagSync | wire::kIoFlagFua));
    EXPECT_EQ(o.bi_size, 4096u);
    EXPECT_EQ(o.prio, 0x4003);
}

// One fetch (Documentation/security.md): the IO header lies in a chunk the
// client can still write; the decoded fields are values, so changing the
// source after decoding moves none of them. The IO limit is the chunk:
// a bi_size above max_io_size is refused even when it equals data_len.
TEST(RnbdIoOneFetch, DecodedFieldsAreCopies)
{
    IoFields in = sample_write();
    Bytes b = io_bytes(in);
    auto r = decode_io(cspan_of(b), io_limits(4096));
    ASSERT_TRUE(r.is_ok());
    std::fill(b.begin(), b.end(), uint8_t(0xff));
    const IoFields& o = r.value();
    EXPECT_EQ(o.device_id, 1u);
    EXPECT_EQ(o.sector, in.sector);
    EXPECT_EQ(o.op, wire::IoOp::kWrite);
    EXPECT_EQ(o.bi_size, 4096u);
    EXPECT_EQ(o.prio, 0x4003);
}

TEST(RnbdIoOneFetch, NoIoLargerThanTheChunk)
{
    IoFields in = sample_write();
    in.bi_size = 256 * 1024;
    Bytes b = io_bytes(in);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(256 * 1024))), err::kInval);
    in.bi_size = 128 * 1024;
    b = io_bytes(in);
    EXPECT_TRUE(decode_io(cspan_of(b), io_limits(128 * 1024)).is_ok());
}

TEST(RnbdOpenRspOneFetch, DecodedFieldsAreCopies)
{
    OpenRspFields in = sample_open_rsp();
    Bytes b = open_rsp_bytes(in);
    auto r = decode_open_rsp(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    std::fill(b.begin(), b.end(), uint8_t(0));
    EXPECT_EQ(r.value().device_id, in.device_id);
    EXPECT_EQ(r.value().nsectors, in.nsectors);
    EXPECT_EQ(r.value().logical_block_size, in.logical_block_size);
}

TEST(RnbdIo, Golden)
{
    Bytes expected{0x04, 0x00, 0x00, 0x00,                          // hdr
                   0x01, 0x00, 0x00, 0x00,                          // device_id
                   0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // sector
                   0x01, 0x03, 0x00, 0x00,                          // rw: WRITE|SYNC|FUA
                   0x00, 0x10, 0x00, 0x00,                          // bi_size
                   0x03, 0x40,                                      // prio
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00};             // tail padding
    EXPECT_EQ(io_bytes(sample_write()), expected);
}

TEST(RnbdIo, EveryServedOpRoundTrips)
{
    struct Case {
        wire::IoOp op;
        uint32_t bi_size;
        uint32_t data_len;
    };
    for (Case c : {Case{wire::IoOp::kRead, 8192, 8192}, Case{wire::IoOp::kWrite, 512, 512},
                   Case{wire::IoOp::kFlush, 0, 0}, Case{wire::IoOp::kDiscard, 1u << 30, 0},
                   Case{wire::IoOp::kSecureErase, 4096, 0}, Case{wire::IoOp::kWriteZeroes, 1u << 20, 0}}) {
        IoFields f;
        f.device_id = 9;
        f.sector = 100;
        f.op = c.op;
        f.bi_size = c.bi_size;
        Bytes b = io_bytes(f);
        auto r = decode_io(cspan_of(b), io_limits(c.data_len));
        ASSERT_TRUE(r.is_ok()) << int(c.op);
        EXPECT_EQ(r.value().op, c.op);
        EXPECT_EQ(r.value().bi_size, c.bi_size);
    }
}

TEST(RnbdIo, Version1MessageHasNoPrio)
{
    Bytes b = io_bytes(sample_write());
    b.resize(24);
    auto r = decode_io(cspan_of(b), io_limits(4096));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().prio, 0);
}

TEST(RnbdIo, Version1SessionIgnoresPrio)
{
    Bytes b = io_bytes(sample_write());
    IoLimits l = io_limits(4096);
    l.session_ver = 1;
    auto r = decode_io(cspan_of(b), l);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().prio, 0);
}

TEST(RnbdIo, IgnoresHeaderPaddingAndTailGarbage)
{
    Bytes b = io_bytes(sample_write());
    b[2] = 0xAA;
    b[3] = 0xBB;
    b[30] = 0x99;
    EXPECT_TRUE(decode_io(cspan_of(b), io_limits(4096)).is_ok());
}

TEST(RnbdIo, RejectsShort)
{
    Bytes b = io_bytes(sample_write());
    b.resize(23);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kBadMsg);
}

TEST(RnbdIo, RejectsWrongType)
{
    Bytes b = io_bytes(sample_write());
    b[0] = 5;
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kProto);
}

TEST(RnbdIo, RejectsUnknownOp)
{
    Bytes b = io_bytes(sample_write());
    put32(b, 16, 6);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kProto);
    put32(b, 16, 0xff);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kProto);
}

// Op 5: 6.1's never-used WRITE_SAME, 6.12's WRITE_ZEROES: a range and no
// data, like DISCARD (whether the device offered it is the policy's).
TEST(RnbdIo, WriteZeroesCarriesARangeAndNoData)
{
    IoFields f = sample_write();
    f.op = wire::IoOp::kWriteZeroes;
    f.flags = 0;
    f.bi_size = 1u << 20;
    Bytes b = io_bytes(f);
    EXPECT_EQ(b[16], 5);
    auto r = decode_io(cspan_of(b), io_limits(0));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().op, wire::IoOp::kWriteZeroes);
    EXPECT_EQ(r.value().bi_size, 1u << 20);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kInval);  // data with it
    f.bi_size = 0;
    b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(0))), err::kInval);  // no range
}

TEST(RnbdIo, RejectsUnknownFlags)
{
    Bytes b = io_bytes(sample_write());
    put32(b, 16, 1 | (1u << 10));
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kProto);
    put32(b, 16, 1 | (1u << 31));
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kProto);
}

TEST(RnbdIo, RejectsSizeNotSectorMultiple)
{
    Bytes b = io_bytes(sample_write());
    put32(b, 20, 4097);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4097))), err::kInval);
}

TEST(RnbdIo, RejectsSizeDifferentFromData)
{
    Bytes b = io_bytes(sample_write());
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(8192))), err::kInval);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(0))), err::kInval);
}

TEST(RnbdIo, RejectsZeroSizeReadWrite)
{
    IoFields f = sample_write();
    f.bi_size = 0;
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(0))), err::kInval);
}

TEST(RnbdIo, RejectsSizeAboveMaxIo)
{
    IoFields f = sample_write();
    f.bi_size = 256 * 1024;
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(256 * 1024))), err::kInval);
}

TEST(RnbdIo, RejectsDiscardWithData)
{
    IoFields f = sample_write();
    f.op = wire::IoOp::kDiscard;
    f.flags = 0;
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kInval);
}

TEST(RnbdIo, RejectsZeroSizeDiscard)
{
    IoFields f = sample_write();
    f.op = wire::IoOp::kDiscard;
    f.bi_size = 0;
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(0))), err::kInval);
}

TEST(RnbdIo, RejectsFlushWithPayload)
{
    IoFields f = sample_write();
    f.op = wire::IoOp::kFlush;
    f.bi_size = 512;
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(0))), err::kInval);
    f.bi_size = 0;
    Bytes c = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(c), io_limits(512))), err::kInval);
}

TEST(RnbdIo, RejectsSectorOverflow)
{
    IoFields f = sample_write();
    f.sector = ~0ull - 3;  // + 8 sectors wraps
    Bytes b = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(b), io_limits(4096))), err::kRange);
    f.sector = (~0ull >> 9) - 2;  // end beyond what a byte offset can hold
    Bytes c = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(c), io_limits(4096))), err::kRange);
}

TEST(RnbdIo, RejectsRangeBeyondDevice)
{
    IoFields f = sample_write();
    f.sector = 1000 - 8;
    Bytes b = io_bytes(f);
    IoLimits l = io_limits(4096);
    l.device_sectors = 1000;
    EXPECT_TRUE(decode_io(cspan_of(b), l).is_ok());
    f.sector = 1000 - 7;
    Bytes c = io_bytes(f);
    EXPECT_EQ(error_of(decode_io(cspan_of(c), l)), err::kRange);
}

TEST(RnbdIo, BuilderChecks)
{
    Bytes b(32);
    IoFields f = sample_write();
    f.flags = 1u << 12;
    EXPECT_EQ(error_of(build_io(span_of(b), f)), err::kInval);
    f = sample_write();
    f.op = wire::IoOp(6);
    EXPECT_EQ(error_of(build_io(span_of(b), f)), err::kInval);
    Bytes small(31);
    EXPECT_EQ(error_of(build_io(span_of(small), sample_write())), err::kMsgSize);
}

TEST(RnbdWire, SizesMatchLinux61)
{
    EXPECT_EQ(sizeof(wire::MsgHdr), 4u);
    EXPECT_EQ(sizeof(wire::SessInfoMsg), 36u);
    EXPECT_EQ(sizeof(wire::SessInfoRspMsg), 36u);
    EXPECT_EQ(sizeof(wire::OpenMsg), 264u);
    EXPECT_EQ(sizeof(wire::CloseMsg), 8u);
    EXPECT_EQ(sizeof(wire::OpenRspMsg), 56u);
    EXPECT_EQ(sizeof(wire::IoMsg), 32u);
}

// --- validate_open_rsp: the client's limits on OPEN_RSP --------------------------

namespace {
OpenRspFields good_open_rsp()
{
    OpenRspFields f;
    f.device_id = 1;
    f.nsectors = 2048;
    f.max_hw_sectors = 256;
    f.logical_block_size = 512;
    f.physical_block_size = 4096;
    f.max_segments = 128;
    f.max_discard_sectors = 1024;
    f.discard_granularity = 4096;
    return f;
}
int open_rsp_code(const OpenRspFields& f)
{
    auto r = validate_open_rsp(f, 4096);
    return r ? 0 : r.error().code();
}
}  // namespace

TEST(ValidateOpenRsp, AcceptsWellBehavedServers)
{
    EXPECT_EQ(open_rsp_code(good_open_rsp()), 0);
    OpenRspFields f = good_open_rsp();
    f.max_discard_sectors = 0;  // no discard: granularity does not matter
    f.discard_granularity = 0;
    EXPECT_EQ(open_rsp_code(f), 0);
    f = good_open_rsp();
    f.logical_block_size = 4096;
    EXPECT_EQ(open_rsp_code(f), 0);
}

TEST(ValidateOpenRsp, RefusesBadBlockSizes)
{
    for (u32 lbs : {0u, 256u, 511u, 513u, 1000u, 8192u, 32768u}) {
        OpenRspFields f = good_open_rsp();
        f.logical_block_size = u16(lbs);
        f.physical_block_size = 32768;
        EXPECT_EQ(open_rsp_code(f), err::kInval) << lbs;
    }
    OpenRspFields f = good_open_rsp();
    f.physical_block_size = 256;  // below logical
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f.physical_block_size = 3072;  // not a power of two
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    // 32 KiB logical blocks are fine on 64 KiB pages only.
    f = good_open_rsp();
    f.logical_block_size = 32768;
    f.physical_block_size = 32768;
    f.max_hw_sectors = 64;
    f.discard_granularity = 32768;
    EXPECT_EQ(validate_open_rsp(f, 65536).error().code(), err::kInval);  // max_hw_sectors below a 64 KiB page
    f.max_hw_sectors = 128;
    EXPECT_TRUE(validate_open_rsp(f, 65536));
}

TEST(ValidateOpenRsp, RefusesBadDiscard)
{
    OpenRspFields f = good_open_rsp();
    f.discard_granularity = 0;
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f.discard_granularity = 100;  // not a multiple of the logical block
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f.discard_granularity = 4096;
    f.discard_alignment = 4096;
    EXPECT_EQ(open_rsp_code(f), err::kInval);
}

TEST(ValidateOpenRsp, RefusesBadSegmentsSectorsAndSize)
{
    OpenRspFields f = good_open_rsp();
    f.max_segments = 0;
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f = good_open_rsp();
    f.max_hw_sectors = 0;
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f.max_hw_sectors = 7;  // below one page
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f = good_open_rsp();
    f.nsectors = (uint64_t(INT64_MAX) >> 9) + 1;  // bytes beyond loff_t
    EXPECT_EQ(open_rsp_code(f), err::kInval);
    f.nsectors = uint64_t(INT64_MAX) >> 9;
    EXPECT_EQ(open_rsp_code(f), 0);
    f.cache_policy = 0x80;
    EXPECT_EQ(open_rsp_code(f), err::kProto);
}
