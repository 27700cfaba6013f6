// rtrs-client: checks of what a server sends (see rtrs-clt-proto.hpp).
#include "rtrs/core/rtrs-clt-proto.hpp"

#include <proto/rtrs-wire.hpp>

namespace rtrs::clt {

using cxxrt::ConstByteSpan;
using cxxrt::Error;
using cxxrt::Result;
namespace err = cxxrt::err;

Result<void> check_conn_rsp(const codec::ConnRspFields& rsp, const ConnRspLimits& limits)
{
    if (rsp.queue_depth == 0 || rsp.queue_depth > limits.max_queue_depth)
        return Error(err::kInval);
    if (rsp.max_io_size < limits.min_io_size)
        return Error(err::kInval);
    if (rsp.max_hdr_size > limits.max_hdr_size)
        return Error(err::kInval);
    if (rsp.max_hdr_size < limits.min_hdr_size)
        return Error(err::kMsgSize);
    if ((rsp.flags & wire::kMsgFlagKeyAfterData) &&
        (!limits.asked_key_after_data || !(rsp.flags & wire::kMsgFlagNewRkey)))
        return Error(err::kProto);
    return {};
}

Result<void> check_info_rsp_receive(const ReceiveEvent& event, u32 buffer_size)
{
    if (!event.send || event.has_imm || event.with_invalidate || event.byte_len > buffer_size)
        return Error(err::kProto);
    return {};
}

namespace {

ReceiveDecision error(const char* why)
{
    ReceiveDecision decision;
    decision.kind = ReceiveKind::kError;
    decision.why = why;
    return decision;
}

}  // namespace

ReceiveDecision classify_receive(const ReceiveEvent& event, ConstByteSpan payload, const ConnectionRole& role)
{
    if (event.with_invalidate) {
        // SEND_WITH_INV carries no immediate (the same field holds the rkey).
        if (!event.send || event.has_imm)
            return error("invalidation with an immediate");
        if (!role.carries_io)
            return error("invalidation on the service connection");
        ReceiveDecision decision;
        decision.kind = ReceiveKind::kInvalidation;
        decision.invalidated_rkey = event.invalidated_rkey;
        return decision;
    }
    if (!event.has_imm)
        return error("a message without immediate");
    const u32 type = wire::imm_type_bits(event.imm);
    if (type == u32(wire::ImmType::kHeartbeat) || type == u32(wire::ImmType::kHeartbeatAck)) {
        if (event.send)
            return error("a heartbeat as a SEND");
        ReceiveDecision decision;
        decision.kind = type == u32(wire::ImmType::kHeartbeat) ? ReceiveKind::kHeartbeat : ReceiveKind::kHeartbeatAck;
        return decision;
    }
    if (type != u32(wire::ImmType::kIoResponse) && type != u32(wire::ImmType::kIoResponseInvalidate))
        return error("unknown immediate type");
    if (!role.carries_io)
        return error("an answer on the service connection");
    auto response = codec::decode_io_response_imm(event.imm, role.queue_depth);
    if (!response)
        return error("an answer for a request id beyond the queue depth");
    ReceiveDecision decision;
    decision.kind = ReceiveKind::kResponse;
    decision.id = response.value().msg_id;
    decision.err = remote_errno(response.value().err);
    decision.claims_invalidated = response.value().invalidated;
    // always_invalidate: every answer is a SEND carrying the chunk's new
    // rkey, or with KEY_AFTER_DATA an RDMA write with immediate whose key
    // follows a READ's data; otherwise every answer is an RDMA write with
    // immediate.
    if (role.always_invalidate && !event.send && role.key_after_data) {
        decision.key_after_data = true;
        return decision;
    }
    if (role.always_invalidate != event.send)
        return error(role.always_invalidate ? "an answer without RKEY_RSP" : "an unexpected RKEY_RSP");
    if (role.always_invalidate) {
        if (event.byte_len < payload.size())
            payload = payload.first(event.byte_len);
        auto rkey = codec::decode_rkey_rsp(payload, role.queue_depth);
        if (!rkey)
            return error("a bad RKEY_RSP");
        if (rkey.value().buf_id != decision.id)
            return error("an RKEY_RSP for another request than its answer");
        decision.has_new_rkey = true;
        decision.new_rkey = rkey.value().rkey;
    }
    return decision;
}

// --- RequestSlot -----------------------------------------------------------------

bool RequestSlot::start(bool registered, u32 rkey)
{
    if (state() != State::kIdle)
        return false;
    registered_ = registered;
    rkey_ = rkey;
    proven_.store(false, cxxrt::MemoryOrder::kRelaxed);
    State expected = State::kIdle;
    return state_.compare_exchange(expected, State::kInFlight, cxxrt::MemoryOrder::kAcqRel);
}

void RequestSlot::abort()
{
    registered_ = false;
    state_.store(State::kIdle, cxxrt::MemoryOrder::kRelease);
}

bool RequestSlot::prove_invalidated(u32 rkey)
{
    if (state() != State::kInFlight || !registered_ || rkey != rkey_)
        return false;
    // A second SEND_WITH_INV for one registration is not something a
    // server does: the first one already consumed the key.
    return !proven_.exchange(true);
}

Result<RequestSlot::Answer> RequestSlot::answer(bool claims_invalidated, bool proofs_tracked)
{
    if (state() != State::kInFlight)
        return Error(err::kAlready);
    const bool proven = proofs_tracked && proven_.load(cxxrt::MemoryOrder::kAcquire);
    // A claim for a request without registration is nonsense; an unproven
    // claim is not trusted (the MR is invalidated here below) but the
    // answer itself stands, as for a server that did not claim at all.
    if (claims_invalidated && !registered_)
        return Error(err::kProto);
    State expected = State::kInFlight;
    if (!state_.compare_exchange(expected, State::kAnswered, cxxrt::MemoryOrder::kAcqRel))
        return Error(err::kAlready);
    Answer result;
    result.invalidate_locally = registered_ && !(claims_invalidated && proven);
    return result;
}

void RequestSlot::finish()
{
    registered_ = false;
    state_.store(State::kIdle, cxxrt::MemoryOrder::kRelease);
}

RequestSlot::State RequestSlot::take()
{
    registered_ = false;
    return state_.exchange(State::kIdle, cxxrt::MemoryOrder::kAcqRel);
}

// --- RequestTable ------------------------------------------------------------------

Result<void> RequestTable::init(u32 count, cxxrt::Gfp gfp)
{
    reset();
    if (count == 0 || count > wire::kMaxQueueDepth)
        return Error(err::kInval);
    slots_ = CXXRT_TRY(cxxrt::Array<RequestSlot>::create(gfp, count));
    u32 buckets = 1;
    while (buckets < 2 * count)
        buckets <<= 1;
    auto mrs = cxxrt::Array<u32>::create_zeroed(gfp, buckets);
    auto ids = cxxrt::Array<u32>::create(gfp, buckets, [](u32) { return kNone; });
    if (!mrs || !ids) {
        reset();
        return Error(err::kNoMem);
    }
    index_mrs_ = mrs.release_value();
    index_ids_ = ids.release_value();
    mask_ = buckets - 1;
    index_usable_ = true;
    return {};
}

void RequestTable::reset()
{
    slots_.reset();
    index_mrs_.reset();
    index_ids_.reset();
    mask_ = 0;
}

namespace {
u32 bucket_of(u32 mr) { return mr * 0x9e3779b1u; }
}  // namespace

Result<void> RequestTable::index_rkey(u32 id, u32 rkey)
{
    if (id >= slots_.size() || !index_ids_)
        return Error(err::kInval);
    const u32 mr = mr_of(rkey);
    for (u32 i = bucket_of(mr) & mask_;; i = (i + 1) & mask_) {
        if (index_ids_[i] == kNone) {
            index_mrs_[i] = mr;
            index_ids_[i] = id;
            return {};
        }
        if (index_mrs_[i] == mr) {
            index_usable_ = false;
            return Error(err::kExist);
        }
    }
}

u32 RequestTable::find(u32 rkey) const
{
    if (!index_ids_ || !index_usable_)
        return kNone;
    const u32 mr = mr_of(rkey);
    // At most size() entries in 2 * size() buckets: a free bucket ends the probe.
    for (u32 i = bucket_of(mr) & mask_;; i = (i + 1) & mask_) {
        if (index_ids_[i] == kNone)
            return kNone;
        if (index_mrs_[i] == mr)
            return index_ids_[i];
    }
}

Result<void> RequestTable::on_invalidation(u32 rkey)
{
    if (!index_usable_)
        return {};
    const u32 id = find(rkey);
    if (id == kNone || !slots_[id].prove_invalidated(rkey))
        return Error(err::kProto);
    return {};
}

Result<RequestSlot::Answer> RequestTable::on_response(u32 id, bool claims_invalidated)
{
    if (id >= slots_.size())
        return Error(err::kInval);
    return slots_[id].answer(claims_invalidated, index_usable_ && index_ids_);
}

// --- SessionNames ---------------------------------------------------------------------

namespace {
bool same_name(const char* a, const char* b)
{
    while (*a && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}
}  // namespace

SessionNames::~SessionNames()
{
    cxxrt::MutexGuard guard(lock_);
    while (Entry* entry = entries_.pop_front())
        entry->name = nullptr;
}

Result<void> SessionNames::claim(Entry& entry, const char* name)
{
    if (!name || entry.node.is_linked())
        return Error(err::kInval);
    cxxrt::MutexGuard guard(lock_);
    for (Entry& other : entries_)
        if (same_name(other.name, name))
            return Error(err::kExist);
    entry.name = name;
    entries_.push_back(entry);
    return {};
}

void SessionNames::release(Entry& entry)
{
    cxxrt::MutexGuard guard(lock_);
    if (entry.node.is_linked())
        entries_.remove(entry);
}

u32 SessionNames::count()
{
    cxxrt::MutexGuard guard(lock_);
    u32 n = 0;
    for (Entry& entry : entries_) {
        (void)entry;
        ++n;
    }
    return n;
}

}  // namespace rtrs::clt
