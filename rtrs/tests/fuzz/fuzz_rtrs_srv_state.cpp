// libFuzzer target: the server's per-path protocol state machine driven by
// sequences of events (connect requests, CM events, messages, timeouts,
// closes). After each step a reference model must agree with the verdict,
// and these invariants hold: closed is final; at most one INFO_REQ is ever
// accepted, only on connection 0; IO is accepted only when ready on a
// connection that was accepted; heartbeats only on connection 0 when ready;
// nothing is accepted after close.
#include "rtrs/core/rtrs-srv-protocol.hpp"
#include "cxxrt/tests/fuzz/fuzz-support.hpp"

using namespace rtrs::srv;
using namespace cxxrt::integers;

namespace {

enum class Event : u8 {
    kConnect,
    kEstablished,
    kDisconnected,
    kInfo,
    kInfoDone,
    kIo,
    kHeartbeat,
    kHeartbeatAck,
    kOther,
    kDeadline,
    kClose,
    kCount
};

constexpr u16 kMaxConnections = 8;

struct Model {
    PathProtocol::State state = PathProtocol::State::kConnecting;
    PathProtocol::ConnectionState connections[kMaxConnections + 1] = {};
    unsigned info_accepted = 0;
};

}  // namespace

FUZZ_TARGET(data, size)
{
    if (size < 1)
        return 0;
    using S = PathProtocol::State;
    using C = PathProtocol::ConnectionState;
    const u16 count = u16(data[0] % kMaxConnections + 1);
    PathProtocol path;
    FUZZ_CHECK(path.init(count).is_ok());
    Model model;
    for (__SIZE_TYPE__ i = 1; i + 1 < size; i += 2) {
        const Event event = Event(data[i] % u8(Event::kCount));
        const u16 cid = u16(data[i + 1] % (kMaxConnections + 1));  // sometimes out of range
        const bool closed_before = model.state == S::kClosed;
        const bool known = cid < count && model.connections[cid] != C::kAbsent;
        Verdict verdict = Verdict::kIgnore;
        switch (event) {
        case Event::kConnect: {
            auto result = path.connection_request(cid);
            const bool expect_ok = !closed_before && cid < count && model.connections[cid] == C::kAbsent;
            FUZZ_CHECK(result.is_ok() == expect_ok);
            if (expect_ok)
                model.connections[cid] = C::kAccepted;
            continue;
        }
        case Event::kEstablished:
            verdict = path.established(cid);
            if (!closed_before) {
                const bool ok = cid < count && model.connections[cid] == C::kAccepted;
                FUZZ_CHECK(verdict == (ok ? Verdict::kAccept : Verdict::kClose));
                if (ok)
                    model.connections[cid] = C::kEstablished;
            }
            break;
        case Event::kDisconnected:
            verdict = closed_before ? Verdict::kIgnore : Verdict::kClose;
            break;
        case Event::kInfo:
            verdict = path.received(cid, ClientMessage::kInfoRequest);
            if (!closed_before) {
                const bool ok = known && cid == 0 && model.state == S::kConnecting;
                FUZZ_CHECK(verdict == (ok ? Verdict::kAccept : Verdict::kClose));
                if (ok) {
                    model.state = S::kInfoReceived;
                    ++model.info_accepted;
                }
            }
            break;
        case Event::kInfoDone: {
            const bool done = path.info_done();
            FUZZ_CHECK(done == (model.state == S::kInfoReceived));
            if (done)
                model.state = S::kReady;
            continue;
        }
        case Event::kIo:
            verdict = path.received(cid, ClientMessage::kIoRequest);
            if (!closed_before)
                FUZZ_CHECK(verdict == (known && model.state == S::kReady ? Verdict::kAccept : Verdict::kClose));
            break;
        case Event::kHeartbeat:
        case Event::kHeartbeatAck:
            verdict = path.received(cid, event == Event::kHeartbeat ? ClientMessage::kHeartbeat
                                                                    : ClientMessage::kHeartbeatAck);
            if (!closed_before)
                FUZZ_CHECK(verdict ==
                      (known && cid == 0 && model.state == S::kReady ? Verdict::kAccept : Verdict::kClose));
            break;
        case Event::kOther:
            verdict = path.received(cid, ClientMessage::kOther);
            if (!closed_before)
                FUZZ_CHECK(verdict == Verdict::kClose);
            break;
        case Event::kDeadline:
            verdict = path.info_deadline();
            FUZZ_CHECK(verdict == (closed_before || model.state == S::kReady ? Verdict::kIgnore : Verdict::kClose));
            break;
        case Event::kClose:
            FUZZ_CHECK(path.close() == !closed_before);
            model.state = S::kClosed;
            continue;
        case Event::kCount:
            break;
        }
        if (closed_before)
            FUZZ_CHECK(verdict == Verdict::kIgnore);
        // The caller closes on kClose, as the server does.
        if (verdict == Verdict::kClose) {
            FUZZ_CHECK(path.close() == !closed_before);
            model.state = S::kClosed;
        }
        // Invariants after every step.
        FUZZ_CHECK(path.state() == model.state);
        FUZZ_CHECK(path.info_requests_accepted() == model.info_accepted && model.info_accepted <= 1);
        for (u16 c = 0; c < count; ++c)
            FUZZ_CHECK(path.connection_state(c) == model.connections[c]);
        if (path.ready())
            FUZZ_CHECK(model.info_accepted == 1 && model.connections[0] != C::kAbsent);
    }
    FUZZ_CHECK(path.connection_state(kMaxConnections) == PathProtocol::ConnectionState::kAbsent);
    return 0;
}
