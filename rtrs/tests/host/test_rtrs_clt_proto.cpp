// Host tests of what the RTRS client accepts from a server
// (rtrs/core/rtrs-clt-proto.*, rtrs/core/rtrs-remote-errno.hpp): each check has a
// test that a hostile value is refused and a well-behaved one accepted.
#include <gtest/gtest.h>

#include <cstdint>
#include <atomic>
#include <thread>
#include <vector>

#include "rtrs/core/rtrs-clt-proto.hpp"

using namespace rtrs;
using namespace rtrs::clt;
namespace err = cxxrt::err;

namespace {

codec::ConnRspFields good_conn_rsp()
{
    codec::ConnRspFields f;
    f.queue_depth = 512;
    f.max_io_size = 128 * 1024 - 4096;
    f.max_hdr_size = 4096;
    return f;
}

int code_of(const cxxrt::Result<void>& r) { return r ? 0 : r.error().code(); }

ReceiveEvent write_imm(u32 imm)
{
    ReceiveEvent e;
    e.has_imm = true;
    e.imm = imm;
    return e;
}

u32 response_imm(u32 id, int error, bool invalidated)
{
    return codec::encode_io_response_imm(id, error, invalidated).value();
}

ConnectionRole io_role(u32 depth = 16, bool always_invalidate = false)
{
    ConnectionRole role;
    role.queue_depth = depth;
    role.always_invalidate = always_invalidate;
    role.carries_io = true;
    return role;
}

}  // namespace

TEST(RemoteErrno, KeepsTheDocumentedSetOnly)
{
    EXPECT_EQ(remote_errno(0), 0);
    for (int e : kRemoteErrnos)
        EXPECT_EQ(remote_errno(-e), -e);
    EXPECT_EQ(remote_errno(-512), -err::kIo);  // ERESTARTSYS
    EXPECT_EQ(remote_errno(-516), -err::kIo);  // EPROBE_DEFER-like internals
    EXPECT_EQ(remote_errno(5), -err::kIo);     // positive values
    EXPECT_EQ(remote_errno(22), -err::kIo);
    EXPECT_EQ(remote_errno(-4096), -err::kIo);
    EXPECT_EQ(remote_errno(-2147483647 - 1), -err::kIo);
    EXPECT_EQ(remote_errno(-err::kAgain), -err::kIo);  // BLK_STS_AGAIN is for nowait IO only
    for (int v = -5000; v <= 5000; ++v) {
        const int out = remote_errno(v);
        EXPECT_TRUE(out == 0 || remote_errno_allowed(-out)) << v;
    }
}

TEST(ConnRsp, AcceptsUpstreamDefaults)
{
    ConnRspLimits limits;
    limits.min_hdr_size = 128;
    EXPECT_TRUE(check_conn_rsp(good_conn_rsp(), limits));
}

TEST(ConnRsp, RefusesQueueDepthZeroAndHuge)
{
    auto f = good_conn_rsp();
    f.queue_depth = 0;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    f.queue_depth = kClientMaxQueueDepth + 1;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    f.queue_depth = 65535;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    f.queue_depth = kClientMaxQueueDepth;
    EXPECT_TRUE(check_conn_rsp(f, {}));
}

TEST(ConnRsp, RefusesTinyIoSizeAndAbsurdHeader)
{
    auto f = good_conn_rsp();
    f.max_io_size = 0;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    f.max_io_size = 512;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    f = good_conn_rsp();
    f.max_hdr_size = kClientMaxHeaderSize + 1;
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kInval);
    ConnRspLimits limits;
    limits.min_hdr_size = 4097;
    EXPECT_EQ(code_of(check_conn_rsp(good_conn_rsp(), limits)), err::kMsgSize);
}

TEST(ConnRsp, KeyAfterDataOnlyIfAskedAndWithNewRkey)
{
    auto f = good_conn_rsp();
    f.flags = wire::kMsgFlagNewRkey | wire::kMsgFlagKeyAfterData;
    ConnRspLimits asked;
    asked.asked_key_after_data = true;
    EXPECT_TRUE(check_conn_rsp(f, asked));
    EXPECT_EQ(code_of(check_conn_rsp(f, {})), err::kProto);  // not asked
    f.flags = wire::kMsgFlagKeyAfterData;                     // without always_invalidate
    EXPECT_EQ(code_of(check_conn_rsp(f, asked)), err::kProto);
    // The codec knows the flag (a CON_RSP carrying it decodes).
    f.flags = wire::kMsgFlagNewRkey | wire::kMsgFlagKeyAfterData;
    uint8_t buffer[sizeof(wire::ConnRsp)];
    ASSERT_TRUE(codec::build_conn_rsp(cxxrt::ByteSpan(buffer, sizeof(buffer)), f));
    auto decoded = codec::decode_conn_rsp(cxxrt::ConstByteSpan(buffer, sizeof(buffer)));
    ASSERT_TRUE(decoded);
    EXPECT_EQ(decoded.value().flags, f.flags);
}

TEST(ConnRsp, DecodeRefusesErrnoField)
{
    // The codec refuses an accept carrying an errno; the reject's errno
    // goes through remote_errno (see RemoteErrno).
    uint8_t buffer[sizeof(wire::ConnRsp)];
    ASSERT_TRUE(codec::build_conn_rsp(cxxrt::ByteSpan(buffer, sizeof(buffer)), good_conn_rsp()));
    ASSERT_TRUE(codec::decode_conn_rsp(cxxrt::ConstByteSpan(buffer, sizeof(buffer))));
    ASSERT_TRUE(codec::build_conn_reject(cxxrt::ByteSpan(buffer, sizeof(buffer)), -512));
    auto reject = codec::decode_conn_reject(cxxrt::ConstByteSpan(buffer, sizeof(buffer)));
    ASSERT_TRUE(reject);
    EXPECT_EQ(remote_errno(reject.value()), -err::kIo);
    EXPECT_FALSE(codec::decode_conn_rsp(cxxrt::ConstByteSpan(buffer, sizeof(buffer))));
}

TEST(InfoRsp, OnlyAPlainSendThatFits)
{
    ReceiveEvent e;
    e.send = true;
    e.byte_len = 100;
    EXPECT_TRUE(check_info_rsp_receive(e, 100));
    e.byte_len = 101;
    EXPECT_EQ(code_of(check_info_rsp_receive(e, 100)), err::kProto);
    e.byte_len = 10;
    e.has_imm = true;
    EXPECT_EQ(code_of(check_info_rsp_receive(e, 100)), err::kProto);
    e.has_imm = false;
    e.with_invalidate = true;
    EXPECT_EQ(code_of(check_info_rsp_receive(e, 100)), err::kProto);
    e.with_invalidate = false;
    e.send = false;  // an RDMA write with immediate
    EXPECT_EQ(code_of(check_info_rsp_receive(e, 100)), err::kProto);
}

TEST(InfoRsp, CodecRefusesAbsurdCounts)
{
    codec::InfoRspLimits limits;
    limits.queue_depth = 16;
    limits.chunk_size = 4096;
    std::vector<codec::SgEntry> descs(16, codec::SgEntry{0x1000, 7, 4096});
    std::vector<uint8_t> buffer(wire::info_rsp_size(32));
    auto length = codec::build_info_rsp(cxxrt::ByteSpan(buffer.data(), buffer.size()),
                                        cxxrt::Span<const codec::SgEntry>(descs.data(), descs.size()));
    ASSERT_TRUE(length);
    EXPECT_TRUE(codec::decode_info_rsp(cxxrt::ConstByteSpan(buffer.data(), length.value()), limits));
    // More chunks than the queue depth, a count that does not divide it, a
    // descriptor that wraps, lengths that do not add up.
    limits.queue_depth = 8;
    EXPECT_FALSE(codec::decode_info_rsp(cxxrt::ConstByteSpan(buffer.data(), length.value()), limits));
    limits.queue_depth = 24;
    EXPECT_FALSE(codec::decode_info_rsp(cxxrt::ConstByteSpan(buffer.data(), length.value()), limits));
    limits.queue_depth = 16;
    descs[3].addr = ~uint64_t(0) - 10;
    auto wrapped = codec::build_info_rsp(cxxrt::ByteSpan(buffer.data(), buffer.size()),
                                         cxxrt::Span<const codec::SgEntry>(descs.data(), descs.size()));
    EXPECT_FALSE(codec::decode_info_rsp(cxxrt::ConstByteSpan(buffer.data(), wrapped.value()), limits));
    descs[3] = codec::SgEntry{0x1000, 7, 8192};
    auto too_long = codec::build_info_rsp(cxxrt::ByteSpan(buffer.data(), buffer.size()),
                                          cxxrt::Span<const codec::SgEntry>(descs.data(), descs.size()));
    EXPECT_FALSE(codec::decode_info_rsp(cxxrt::ConstByteSpan(buffer.data(), too_long.value()), limits));
}

TEST(Receive, ClassifiesWellFormedMessages)
{
    auto d = classify_receive(write_imm(response_imm(3, -5, false)), {}, io_role());
    EXPECT_EQ(d.kind, ReceiveKind::kResponse);
    EXPECT_EQ(d.id, 3u);
    EXPECT_EQ(d.err, -5);
    EXPECT_FALSE(d.claims_invalidated);
    EXPECT_EQ(classify_receive(write_imm(wire::kHeartbeatImm), {}, ConnectionRole{}).kind, ReceiveKind::kHeartbeat);
    EXPECT_EQ(classify_receive(write_imm(wire::kHeartbeatAckImm), {}, ConnectionRole{}).kind,
              ReceiveKind::kHeartbeatAck);
    ReceiveEvent inv;
    inv.send = true;
    inv.with_invalidate = true;
    inv.invalidated_rkey = 0x1234;
    d = classify_receive(inv, {}, io_role());
    EXPECT_EQ(d.kind, ReceiveKind::kInvalidation);
    EXPECT_EQ(d.invalidated_rkey, 0x1234u);
}

TEST(Receive, RefusesWhatTheProtocolDoesNotAllow)
{
    // Answer for an id beyond the queue depth.
    EXPECT_EQ(classify_receive(write_imm(response_imm(16, 0, false)), {}, io_role(16)).kind, ReceiveKind::kError);
    // Unknown immediate type; an IO request immediate sent to the client.
    EXPECT_EQ(classify_receive(write_imm(0xf0000000u), {}, io_role()).kind, ReceiveKind::kError);
    EXPECT_EQ(classify_receive(write_imm(0x00000001u), {}, io_role()).kind, ReceiveKind::kError);
    // A message without immediate or invalidation.
    ReceiveEvent plain;
    plain.send = true;
    EXPECT_EQ(classify_receive(plain, {}, io_role()).kind, ReceiveKind::kError);
    // Answers and invalidations on the service connection.
    ConnectionRole service = io_role();
    service.carries_io = false;
    EXPECT_EQ(classify_receive(write_imm(response_imm(1, 0, false)), {}, service).kind, ReceiveKind::kError);
    ReceiveEvent inv;
    inv.send = true;
    inv.with_invalidate = true;
    EXPECT_EQ(classify_receive(inv, {}, service).kind, ReceiveKind::kError);
    // An RKEY_RSP without always_invalidate, an answer without one with it.
    ReceiveEvent send_imm = write_imm(response_imm(1, 0, false));
    send_imm.send = true;
    EXPECT_EQ(classify_receive(send_imm, {}, io_role()).kind, ReceiveKind::kError);
    EXPECT_EQ(classify_receive(write_imm(response_imm(1, 0, false)), {}, io_role(16, true)).kind,
              ReceiveKind::kError);
}

TEST(Receive, RkeyRspMustNameItsOwnAnswer)
{
    uint8_t message[sizeof(wire::RkeyRsp)];
    ASSERT_TRUE(codec::build_rkey_rsp(cxxrt::ByteSpan(message, sizeof(message)), 4, 0xabcd));
    ReceiveEvent e = write_imm(response_imm(4, 0, false));
    e.send = true;
    e.byte_len = sizeof(message);
    auto d = classify_receive(e, cxxrt::ConstByteSpan(message, sizeof(message)), io_role(16, true));
    ASSERT_EQ(d.kind, ReceiveKind::kResponse);
    EXPECT_TRUE(d.has_new_rkey);
    EXPECT_EQ(d.new_rkey, 0xabcdu);
    // Another buffer id than the answer's.
    e.imm = response_imm(5, 0, false);
    EXPECT_EQ(classify_receive(e, cxxrt::ConstByteSpan(message, sizeof(message)), io_role(16, true)).kind,
              ReceiveKind::kError);
    // A buffer id beyond the queue depth; a short message.
    ASSERT_TRUE(codec::build_rkey_rsp(cxxrt::ByteSpan(message, sizeof(message)), 20, 0xabcd));
    e.imm = response_imm(4, 0, false);
    EXPECT_EQ(classify_receive(e, cxxrt::ConstByteSpan(message, sizeof(message)), io_role(16, true)).kind,
              ReceiveKind::kError);
    e.byte_len = 2;
    EXPECT_EQ(classify_receive(e, cxxrt::ConstByteSpan(message, sizeof(message)), io_role(16, true)).kind,
              ReceiveKind::kError);
}

TEST(Receive, KeyAfterDataAnswerIsAWriteWithImmediate)
{
    ConnectionRole role = io_role(16, true);
    role.key_after_data = true;
    // An RDMA write with immediate: an answer whose key follows its data.
    auto d = classify_receive(write_imm(response_imm(4, 0, false)), {}, role);
    ASSERT_EQ(d.kind, ReceiveKind::kResponse);
    EXPECT_EQ(d.id, 4u);
    EXPECT_TRUE(d.key_after_data);
    EXPECT_FALSE(d.has_new_rkey);
    // RKEY_RSP answers stay valid (writes, errors, registered READs).
    uint8_t message[sizeof(wire::RkeyRsp)];
    ASSERT_TRUE(codec::build_rkey_rsp(cxxrt::ByteSpan(message, sizeof(message)), 4, 0xabcd));
    ReceiveEvent e = write_imm(response_imm(4, 0, false));
    e.send = true;
    e.byte_len = sizeof(message);
    d = classify_receive(e, cxxrt::ConstByteSpan(message, sizeof(message)), role);
    ASSERT_EQ(d.kind, ReceiveKind::kResponse);
    EXPECT_TRUE(d.has_new_rkey);
    EXPECT_FALSE(d.key_after_data);
    // Without the flag a write with immediate under always_invalidate is
    // still a violation.
    EXPECT_EQ(classify_receive(write_imm(response_imm(4, 0, false)), {}, io_role(16, true)).kind,
              ReceiveKind::kError);
}

TEST(Receive, RemoteErrnoIsFiltered)
{
    // The immediate carries 9 bits of errno: 511 is not in the set.
    auto d = classify_receive(write_imm(wire::make_imm(wire::ImmType::kIoResponse, wire::io_response_payload(2, -511))),
                              {}, io_role());
    ASSERT_EQ(d.kind, ReceiveKind::kResponse);
    EXPECT_EQ(d.err, -err::kIo);
}

class Table : public ::testing::Test {
protected:
    void SetUp() override
    {
        ASSERT_TRUE(table.init(8, cxxrt::Gfp::kernel()));
        for (u32 i = 0; i < 8; ++i)
            ASSERT_TRUE(table.index_rkey(i, ((0x100 + i) << 8) | 0x11));
    }
    static u32 rkey(u32 id, u32 key) { return ((0x100 + id) << 8) | key; }
    RequestTable table;
};

TEST_F(Table, AnswerCompletesOnce)
{
    ASSERT_TRUE(table.slot(2).start(false, 0));
    EXPECT_FALSE(table.slot(2).start(false, 0));  // busy
    auto a = table.on_response(2, false);
    ASSERT_TRUE(a);
    EXPECT_FALSE(a.value().invalidate_locally);
    // Duplicate answer before and after the user got it.
    EXPECT_EQ(table.on_response(2, false).error().code(), err::kAlready);
    table.slot(2).finish();
    EXPECT_EQ(table.on_response(2, false).error().code(), err::kAlready);
    // Never sent; beyond the table.
    EXPECT_EQ(table.on_response(3, false).error().code(), err::kAlready);
    EXPECT_EQ(table.on_response(8, false).error().code(), err::kInval);
}

TEST_F(Table, ReadIsInvalidatedLocallyUnlessProven)
{
    // No invalidation claimed: local.
    ASSERT_TRUE(table.slot(1).start(true, rkey(1, 0x12)));
    auto a = table.on_response(1, false);
    ASSERT_TRUE(a);
    EXPECT_TRUE(a.value().invalidate_locally);
    table.slot(1).finish();
    // Claimed, proven by SEND_WITH_INV of exactly that rkey: trusted.
    ASSERT_TRUE(table.slot(1).start(true, rkey(1, 0x13)));
    EXPECT_TRUE(table.on_invalidation(rkey(1, 0x13)));
    auto proven = table.on_response(1, true);
    ASSERT_TRUE(proven);
    EXPECT_FALSE(proven.value().invalidate_locally);
    table.slot(1).finish();
}

TEST_F(Table, FakeInvalidationIsRefused)
{
    // The case: "invalidated" immediate, no SEND_WITH_INV: the
    // answer stands, the claim is not trusted.
    ASSERT_TRUE(table.slot(4).start(true, rkey(4, 0x20)));
    auto fake = table.on_response(4, true);
    ASSERT_TRUE(fake);
    EXPECT_TRUE(fake.value().invalidate_locally);
    table.slot(4).finish();
    // SEND_WITH_INV of the wrong key (old key of the same MR, other MR, unknown MR).
    ASSERT_TRUE(table.slot(4).start(true, rkey(4, 0x21)));
    EXPECT_EQ(code_of(table.on_invalidation(rkey(4, 0x20))), err::kProto);
    EXPECT_EQ(code_of(table.on_invalidation(rkey(5, 0x21))), err::kProto);
    EXPECT_EQ(code_of(table.on_invalidation(0xdead0000u)), err::kProto);
    auto wrong_key = table.on_response(4, true);
    ASSERT_TRUE(wrong_key);
    EXPECT_TRUE(wrong_key.value().invalidate_locally);
    table.slot(4).finish();
    // A second proof for one registration.
    ASSERT_TRUE(table.slot(4).start(true, rkey(4, 0x22)));
    EXPECT_TRUE(table.on_invalidation(rkey(4, 0x22)));
    EXPECT_EQ(code_of(table.on_invalidation(rkey(4, 0x22))), err::kProto);
    EXPECT_EQ(table.slot(4).take(), RequestSlot::State::kInFlight);
    // A claim for a request without registration (a WRITE).
    ASSERT_TRUE(table.slot(5).start(false, 0));
    EXPECT_EQ(table.on_response(5, true).error().code(), err::kProto);
}

TEST_F(Table, ProofDoesNotOutliveItsRequest)
{
    // A proof for a request that is idle is refused; a proof from an
    // earlier submission does not carry over to the next one.
    EXPECT_EQ(code_of(table.on_invalidation(rkey(6, 0x30))), err::kProto);
    ASSERT_TRUE(table.slot(6).start(true, rkey(6, 0x30)));
    EXPECT_TRUE(table.on_invalidation(rkey(6, 0x30)));
    ASSERT_TRUE(table.on_response(6, false));  // proven but not claimed: local anyway
    table.slot(6).finish();
    ASSERT_TRUE(table.slot(6).start(true, rkey(6, 0x30)));  // key wrapped around
    auto stale = table.on_response(6, true);
    ASSERT_TRUE(stale);
    EXPECT_TRUE(stale.value().invalidate_locally);
}

TEST(RequestTableIndex, SharedMrDisablesTrust)
{
    RequestTable table;
    ASSERT_TRUE(table.init(2, cxxrt::Gfp::kernel()));
    ASSERT_TRUE(table.index_rkey(0, 0x500));
    EXPECT_EQ(code_of(table.index_rkey(1, 0x5ff)), err::kExist);
    ASSERT_TRUE(table.slot(1).start(true, 0x5ff));
    EXPECT_TRUE(table.on_invalidation(0x5ff));  // ignored
    auto a = table.on_response(1, true);
    ASSERT_TRUE(a);
    EXPECT_TRUE(a.value().invalidate_locally);
}

TEST(SessionNames, OneLiveSessionPerName)
{
    SessionNames names;
    SessionNames::Entry a, b, c;
    ASSERT_TRUE(names.claim(a, "s1"));
    EXPECT_EQ(code_of(names.claim(b, "s1")), err::kExist);
    ASSERT_TRUE(names.claim(c, "s2"));
    names.release(a);
    names.release(a);  // idempotent (destructor after a failed open)
    ASSERT_TRUE(names.claim(b, "s1"));
    EXPECT_EQ(names.count(), 2u);
    names.release(b);
    names.release(c);
    EXPECT_EQ(names.count(), 0u);
}

TEST(SessionNames, ConcurrentClaimsOfOneNameAdmitOne)
{
    // The check and the record are one step: of many threads opening the
    // same name at once exactly one wins, every round.
    for (int round = 0; round < 50; ++round) {
        SessionNames names;
        constexpr int kThreads = 8;
        SessionNames::Entry entries[kThreads];
        std::atomic<int> winners{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                if (names.claim(entries[t], "same"))
                    winners.fetch_add(1);
            });
        for (auto& thread : threads)
            thread.join();
        EXPECT_EQ(winners.load(), 1);
        for (auto& entry : entries)
            names.release(entry);
        EXPECT_EQ(names.count(), 0u);
    }
}

TEST_F(Table, InterleavedAnswersOfOneConnection)
{
    // A server that posts each answer's SEND_WITH_INV and immediate
    // separately may interleave two READs: INV(a) INV(b) RSP(b) RSP(a).
    ASSERT_TRUE(table.slot(0).start(true, rkey(0, 0x40)));
    ASSERT_TRUE(table.slot(7).start(true, rkey(7, 0x41)));
    EXPECT_TRUE(table.on_invalidation(rkey(0, 0x40)));
    EXPECT_TRUE(table.on_invalidation(rkey(7, 0x41)));
    auto b = table.on_response(7, true);
    auto a = table.on_response(0, true);
    ASSERT_TRUE(a);
    ASSERT_TRUE(b);
    EXPECT_FALSE(a.value().invalidate_locally);
    EXPECT_FALSE(b.value().invalidate_locally);
}
