// libFuzzer target: the client's path and request state driven by a server
// that may send anything. The input is a sequence of events (connect with a
// CON_RSP, INFO_RSP receive, submissions, receives of any kind with any
// immediate/invalidation/payload, user completion, disconnect, timeout,
// reconnect); the harness applies each the way rtrs-clt-path.cpp does
// (rtrs-clt-proto: check_conn_rsp, classify_receive, RequestTable;
// PathStateMachine) and checks after every step, against its own model:
//   - a submission completes exactly once (answer or fail-over), never an
//     idle or unknown request;
//   - a READ registration is kept (not invalidated locally) only when the
//     server proved invalidating exactly its rkey and the answer claims it;
//   - an errno handed to the user is 0 or in the documented remote set;
//   - a path only carries IO while connected with a CON_RSP this client accepts.
#include <cstddef>
#include <cstdint>

#include "rtrs/core/rtrs-clt-proto.hpp"
#include "rtrs/core/rtrs-clt-state.hpp"
#include "cxxrt/tests/fuzz/fuzz-support.hpp"

using namespace rtrs;
using namespace rtrs::clt;

namespace {

using fuzz::Input;

enum class Model : uint8_t { kIdle, kInFlight, kAnswered };

struct Request {
    Model state = Model::kIdle;
    bool registered = false;
    uint32_t rkey = 0;
    uint8_t key = 0;           // the MR's 8-bit key part, bumped per READ
    bool proven = false;       // a SEND_WITH_INV for exactly rkey while in flight
    uint32_t submissions = 0;
    uint32_t completions = 0;  // answers handed to the user + fail-overs
};

constexpr uint32_t kMaxDepth = 64;  // the harness's table; CON_RSP may ask for more (refused)

struct Harness {
    PathStateMachine path{PathState::kConnecting};
    RequestTable table;
    Request requests[kMaxDepth];
    ConnectionRole role;
    bool have_table = false;

    static uint32_t mr_of(uint32_t id) { return 0x1000 + id * 3; }
    static uint32_t rkey_of(uint32_t id, uint8_t key) { return (mr_of(id) << 8) | key; }

    void check_invariants()
    {
        for (uint32_t id = 0; id < kMaxDepth; ++id) {
            const Request& r = requests[id];
            FUZZ_CHECK(r.completions <= r.submissions);
            FUZZ_CHECK(r.state == Model::kIdle ? r.completions == r.submissions : r.completions + 1 == r.submissions);
            if (have_table && id < table.size()) {
                const auto s = table.slot(id).state();
                FUZZ_CHECK((s == RequestSlot::State::kIdle) == (r.state == Model::kIdle));
                FUZZ_CHECK((s == RequestSlot::State::kAnswered) == (r.state == Model::kAnswered));
            }
        }
        if (path.state() == PathState::kConnected)
            FUZZ_CHECK(have_table && role.queue_depth >= 1 && role.queue_depth <= kMaxDepth);
    }

    void user_done(Request& r, int error)
    {
        FUZZ_CHECK(error == 0 || error == -cxxrt::err::kNotConn || remote_errno_allowed(-error));
        ++r.completions;
        FUZZ_CHECK(r.completions == r.submissions);
    }

    // Teardown after the drain: every request in flight or answered fails
    // over (an answered one's local invalidation was flushed).
    void teardown()
    {
        if (!have_table)
            return;
        for (uint32_t id = 0; id < table.size(); ++id) {
            const auto before = table.slot(id).take();
            Request& r = requests[id];
            FUZZ_CHECK((before == RequestSlot::State::kIdle) == (r.state == Model::kIdle));
            if (r.state != Model::kIdle)
                user_done(r, -cxxrt::err::kNotConn);  // fail-over with no path left
            r.state = Model::kIdle;
            r.proven = false;
        }
        table.reset();
        have_table = false;
    }

    void fail()
    {
        if (path.change_from(PathState::kConnected, PathState::kReconnecting))
            teardown();
    }

    void connect(Input& in)
    {
        codec::ConnRspFields rsp;
        rsp.queue_depth = in.take_u16() % 80;  // 0, in range and above kMaxDepth
        rsp.max_io_size = in.take_u32();
        rsp.max_hdr_size = in.take_u16();
        rsp.flags = in.take_u8() & 1 ? wire::kMsgFlagNewRkey : 0;
        if (path.state() == PathState::kReconnecting)
            (void)path.change(PathState::kConnecting);
        if (path.state() != PathState::kConnecting)
            return;
        ConnRspLimits limits;
        limits.max_queue_depth = kMaxDepth;
        limits.min_hdr_size = 64;
        auto accepted = check_conn_rsp(rsp, limits);
        if (accepted) {
            FUZZ_CHECK(rsp.queue_depth >= 1 && rsp.queue_depth <= kMaxDepth && rsp.max_io_size >= kClientMinIoSize &&
                  rsp.max_hdr_size >= 64 && rsp.max_hdr_size <= kClientMaxHeaderSize);
            accepted = table.init(rsp.queue_depth, cxxrt::Gfp::kernel());
        }
        if (!accepted) {
            (void)path.change(PathState::kConnectingError);
            (void)path.change(PathState::kReconnecting);
            return;
        }
        have_table = true;
        for (uint32_t id = 0; id < rsp.queue_depth; ++id)
            FUZZ_CHECK(table.index_rkey(id, rkey_of(id, requests[id].key)).is_ok());
        role.queue_depth = rsp.queue_depth;
        role.always_invalidate = (rsp.flags & wire::kMsgFlagNewRkey) != 0;
        // INFO_RSP: only a plain SEND that fits.
        ReceiveEvent info;
        const uint8_t flags = in.take_u8();
        info.send = flags & 1;
        info.has_imm = flags & 2;
        info.with_invalidate = flags & 4;
        info.byte_len = in.take_u16();
        const uint32_t buffer = uint32_t(wire::info_rsp_size(rsp.queue_depth));
        if (!check_info_rsp_receive(info, buffer)) {
            FUZZ_CHECK(!info.send || info.has_imm || info.with_invalidate || info.byte_len > buffer);
            (void)path.change(PathState::kConnectingError);
            (void)path.change(PathState::kReconnecting);
            table.reset();
            have_table = false;
            return;
        }
        FUZZ_CHECK(path.change_from(PathState::kConnecting, PathState::kConnected));
    }

    void submit(Input& in)
    {
        const uint32_t id = in.take_u8() % kMaxDepth;
        const bool read = in.take_u8() & 1;
        if (path.state() != PathState::kConnected || id >= table.size())
            return;
        Request& r = requests[id];
        RequestSlot& slot = table.slot(id);
        if (r.state != Model::kIdle) {
            FUZZ_CHECK(!slot.start(false, 0));
            return;
        }
        if (read)
            ++r.key;
        r.registered = read;
        r.rkey = read ? rkey_of(id, r.key) : 0;
        r.proven = false;
        FUZZ_CHECK(slot.start(r.registered, r.rkey));
        r.state = Model::kInFlight;
        ++r.submissions;
    }

    void receive(Input& in)
    {
        if (path.state() != PathState::kConnected)
            return;
        ReceiveEvent event;
        const uint8_t flags = in.take_u8();
        event.send = flags & 1;
        event.has_imm = flags & 2;
        event.with_invalidate = flags & 4;
        const uint32_t target = in.take_u8() % kMaxDepth;
        switch (flags >> 3 & 3) {
        case 0: event.imm = in.take_u32(); break;
        case 1: event.imm = codec::encode_io_response_imm(target, -int(in.take_u16() % 600), flags & 0x20).value(); break;
        case 2: event.imm = flags & 0x20 ? wire::kHeartbeatImm : wire::kHeartbeatAckImm; break;
        default: event.imm = wire::make_imm(wire::ImmType::kIoResponse, in.take_u32() & wire::kImmPayloadMask); break;
        }
        event.invalidated_rkey = flags & 0x40 ? rkey_of(target, uint8_t(requests[target].key + (flags >> 7)))
                                              : in.take_u32();
        uint8_t payload[sizeof(wire::RkeyRsp)];
        const bool own_id = in.take_u8() & 1;
        FUZZ_CHECK(codec::build_rkey_rsp(cxxrt::ByteSpan(payload, sizeof(payload)), uint16_t(own_id ? target : in.take_u16()),
                                    in.take_u32())
                  .is_ok());
        event.byte_len = in.take_u8() % (sizeof(payload) + 4);
        role.carries_io = !(in.take_u8() & 0x80);

        const ReceiveDecision d = classify_receive(event, cxxrt::ConstByteSpan(payload, sizeof(payload)), role);
        switch (d.kind) {
        case ReceiveKind::kInvalidation: {
            FUZZ_CHECK(event.with_invalidate && role.carries_io);
            const uint32_t id = table.find(d.invalidated_rkey);
            const bool proof = table.on_invalidation(d.invalidated_rkey).is_ok();
            if (proof) {
                FUZZ_CHECK(id < table.size());
                Request& r = requests[id];
                FUZZ_CHECK(r.state == Model::kInFlight && r.registered && r.rkey == d.invalidated_rkey && !r.proven);
                r.proven = true;
            } else {
                fail();
            }
            return;
        }
        case ReceiveKind::kResponse: {
            FUZZ_CHECK(d.id < role.queue_depth && role.carries_io && event.has_imm && !event.with_invalidate);
            FUZZ_CHECK(d.err == 0 || remote_errno_allowed(-d.err));
            auto answer = table.on_response(d.id, d.claims_invalidated);
            Request& r = requests[d.id];
            if (!answer) {
                // Refused: unknown, idle or already answered, or an
                // unproven invalidation claim. Nothing completes.
                FUZZ_CHECK(r.state != Model::kInFlight || (d.claims_invalidated && !r.registered));
                fail();
                return;
            }
            FUZZ_CHECK(r.state == Model::kInFlight);
            FUZZ_CHECK(answer.value().invalidate_locally == (r.registered && !(d.claims_invalidated && r.proven)));
            r.state = Model::kAnswered;
            pending_error[d.id] = d.err;
            return;
        }
        case ReceiveKind::kHeartbeat:
        case ReceiveKind::kHeartbeatAck:
            FUZZ_CHECK(event.has_imm && !event.send && !event.with_invalidate);
            return;
        case ReceiveKind::kError:
            fail();
            return;
        }
    }

    void finish(Input& in)
    {
        const uint32_t id = in.take_u8() % kMaxDepth;
        if (!have_table || id >= table.size() || requests[id].state != Model::kAnswered)
            return;
        table.slot(id).finish();
        Request& r = requests[id];
        r.state = Model::kIdle;
        r.proven = false;
        user_done(r, pending_error[id]);
    }

    void event(Input& in)
    {
        switch (in.take_u8() % 4) {
        case 0: fail(); break;  // disconnect, heartbeat timeout, QP error
        case 1:                 // reconnect work
            if (path.state() == PathState::kReconnecting)
                (void)path.change(PathState::kConnecting);
            break;
        case 2:  // close (sysfs disconnect / session close)
            if (path.change(PathState::kClosing)) {
                teardown();
                FUZZ_CHECK(path.change(PathState::kClosed));
            }
            break;
        default:  // sysfs reconnect: a connected path fails first, a closed one starts over
            if (path.state() == PathState::kClosed)
                (void)path.change_from(PathState::kClosed, PathState::kReconnecting);
            else
                fail();
            break;
        }
    }

    int pending_error[kMaxDepth] = {};
};

}  // namespace

FUZZ_TARGET(data, size)
{
    Harness* h = new Harness();
    Input in(data, size);
    for (int steps = 0; !in.is_empty() && steps < 2000; ++steps) {
        switch (in.take_u8() % 6) {
        case 0: h->connect(in); break;
        case 1:
        case 2: h->submit(in); break;
        case 3: h->receive(in); break;
        case 4: h->finish(in); break;
        default: h->event(in); break;
        }
        h->check_invariants();
    }
    // Session close: every submission has completed exactly once.
    if (h->path.change(PathState::kClosing))
        h->teardown();
    h->teardown();
    for (const Request& r : h->requests)
        FUZZ_CHECK(r.state == Model::kIdle && r.completions == r.submissions);
    delete h;
    return 0;
}
