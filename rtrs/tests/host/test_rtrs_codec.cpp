// Host unit tests of the RTRS wire codec: round trips, golden bytes
// (hand-computed from the Linux 6.1 layout, independent of our structs),
// and one test per rejected malformation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "rtrs/core/rtrs-codec.hpp"
#include "cxxrt/tests/host/bytes.hpp"

using namespace rtrs;
using namespace rtrs::codec;
namespace err = cxxrt::err;
using namespace host;

namespace {

wire::Uuid uuid_from(uint8_t first)
{
    wire::Uuid u{};
    for (int i = 0; i < 16; ++i)
        u.bytes[i] = uint8_t(first + i);
    return u;
}

ConnReqFields sample_conn_req()
{
    ConnReqFields f;
    f.cid = 3;
    f.cid_num = 5;
    f.recon_cnt = 0x0102;
    f.sess_uuid = uuid_from(0x10);
    f.paths_uuid = uuid_from(0x20);
    f.first_conn = true;
    return f;
}

Bytes conn_req_bytes(const ConnReqFields& f)
{
    Bytes b(56);
    auto r = build_conn_req(span_of(b), f);
    EXPECT_TRUE(r.is_ok());
    return b;
}

ConnRspFields sample_conn_rsp()
{
    ConnRspFields f;
    f.queue_depth = 512;
    f.max_io_size = 128 * 1024 - 4096;
    f.max_hdr_size = 4096;
    f.flags = wire::kMsgFlagNewRkey;
    return f;
}

Bytes conn_rsp_bytes(const ConnRspFields& f)
{
    Bytes b(56);
    auto r = build_conn_rsp(span_of(b), f);
    EXPECT_TRUE(r.is_ok());
    return b;
}

constexpr uint32_t kChunk = 128 * 1024;
constexpr uint32_t kQd = 512;

InfoRspLimits info_limits()
{
    InfoRspLimits l;
    l.queue_depth = kQd;
    l.chunk_size = kChunk;
    l.max_descs = kQd;
    return l;
}

Bytes info_rsp_bytes(const std::vector<SgEntry>& descs)
{
    Bytes b(8 + 16 * descs.size());
    auto r = build_info_rsp(span_of(b), Span<const SgEntry>(descs.data(), descs.size()));
    EXPECT_TRUE(r.is_ok());
    return b;
}

std::vector<SgEntry> two_halves()
{
    return {SgEntry{0x100000000ull, 0x11, kChunk * (kQd / 2)},
            SgEntry{0x900000000ull, 0x22, kChunk * (kQd / 2)}};
}


ChunkGeometry geometry(uint32_t qd = kQd, uint32_t chunk = kChunk)
{
    auto g = make_chunk_geometry(qd, chunk);
    EXPECT_TRUE(g.is_ok());
    return g.value();
}

}  // namespace

// ===================================================================== CON_REQ

TEST(RtrsConnReq, RoundTrip)
{
    const ConnReqFields in = sample_conn_req();
    Bytes b = conn_req_bytes(in);
    auto r = decode_conn_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    const ConnReqFields& out = r.value();
    EXPECT_EQ(out.version, wire::kVersion);
    EXPECT_EQ(out.cid, 3);
    EXPECT_EQ(out.cid_num, 5);
    EXPECT_EQ(out.recon_cnt, 0x0102);
    EXPECT_EQ(0, memcmp(out.sess_uuid.bytes, in.sess_uuid.bytes, 16));
    EXPECT_EQ(0, memcmp(out.paths_uuid.bytes, in.paths_uuid.bytes, 16));
    EXPECT_TRUE(out.first_conn);
}

TEST(RtrsConnReq, Golden)
{
    Bytes expected = golden({0x00, 0x00, 0xBD, 0x1B, 0x00, 0x02, 0x03, 0x00, 0x05, 0x00, 0x02, 0x01,
                             0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b,
                             0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
                             0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x01},
                            56);
    EXPECT_EQ(conn_req_bytes(sample_conn_req()), expected);
}

TEST(RtrsConnReq, NotFirstConnectionClearsBit)
{
    ConnReqFields f = sample_conn_req();
    f.first_conn = false;
    Bytes b = conn_req_bytes(f);
    EXPECT_EQ(b[44], 0);
    auto r = decode_conn_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_FALSE(r.value().first_conn);
}

TEST(RtrsConnReq, KeyAfterDataIsBitOne)
{
    ConnReqFields f = sample_conn_req();
    f.key_after_data = true;
    Bytes b = conn_req_bytes(f);
    EXPECT_EQ(b[44], wire::kConnReqFirstConnection | wire::kConnReqKeyAfterData);
    auto r = decode_conn_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_TRUE(r.value().key_after_data);
    EXPECT_TRUE(r.value().first_conn);
    // Linux's client leaves the bit clear.
    auto plain = decode_conn_req(cspan_of(conn_req_bytes(sample_conn_req())));
    ASSERT_TRUE(plain.is_ok());
    EXPECT_FALSE(plain.value().key_after_data);
}

TEST(RtrsConnReq, AcceptsPaddedPrivateDataAndCmaBytes)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    b[0] = 0x04;  // the CM may rewrite the first bytes
    b.resize(92, 0xee);
    EXPECT_TRUE(decode_conn_req(cspan_of(b)).is_ok());
}

TEST(RtrsConnReq, RejectsShort)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    b.resize(55);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kBadMsg);
    EXPECT_EQ(error_of(decode_conn_req(ConstByteSpan())), err::kBadMsg);
}

TEST(RtrsConnReq, RejectsBadMagic)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    b[2] = 0xBC;
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kProto);
}

TEST(RtrsConnReq, RejectsOtherMajorVersion)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    put16(b, 4, 0x0300);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kProto);
    put16(b, 4, 0x0105);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kProto);
}

TEST(RtrsConnReq, AcceptsOtherMinorVersion)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    put16(b, 4, 0x0207);
    auto r = decode_conn_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().version, 0x0207);
}

TEST(RtrsConnReq, RejectsCidNotBelowCidNum)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    put16(b, 6, 5);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kInval);
}

TEST(RtrsConnReq, RejectsZeroCidNum)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    put16(b, 6, 0);
    put16(b, 8, 0);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kInval);
}

TEST(RtrsConnReq, RejectsTooManyConnections)
{
    Bytes b = conn_req_bytes(sample_conn_req());
    put16(b, 8, 4097);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b))), err::kInval);
    ConnReqLimits tight;
    tight.max_connections = 4;
    put16(b, 8, 5);
    EXPECT_EQ(error_of(decode_conn_req(cspan_of(b), tight)), err::kInval);
}

TEST(RtrsConnReq, BuilderChecks)
{
    Bytes small(55);
    EXPECT_EQ(error_of(build_conn_req(span_of(small), sample_conn_req())), err::kMsgSize);
    Bytes b(56);
    ConnReqFields f = sample_conn_req();
    f.cid = 5;
    EXPECT_EQ(error_of(build_conn_req(span_of(b), f)), err::kInval);
}

// ===================================================================== CON_RSP

TEST(RtrsConnRsp, RoundTrip)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    auto r = decode_conn_rsp(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().queue_depth, 512);
    EXPECT_EQ(r.value().max_io_size, 128u * 1024 - 4096);
    EXPECT_EQ(r.value().max_hdr_size, 4096u);
    EXPECT_EQ(r.value().flags, uint32_t(wire::kMsgFlagNewRkey));
    EXPECT_EQ(r.value().chunk_size(), 128u * 1024);
}

TEST(RtrsConnRsp, Golden)
{
    Bytes expected = golden({0xBD, 0x1B, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0xF0, 0x01, 0x00, 0x00,
                             0x10, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00},
                            56);
    EXPECT_EQ(conn_rsp_bytes(sample_conn_rsp()), expected);
}

TEST(RtrsConnRsp, RejectGolden)
{
    Bytes b(56);
    ASSERT_TRUE(build_conn_reject(span_of(b), -16).is_ok());
    EXPECT_EQ(b, golden({0xBD, 0x1B, 0x00, 0x02, 0xF0, 0xFF}, 56));
    auto r = decode_conn_reject(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value(), -16);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kConnReset);
}

TEST(RtrsConnRsp, RejectDecoderRejectsMalformed)
{
    Bytes b(56);
    ASSERT_TRUE(build_conn_reject(span_of(b), -16).is_ok());
    Bytes shortb(b.begin(), b.begin() + 40);
    EXPECT_EQ(error_of(decode_conn_reject(cspan_of(shortb))), err::kBadMsg);
    Bytes badmagic = b;
    badmagic[0] = 0;
    EXPECT_EQ(error_of(decode_conn_reject(cspan_of(badmagic))), err::kProto);
    Bytes positive = b;
    put16(positive, 4, 16);
    EXPECT_EQ(error_of(decode_conn_reject(cspan_of(positive))), err::kBadMsg);
    EXPECT_EQ(error_of(build_conn_reject(span_of(b), 5)), err::kInval);
}

TEST(RtrsConnRsp, RejectsShort)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    b.resize(20);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kBadMsg);
}

TEST(RtrsConnRsp, RejectsBadMagic)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    b[1] = 0;
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kProto);
}

TEST(RtrsConnRsp, RejectsOtherMajorVersion)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put16(b, 2, 0x0100);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kProto);
}

TEST(RtrsConnRsp, RejectsZeroQueueDepth)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put16(b, 6, 0);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kInval);
}

TEST(RtrsConnRsp, RejectsZeroSizes)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put32(b, 8, 0);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kInval);
    b = conn_rsp_bytes(sample_conn_rsp());
    put32(b, 12, 0);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kInval);
}

TEST(RtrsConnRsp, RejectsChunkSizeOverflow)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put32(b, 8, 0xFFFFF000u);
    put32(b, 12, 0x2000u);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kInval);
}

TEST(RtrsConnRsp, RejectsGeometryBeyondImmediate)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put16(b, 6, 65535);  // 16 bits of chunk id + 17 bits of offset > 28
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kInval);
}

TEST(RtrsConnRsp, RejectsUnknownFlags)
{
    Bytes b = conn_rsp_bytes(sample_conn_rsp());
    put32(b, 16, 0x6);
    EXPECT_EQ(error_of(decode_conn_rsp(cspan_of(b))), err::kProto);
}

TEST(RtrsConnRsp, BuilderChecks)
{
    Bytes b(56);
    ConnRspFields f = sample_conn_rsp();
    f.queue_depth = 0;
    EXPECT_EQ(error_of(build_conn_rsp(span_of(b), f)), err::kInval);
    f = sample_conn_rsp();
    f.flags = 0x80;
    EXPECT_EQ(error_of(build_conn_rsp(span_of(b), f)), err::kInval);
    Bytes small(10);
    EXPECT_EQ(error_of(build_conn_rsp(span_of(small), sample_conn_rsp())), err::kMsgSize);
}

// ==================================================================== INFO_REQ

TEST(RtrsInfoReq, RoundTrip)
{
    Bytes b(272);
    ASSERT_TRUE(build_info_req(span_of(b), "client-path_1").is_ok());
    auto r = decode_info_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_TRUE(r.value().pathname == StringView("client-path_1"));
}

TEST(RtrsInfoReq, Golden)
{
    Bytes b(272, 0xcc);
    auto n = build_info_req(span_of(b), "clt1");
    ASSERT_TRUE(n.is_ok());
    EXPECT_EQ(n.value(), 272u);
    EXPECT_EQ(b, golden({0x00, 0x00, 'c', 'l', 't', '1'}, 272));
}

TEST(RtrsInfoReq, MaximalNameRoundTrip)
{
    std::string name(254, 'n');
    Bytes b(272);
    ASSERT_TRUE(build_info_req(span_of(b), StringView(name.data(), name.size())).is_ok());
    auto r = decode_info_req(cspan_of(b));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().pathname.length(), 254u);
}

TEST(RtrsInfoReq, RejectsShort)
{
    Bytes b(271);
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kBadMsg);
}

TEST(RtrsInfoReq, RejectsWrongType)
{
    Bytes b(272);
    ASSERT_TRUE(build_info_req(span_of(b), "x").is_ok());
    b[0] = 1;
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kProto);
}

TEST(RtrsInfoReq, RejectsUnterminatedName)
{
    Bytes b(272, 'a');
    put16(b, 0, 0);
    for (size_t i = 257; i < 272; ++i)
        b[i] = 0;  // a NUL in reserved does not count
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kNameTooLong);
}

TEST(RtrsInfoReq, RejectsEmptyName)
{
    Bytes b(272, 0);
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kInval);
}

TEST(RtrsInfoReq, RejectsSlashAndDot)
{
    Bytes b = golden({0x00, 0x00, 'a', '/', 'b'}, 272);
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kInval);
    b = golden({0x00, 0x00, 'a', '.', 'b'}, 272);
    EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kInval);
}

TEST(RtrsInfoReq, RejectsControlCharacters)
{
    for (const char c : {'\n', '\r', '\t', '\x1b', '\x01', '\x1f', '\x7f'}) {
        Bytes b = golden({0x00, 0x00, 'a', u8(c), 'b'}, 272);
        EXPECT_EQ(error_of(decode_info_req(cspan_of(b))), err::kInval) << int(c);
    }
    // Bytes above 0x7f are not control characters (UTF-8 names stay valid).
    Bytes b = golden({0x00, 0x00, 'a', 0xc3, 0xa9, ' ', '~'}, 272);
    EXPECT_TRUE(decode_info_req(cspan_of(b)).is_ok());
}

TEST(RtrsPathName, Policy)
{
    EXPECT_TRUE(check_path_name("clt-1_a b~").is_ok());
    EXPECT_EQ(error_of(check_path_name("a\nb")), err::kInval);
    EXPECT_EQ(error_of(check_path_name("a\x7f")), err::kInval);
    EXPECT_EQ(error_of(check_path_name("\x1b[2J")), err::kInval);
    EXPECT_EQ(error_of(check_path_name(StringView("a\0b", 3))), err::kInval);
    EXPECT_EQ(error_of(check_path_name("a/b")), err::kInval);
    EXPECT_EQ(error_of(check_path_name("a.b")), err::kInval);
}

TEST(RtrsInfoReq, BuilderChecks)
{
    Bytes b(272);
    std::string longname(255, 'x');
    EXPECT_EQ(error_of(build_info_req(span_of(b), StringView(longname.data(), longname.size()))), err::kNameTooLong);
    EXPECT_EQ(error_of(build_info_req(span_of(b), "")), err::kInval);
    EXPECT_EQ(error_of(build_info_req(span_of(b), "a.b")), err::kInval);
    EXPECT_EQ(error_of(build_info_req(span_of(b), "a\nb")), err::kInval);
    Bytes small(100);
    EXPECT_EQ(error_of(build_info_req(span_of(small), "ok")), err::kMsgSize);
}

// ==================================================================== INFO_RSP

TEST(RtrsInfoRsp, RoundTrip)
{
    auto descs = two_halves();
    Bytes b = info_rsp_bytes(descs);
    auto r = decode_info_rsp(cspan_of(b), info_limits());
    ASSERT_TRUE(r.is_ok());
    ASSERT_EQ(r.value().sg_cnt, 2);
    EXPECT_EQ(r.value().desc(0), descs[0]);
    EXPECT_EQ(r.value().desc(1), descs[1]);

    auto c = info_rsp_chunk(r.value(), kChunk, 257);
    ASSERT_TRUE(c.is_ok());
    EXPECT_EQ(c.value().addr, 0x900000000ull + kChunk);
    EXPECT_EQ(c.value().key, 0x22u);
    EXPECT_EQ(error_of(info_rsp_chunk(r.value(), kChunk, kQd)), err::kInval);
}

TEST(RtrsInfoRsp, Golden)
{
    std::vector<SgEntry> one{SgEntry{0x1122334455667788ull, 0xAABBCCDDu, 0x00010000u}};
    Bytes b = info_rsp_bytes(one);
    Bytes expected{0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x88, 0x77, 0x66, 0x55,
                   0x44, 0x33, 0x22, 0x11, 0xDD, 0xCC, 0xBB, 0xAA, 0x00, 0x00, 0x01, 0x00};
    EXPECT_EQ(b, expected);
}

TEST(RtrsInfoRsp, RejectsShortHeader)
{
    Bytes b{0x01, 0x00, 0x01};
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kBadMsg);
}

TEST(RtrsInfoRsp, RejectsWrongType)
{
    Bytes b = info_rsp_bytes(two_halves());
    b[0] = 0;
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kProto);
}

TEST(RtrsInfoRsp, RejectsZeroDescriptors)
{
    Bytes b = info_rsp_bytes(two_halves());
    put16(b, 2, 0);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsCountBeyondBuffer)
{
    Bytes b = info_rsp_bytes(two_halves());
    put16(b, 2, 3);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kBadMsg);
}

TEST(RtrsInfoRsp, RejectsCountBeyondLimit)
{
    Bytes b = info_rsp_bytes(two_halves());
    InfoRspLimits l = info_limits();
    l.max_descs = 1;
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), l)), err::kInval);
}

TEST(RtrsInfoRsp, RejectsQueueDepthNotMultiple)
{
    std::vector<SgEntry> d{SgEntry{0, 1, kChunk * 170}, SgEntry{0x10000000, 1, kChunk * 171},
                           SgEntry{0x20000000, 1, kChunk * 171}};
    Bytes b = info_rsp_bytes(d);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsZeroLength)
{
    auto d = two_halves();
    d[1].len = 0;
    Bytes b = info_rsp_bytes(d);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsLengthNotChunkMultiple)
{
    auto d = two_halves();
    d[0].len += 4096;
    d[1].len -= 4096;
    Bytes b = info_rsp_bytes(d);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsWrongTotal)
{
    auto d = two_halves();
    d[1].len -= kChunk;
    Bytes b = info_rsp_bytes(d);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsWrappingAddress)
{
    auto d = two_halves();
    d[0].addr = ~0ull - 10;
    Bytes b = info_rsp_bytes(d);
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), info_limits())), err::kInval);
}

TEST(RtrsInfoRsp, RejectsGeometryBeyondImmediate)
{
    std::vector<SgEntry> d{SgEntry{0, 1, 1u << 27}, SgEntry{1ull << 32, 1, 1u << 27}};
    Bytes b = info_rsp_bytes(d);
    InfoRspLimits l;
    l.queue_depth = 2;
    l.chunk_size = 1u << 27;  // 1 id bit + 27 offset bits fit; 4 chunks would not
    EXPECT_TRUE(decode_info_rsp(cspan_of(b), l).is_ok());
    l.chunk_size = (1u << 27) + 1;
    EXPECT_EQ(error_of(decode_info_rsp(cspan_of(b), l)), err::kInval);
}

TEST(RtrsInfoRsp, BuilderChecks)
{
    Bytes b(8);
    EXPECT_EQ(error_of(build_info_rsp(span_of(b), Span<const SgEntry>())), err::kInval);
    auto d = two_halves();
    EXPECT_EQ(error_of(build_info_rsp(span_of(b), Span<const SgEntry>(d.data(), d.size()))), err::kMsgSize);
}

// ==================================================================== RKEY_RSP

TEST(RtrsRkeyRsp, RoundTripAndGolden)
{
    Bytes b(8);
    ASSERT_TRUE(build_rkey_rsp(span_of(b), 7, 0x01020304).is_ok());
    EXPECT_EQ(b, (Bytes{0x04, 0x00, 0x07, 0x00, 0x04, 0x03, 0x02, 0x01}));
    auto r = decode_rkey_rsp(cspan_of(b), kQd);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().buf_id, 7);
    EXPECT_EQ(r.value().rkey, 0x01020304u);
}

TEST(RtrsRkeyRsp, RejectsShort)
{
    Bytes b{0x04, 0x00, 0x07, 0x00, 0x04, 0x03, 0x02};
    EXPECT_EQ(error_of(decode_rkey_rsp(cspan_of(b), kQd)), err::kBadMsg);
}

TEST(RtrsRkeyRsp, RejectsWrongType)
{
    Bytes b{0x03, 0x00, 0x07, 0x00, 0x04, 0x03, 0x02, 0x01};
    EXPECT_EQ(error_of(decode_rkey_rsp(cspan_of(b), kQd)), err::kProto);
}

TEST(RtrsRkeyRsp, RejectsBufIdBeyondQueueDepth)
{
    Bytes b{0x04, 0x00, 0x00, 0x02, 0x04, 0x03, 0x02, 0x01};  // buf_id 512
    EXPECT_EQ(error_of(decode_rkey_rsp(cspan_of(b), kQd)), err::kInval);
}

// ================================================================== immediates

TEST(RtrsImm, IoRequestRoundTripAndGolden)
{
    ChunkGeometry g = geometry();
    EXPECT_EQ(g.offset_bits, 19u);
    auto imm = encode_io_request_imm(g, 3, 0x1234);
    ASSERT_TRUE(imm.is_ok());
    EXPECT_EQ(imm.value(), 0x00181234u);
    uint32_t raw = imm_to_wire(imm.value());
    uint8_t bytes[4];
    memcpy(bytes, &raw, 4);
    EXPECT_EQ(bytes[0], 0x00);
    EXPECT_EQ(bytes[1], 0x18);
    EXPECT_EQ(bytes[2], 0x12);
    EXPECT_EQ(bytes[3], 0x34);
    EXPECT_EQ(imm_from_wire(raw), 0x00181234u);
    auto d = decode_io_request_imm(g, imm.value());
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ(d.value().chunk_id, 3u);
    EXPECT_EQ(d.value().offset, 0x1234u);
}

TEST(RtrsImm, IoRequestExtremes)
{
    ChunkGeometry g = geometry(kQd, kChunk);
    auto imm = encode_io_request_imm(g, kQd - 1, kChunk - 1);
    ASSERT_TRUE(imm.is_ok());
    auto d = decode_io_request_imm(g, imm.value());
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ(d.value().chunk_id, kQd - 1);
    EXPECT_EQ(d.value().offset, kChunk - 1);

    ChunkGeometry one = geometry(1, 1u << 28);
    EXPECT_EQ(one.offset_bits, 28u);
    auto imm1 = encode_io_request_imm(one, 0, (1u << 28) - 1);
    ASSERT_TRUE(imm1.is_ok());
    EXPECT_EQ(imm1.value(), 0x0fffffffu);
}

TEST(RtrsImm, IoRequestRejectsChunkIdBeyondQueueDepth)
{
    ChunkGeometry g = geometry(500, kChunk);
    EXPECT_EQ(error_of(decode_io_request_imm(g, (500u << 19) | 8)), err::kInval);
    EXPECT_EQ(error_of(encode_io_request_imm(g, 500, 0)), err::kInval);
}

TEST(RtrsImm, IoRequestRejectsOffsetBeyondChunk)
{
    ChunkGeometry g = geometry(kQd, 64 * 1024);
    EXPECT_EQ(error_of(decode_io_request_imm(g, (1u << 19) | (64 * 1024))), err::kInval);
    EXPECT_EQ(error_of(encode_io_request_imm(g, 1, 64 * 1024)), err::kInval);
}

TEST(RtrsImm, IoRequestRejectsOtherType)
{
    ChunkGeometry g = geometry();
    EXPECT_EQ(error_of(decode_io_request_imm(g, wire::kHeartbeatImm)), err::kProto);
}

TEST(RtrsImm, GeometryRejectsUnaddressable)
{
    EXPECT_EQ(error_of(make_chunk_geometry(0, kChunk)), err::kInval);
    EXPECT_EQ(error_of(make_chunk_geometry(65536, 8192)), err::kInval);
    EXPECT_EQ(error_of(make_chunk_geometry(65535, 8192)), err::kInval);
    EXPECT_TRUE(make_chunk_geometry(4096, 65536).is_ok());
    EXPECT_EQ(error_of(make_chunk_geometry(4097, 65536)), err::kInval);
}

TEST(RtrsImm, IoResponseRoundTripAndGolden)
{
    auto imm = encode_io_response_imm(7, -5, true);
    ASSERT_TRUE(imm.is_ok());
    EXPECT_EQ(imm.value(), 0x20280007u);
    auto d = decode_io_response_imm(imm.value(), kQd);
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ(d.value().msg_id, 7u);
    EXPECT_EQ(d.value().err, -5);
    EXPECT_TRUE(d.value().invalidated);

    auto ok = encode_io_response_imm(511, 0, false);
    ASSERT_TRUE(ok.is_ok());
    EXPECT_EQ(ok.value(), 0x100001ffu);
    auto d2 = decode_io_response_imm(ok.value(), kQd);
    ASSERT_TRUE(d2.is_ok());
    EXPECT_EQ(d2.value().err, 0);
    EXPECT_FALSE(d2.value().invalidated);
}

TEST(RtrsImm, IoResponseLargeErrnoBecomesEio)
{
    auto imm = encode_io_response_imm(1, -512, false);  // would truncate to 0
    ASSERT_TRUE(imm.is_ok());
    auto d = decode_io_response_imm(imm.value(), kQd);
    ASSERT_TRUE(d.is_ok());
    EXPECT_EQ(d.value().err, -err::kIo);
    auto keep = encode_io_response_imm(1, -511, false);
    ASSERT_TRUE(keep.is_ok());
    EXPECT_EQ(decode_io_response_imm(keep.value(), kQd).value().err, -511);
}

TEST(RtrsImm, IoResponseEncoderRejectsBadInput)
{
    EXPECT_EQ(error_of(encode_io_response_imm(1u << 19, 0, false)), err::kInval);
    EXPECT_EQ(error_of(encode_io_response_imm(1, 5, false)), err::kInval);
}

TEST(RtrsImm, IoResponseRejectsMsgIdBeyondQueueDepth)
{
    EXPECT_EQ(error_of(decode_io_response_imm(0x10000000u | 512, kQd)), err::kInval);
}

TEST(RtrsImm, IoResponseRejectsOtherType)
{
    EXPECT_EQ(error_of(decode_io_response_imm(0x00000001u, kQd)), err::kProto);
    EXPECT_EQ(error_of(decode_io_response_imm(wire::kHeartbeatAckImm, kQd)), err::kProto);
}

TEST(RtrsImm, HeartbeatGolden)
{
    EXPECT_EQ(wire::kHeartbeatImm, 0x80000000u);
    EXPECT_EQ(wire::kHeartbeatAckImm, 0x90000000u);
    auto hb = decode_imm(wire::kHeartbeatImm);
    ASSERT_TRUE(hb.is_ok());
    EXPECT_EQ(hb.value().type, wire::ImmType::kHeartbeat);
    auto ack = decode_imm(wire::kHeartbeatAckImm);
    ASSERT_TRUE(ack.is_ok());
    EXPECT_EQ(ack.value().type, wire::ImmType::kHeartbeatAck);
    uint32_t raw = imm_to_wire(wire::kHeartbeatImm);
    uint8_t bytes[4];
    memcpy(bytes, &raw, 4);
    EXPECT_EQ(bytes[0], 0x80);
    EXPECT_EQ(bytes[3], 0x00);
}

TEST(RtrsImm, DecodeRejectsUnknownTypes)
{
    for (uint32_t t : {3u, 4u, 5u, 6u, 7u, 10u, 11u, 12u, 13u, 14u, 15u})
        EXPECT_EQ(error_of(decode_imm(t << 28)), err::kProto) << t;
    for (uint32_t t : {0u, 1u, 2u, 8u, 9u})
        EXPECT_TRUE(decode_imm((t << 28) | 0x123).is_ok()) << t;
}

// ============================================================ READ / WRITE msgs

namespace {

// Lays a request out in a chunk the way a client does and returns the chunk.
Bytes chunk_with_write(uint32_t data_len, uint16_t usr_len)
{
    Bytes chunk(kChunk, 0);
    auto plan = plan_write(geometry(), data_len, usr_len);
    EXPECT_TRUE(plan.is_ok());
    auto n = build_rdma_write(ByteSpan(chunk.data() + plan.value().msg_offset, 4), usr_len);
    EXPECT_TRUE(n.is_ok());
    return chunk;
}

Bytes chunk_with_read(uint32_t data_len, uint16_t usr_len, uint16_t flags, std::vector<SgEntry> descs)
{
    Bytes chunk(kChunk, 0);
    auto plan = plan_read(geometry(), data_len, usr_len, uint32_t(descs.size()));
    EXPECT_TRUE(plan.is_ok());
    auto n = build_rdma_read(ByteSpan(chunk.data() + plan.value().msg_offset, plan.value().msg_len), usr_len, flags,
                             Span<const SgEntry>(descs.data(), descs.size()));
    EXPECT_TRUE(n.is_ok());
    return chunk;
}

}  // namespace

TEST(RtrsIo, WriteGolden)
{
    Bytes b(4);
    ASSERT_TRUE(build_rdma_write(span_of(b), 0x28).is_ok());
    EXPECT_EQ(b, (Bytes{0x02, 0x00, 0x28, 0x00}));
}

TEST(RtrsIo, ReadGolden)
{
    std::vector<SgEntry> d{SgEntry{0x0102030405060708ull, 0x0A0B0C0Du, 0x1000u}};
    Bytes b(24);
    ASSERT_TRUE(build_rdma_read(span_of(b), 0x20, wire::kMsgFlagNeedInvalidate, Span<const SgEntry>(d.data(), 1))
                    .is_ok());
    EXPECT_EQ(b, (Bytes{0x03, 0x00, 0x20, 0x00, 0x01, 0x00, 0x01, 0x00, 0x08, 0x07, 0x06, 0x05,
                        0x04, 0x03, 0x02, 0x01, 0x0D, 0x0C, 0x0B, 0x0A, 0x00, 0x10, 0x00, 0x00}));
    Bytes e(8);
    ASSERT_TRUE(build_rdma_read(span_of(e), 0x20, 0, Span<const SgEntry>()).is_ok());
    EXPECT_EQ(e, (Bytes{0x03, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x00}));
}

TEST(RtrsIo, WriteRoundTrip)
{
    Bytes chunk = chunk_with_write(4096, 32);
    auto r = decode_io_request(cspan_of(chunk), 4096 + 32);
    ASSERT_TRUE(r.is_ok());
    const IoRequest& v = r.value();
    EXPECT_EQ(v.type, wire::MsgType::kWrite);
    EXPECT_EQ(v.usr_len, 32u);
    EXPECT_EQ(v.data_len, 4096u);
    EXPECT_EQ(v.data.data(), chunk.data());
    EXPECT_EQ(v.data.size(), 4096u);
    EXPECT_EQ(v.usr.data(), chunk.data() + 4096);
    EXPECT_EQ(v.usr.size(), 32u);
}

TEST(RtrsIo, ReadRoundTripAtOddOffset)
{
    std::vector<SgEntry> d{SgEntry{0xdead0000ull, 0x77, 8192}};
    Bytes chunk = chunk_with_read(8192, 33, wire::kMsgFlagNeedInvalidate, d);
    auto r = decode_io_request(cspan_of(chunk), 8192 + 33);
    ASSERT_TRUE(r.is_ok());
    const IoRequest& v = r.value();
    EXPECT_EQ(v.type, wire::MsgType::kRead);
    EXPECT_EQ(v.usr_len, 33u);
    EXPECT_EQ(v.data_len, 8192u);
    EXPECT_EQ(v.flags, uint16_t(wire::kMsgFlagNeedInvalidate));
    ASSERT_EQ(v.sg_cnt, 1);
    EXPECT_EQ(v.desc(0), d[0]);
}

// One fetch: the client can still write the chunk after the server decoded
// its message, so the decoded request must hold copies. Every byte of the
// message is changed after decoding; nothing decoded may move (a second
// read of a checked length was a remote heap overflow).
TEST(RtrsIoOneFetch, ReadDescriptorsAreCopiesNotViews)
{
    const SgEntry checked{0xdead0000ull, 0x77, 4096};
    Bytes chunk = chunk_with_read(4096, 33, wire::kMsgFlagNeedInvalidate, {checked});
    const uint32_t msg = 4096 + 33;
    auto r = decode_io_request(cspan_of(chunk), msg);
    ASSERT_TRUE(r.is_ok());
    const IoRequest before = r.value();
    // The client rewrites the descriptor (64 MiB length, other key and
    // address), the header (flags, sg_cnt, usr_len) and the type.
    std::fill(chunk.begin() + msg, chunk.begin() + msg + 24, uint8_t(0xff));
    put16(chunk, msg, uint16_t(wire::MsgType::kWrite));
    const IoRequest& v = r.value();
    EXPECT_EQ(v.type, wire::MsgType::kRead);
    EXPECT_EQ(v.usr_len, 33u);
    EXPECT_EQ(v.data_len, 4096u);
    EXPECT_EQ(v.flags, uint16_t(wire::kMsgFlagNeedInvalidate));
    EXPECT_EQ(v.sg_cnt, 1);
    EXPECT_EQ(v.desc(0), checked);
    EXPECT_EQ(v.desc(0), before.desc(0));
    EXPECT_EQ(v.usr.data(), chunk.data() + 4096);  // the user header: bytes, fetched by its own decoder
}

TEST(RtrsIoOneFetch, WriteFieldsAreCopiesNotViews)
{
    Bytes chunk = chunk_with_write(8192, 40);
    const uint32_t msg = 8192 + 40;
    auto r = decode_io_request(cspan_of(chunk), msg);
    ASSERT_TRUE(r.is_ok());
    std::fill(chunk.begin() + msg, chunk.begin() + msg + 4, uint8_t(0xee));
    EXPECT_EQ(r.value().type, wire::MsgType::kWrite);
    EXPECT_EQ(r.value().usr_len, 40u);
    EXPECT_EQ(r.value().data_len, 8192u);
    EXPECT_EQ(r.value().data.size(), 8192u);
    EXPECT_EQ(r.value().usr.size(), 40u);
}

// Two descriptors (the most a server of ours may be configured to take is
// kMaxReadDescs) are copied too; a limit above it is refused.
TEST(RtrsIoOneFetch, EveryDescriptorIsCopied)
{
    std::vector<SgEntry> d{SgEntry{1, 2, 4096}, SgEntry{3, 4, 8192}};
    Bytes chunk = chunk_with_read(8192, 16, 0, d);
    IoLimits l;
    l.max_read_descs = 2;
    auto r = decode_io_request(cspan_of(chunk), 8192 + 16, l);
    ASSERT_TRUE(r.is_ok());
    std::fill(chunk.begin() + 8192 + 16, chunk.begin() + 8192 + 16 + 40, uint8_t(0));
    EXPECT_EQ(r.value().desc(0), d[0]);
    EXPECT_EQ(r.value().desc(1), d[1]);
    l.max_read_descs = kMaxReadDescs + 1;
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 8192 + 16, l)), err::kInval);
}

TEST(RtrsIo, ReadWithoutDescriptors)
{
    Bytes chunk = chunk_with_read(0, 36, 0, {});
    auto r = decode_io_request(cspan_of(chunk), 36);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(r.value().sg_cnt, 0);
    EXPECT_EQ(r.value().data_len, 0u);
}

TEST(RtrsIo, PlanRejectsOversizedRequest)
{
    EXPECT_EQ(error_of(plan_write(geometry(), kChunk - 4, 1)), err::kMsgSize);
    EXPECT_TRUE(plan_write(geometry(), kChunk - 5, 1).is_ok());
    EXPECT_EQ(error_of(plan_read(geometry(), kChunk - 24, 1, 1)), err::kMsgSize);
    EXPECT_EQ(error_of(plan_write(geometry(), 0, 70000)), err::kInval);
}

TEST(RtrsIo, RejectsOffsetBeyondChunk)
{
    Bytes chunk(kChunk, 0);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), kChunk)), err::kInval);
}

TEST(RtrsIo, RejectsHeaderCrossingChunkEnd)
{
    Bytes chunk(kChunk, 0);
    chunk[kChunk - 1] = 0x02;
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), kChunk - 1)), err::kBadMsg);
    put16(chunk, kChunk - 2, 0x0002);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), kChunk - 2)), err::kBadMsg);
    put16(chunk, kChunk - 6, 0x0003);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), kChunk - 6)), err::kBadMsg);
}

TEST(RtrsIo, RejectsDescriptorCrossingChunkEnd)
{
    Bytes chunk(kChunk, 0);
    const uint32_t off = kChunk - 16;
    put16(chunk, off, 3);
    put16(chunk, off + 6, 1);  // 8-byte header fits, 16-byte descriptor does not
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), off)), err::kBadMsg);
}

TEST(RtrsIo, RejectsUnknownType)
{
    Bytes chunk = chunk_with_write(0, 8);
    put16(chunk, 8, 4);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 8)), err::kProto);
    put16(chunk, 8, 0);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 8)), err::kProto);
}

TEST(RtrsIo, RejectsUserHeaderLongerThanOffset)
{
    Bytes chunk = chunk_with_write(0, 8);
    put16(chunk, 8 + 2, 9);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 8)), err::kInval);
    Bytes rchunk = chunk_with_read(0, 8, 0, {});
    put16(rchunk, 8 + 2, 9);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(rchunk), 8)), err::kInval);
}

TEST(RtrsIo, RejectsTooManyReadDescriptors)
{
    std::vector<SgEntry> d{SgEntry{1, 1, 4096}, SgEntry{2, 2, 4096}};
    Bytes chunk = chunk_with_read(8192, 16, 0, d);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 8192 + 16)), err::kInval);
    IoLimits l;
    l.max_read_descs = 2;
    EXPECT_TRUE(decode_io_request(cspan_of(chunk), 8192 + 16, l).is_ok());
}

TEST(RtrsIo, RejectsUnknownReadFlags)
{
    std::vector<SgEntry> d{SgEntry{1, 1, 4096}};
    Bytes chunk = chunk_with_read(4096, 16, 0, d);
    put16(chunk, 4096 + 16 + 4, 0x0002);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 4096 + 16)), err::kProto);
}

TEST(RtrsIo, RejectsInvalidateWithoutDescriptor)
{
    Bytes chunk = chunk_with_read(0, 16, 0, {});
    put16(chunk, 16 + 4, wire::kMsgFlagNeedInvalidate);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 16)), err::kInval);
}

TEST(RtrsIo, RejectsZeroReadLength)
{
    std::vector<SgEntry> d{SgEntry{1, 1, 0}};
    Bytes chunk = chunk_with_read(4096, 16, 0, d);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 4096 + 16)), err::kInval);
}

TEST(RtrsIo, RejectsReadLengthBeyondChunk)
{
    std::vector<SgEntry> d{SgEntry{1, 1, kChunk + 1}};
    Bytes chunk = chunk_with_read(4096, 16, 0, d);
    EXPECT_EQ(error_of(decode_io_request(cspan_of(chunk), 4096 + 16)), err::kInval);
}

TEST(RtrsIo, BuilderChecks)
{
    Bytes b(3);
    EXPECT_EQ(error_of(build_rdma_write(span_of(b), 0)), err::kMsgSize);
    Bytes r(8);
    EXPECT_EQ(error_of(build_rdma_read(span_of(r), 0, 0x4, Span<const SgEntry>())), err::kInval);
    EXPECT_EQ(error_of(build_rdma_read(span_of(r), 0, wire::kMsgFlagNeedInvalidate, Span<const SgEntry>())),
              err::kInval);
    std::vector<SgEntry> d{SgEntry{1, 1, 1}};
    EXPECT_EQ(error_of(build_rdma_read(span_of(r), 0, 0, Span<const SgEntry>(d.data(), 1))), err::kMsgSize);
}

// ============================================================= layout pinning

TEST(RtrsWire, SizesMatchLinux61)
{
    EXPECT_EQ(sizeof(wire::ConnReq), 56u);
    EXPECT_EQ(sizeof(wire::ConnRsp), 56u);
    EXPECT_EQ(sizeof(wire::InfoReq), 272u);
    EXPECT_EQ(sizeof(wire::InfoRspHeader), 8u);
    EXPECT_EQ(sizeof(wire::SgDesc), 16u);
    EXPECT_EQ(sizeof(wire::RkeyRsp), 8u);
    EXPECT_EQ(sizeof(wire::RdmaReadHeader), 8u);
    EXPECT_EQ(sizeof(wire::RdmaWrite), 4u);
    EXPECT_EQ(sizeof(wire::RdmaHeader), 2u);
}
