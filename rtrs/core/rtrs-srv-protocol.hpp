// The server's view of one client path as a protocol state machine: which
// message is valid on which connection in which state. Kernel-independent,
// host-tested (tests/host/test_rtrs_srv_protocol.cpp) and fuzzed with
// sequences of events (tests/fuzz/fuzz_rtrs_srv_state.cpp).
//
// Path states:
//   kConnecting    connections are being accepted; only INFO_REQ is valid,
//                  and only on connection 0 (the service connection)
//   kInfoReceived  the one INFO_REQ is being answered; nothing else is valid
//                  (IO before INFO_RSP would reach a user that has not
//                  learned about the session yet)
//   kReady         INFO_RSP is out: IO on any connection of the path (Linux's
//                  client sends its control IO on connection 0), heartbeats
//                  and their acknowledgements on connection 0 only
//   kClosed        final; every event is ignored, nothing is accepted
// Connection states: kAbsent -> kAccepted (CON_REQ taken) -> kEstablished.
// A message on a connection that was never accepted closes the path.
//
// Any thread may call any method: state changes are single atomic
// transitions, so racing events (an IO completion in softirq, a CM event, a
// timer) each see one consistent state. A verdict of kClose means the
// caller must close the path (schedule_close); close() itself only flips
// the state.
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>

namespace rtrs::srv {

// What a client sent, as far as the state machine cares.
enum class ClientMessage : cxxrt::u8 {
    kInfoRequest,   // a plain SEND (only INFO_REQ is defined client -> server)
    kIoRequest,     // an immediate of type IO request
    kHeartbeat,     // an immediate of type heartbeat
    kHeartbeatAck,  // an immediate of type heartbeat acknowledgement
    kOther,         // any other immediate type (server -> client types too)
};

enum class Verdict : cxxrt::u8 {
    kAccept,  // handle it
    kIgnore,  // the path is already closed: drop it silently
    kClose,   // protocol violation: close the path
};

class PathProtocol final : cxxrt::Pinned {
public:
    enum class State : cxxrt::u8 { kConnecting, kInfoReceived, kReady, kClosed };
    enum class ConnectionState : cxxrt::u8 { kAbsent, kAccepted, kEstablished };

    PathProtocol() = default;

    // connection_count: the path's cid_num from its first CON_REQ.
    [[nodiscard]] cxxrt::Result<void> init(cxxrt::u16 connection_count);

    // A CON_REQ for connection cid. -ECONNRESET if the path is closed,
    // -EINVAL if cid is out of range, -EEXIST if cid was already taken.
    [[nodiscard]] cxxrt::Result<void> connection_request(cxxrt::u16 cid);
    // The CM reports connection cid established.
    Verdict established(cxxrt::u16 cid);
    // A message arrived on connection cid.
    Verdict received(cxxrt::u16 cid, ClientMessage message);
    // The INFO_REQ was valid and the session is ready for IO: called just
    // before the INFO_RSP goes out. False if the path closed meanwhile.
    [[nodiscard]] bool info_done();
    // The INFO exchange deadline passed.
    Verdict info_deadline();
    // True if this call closed the path (the caller starts the teardown).
    bool close();

    State state() const { return state_.load(); }
    bool closed() const { return state() == State::kClosed; }
    bool ready() const { return state() == State::kReady; }
    cxxrt::u16 connection_count() const { return connection_count_; }
    ConnectionState connection_state(cxxrt::u16 cid) const;
    cxxrt::u32 info_requests_accepted() const { return info_requests_.load(); }

private:
    bool known_connection(cxxrt::u16 cid) const;

    cxxrt::Atomic<State> state_{State::kConnecting};
    cxxrt::Array<cxxrt::Atomic<ConnectionState>> connections_;
    cxxrt::u16 connection_count_ = 0;
    cxxrt::Atomic<cxxrt::u32> info_requests_{0};
};

// Maps an immediate's type bits to what it means coming from a client.
ClientMessage classify_client_immediate(cxxrt::u32 imm);

}  // namespace rtrs::srv
