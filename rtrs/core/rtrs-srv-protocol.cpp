// The server's per-path protocol state machine (see the header for the rules).
#include "rtrs/core/rtrs-srv-protocol.hpp"
#include <proto/rtrs-wire.hpp>
#include <cxxrt/enforce.hpp>

namespace rtrs::srv {

using namespace cxxrt;

Result<void> PathProtocol::init(u16 connection_count)
{
    if (connection_count == 0 || connections_)
        return Error(err::kInval);
    // Every connection starts kAbsent.
    connections_ = CXXRT_TRY(Array<Atomic<ConnectionState>>::create(Gfp::kernel(), connection_count));
    connection_count_ = connection_count;
    return {};
}

PathProtocol::ConnectionState PathProtocol::connection_state(u16 cid) const
{
    return cid < connection_count_ ? connections_[cid].load() : ConnectionState::kAbsent;
}

bool PathProtocol::known_connection(u16 cid) const
{
    return connection_state(cid) != ConnectionState::kAbsent;
}

Result<void> PathProtocol::connection_request(u16 cid)
{
    if (closed())
        return Error(err::kConnReset);
    if (cid >= connection_count_)
        return Error(err::kInval);
    ConnectionState expected = ConnectionState::kAbsent;
    if (!connections_[cid].compare_exchange(expected, ConnectionState::kAccepted))
        return Error(err::kExist);
    return {};
}

Verdict PathProtocol::established(u16 cid)
{
    if (closed())
        return Verdict::kIgnore;
    ConnectionState expected = ConnectionState::kAccepted;
    if (cid >= connection_count_ || !connections_[cid].compare_exchange(expected, ConnectionState::kEstablished))
        return Verdict::kClose;
    return Verdict::kAccept;
}

Verdict PathProtocol::received(u16 cid, ClientMessage message)
{
    const State now = state();
    if (now == State::kClosed)
        return Verdict::kIgnore;
    // The first message may overtake the CM's ESTABLISHED event (the QP
    // is ready to receive from accept on), so kAccepted is enough here.
    if (!known_connection(cid))
        return Verdict::kClose;
    switch (message) {
    case ClientMessage::kInfoRequest: {
        if (cid != 0)
            return Verdict::kClose;
        State expected = State::kConnecting;
        if (!state_.compare_exchange(expected, State::kInfoReceived))
            return expected == State::kClosed ? Verdict::kIgnore : Verdict::kClose;
        info_requests_.fetch_add(1);
        return Verdict::kAccept;
    }
    case ClientMessage::kIoRequest:
        return now == State::kReady ? Verdict::kAccept : Verdict::kClose;
    case ClientMessage::kHeartbeat:
    case ClientMessage::kHeartbeatAck:
        return now == State::kReady && cid == 0 ? Verdict::kAccept : Verdict::kClose;
    case ClientMessage::kOther:
        break;
    }
    return Verdict::kClose;
}

bool PathProtocol::info_done()
{
    State expected = State::kInfoReceived;
    return state_.compare_exchange(expected, State::kReady);
}

Verdict PathProtocol::info_deadline()
{
    const State now = state();
    if (now == State::kClosed || now == State::kReady)
        return Verdict::kIgnore;
    return Verdict::kClose;
}

bool PathProtocol::close()
{
    return state_.exchange(State::kClosed) != State::kClosed;
}

ClientMessage classify_client_immediate(u32 imm)
{
    switch (wire::imm_type_bits(imm)) {
    case u32(wire::ImmType::kIoRequest):
        return ClientMessage::kIoRequest;
    case u32(wire::ImmType::kHeartbeat):
        return imm == wire::kHeartbeatImm ? ClientMessage::kHeartbeat : ClientMessage::kOther;
    case u32(wire::ImmType::kHeartbeatAck):
        return imm == wire::kHeartbeatAckImm ? ClientMessage::kHeartbeatAck : ClientMessage::kOther;
    default:
        return ClientMessage::kOther;
    }
}

}  // namespace rtrs::srv
