// rtrs-client: what the client accepts from a server, as kernel-independent
// code (host unit tests, libFuzzer). A server is not trusted: every field of
// CON_RSP, every receive completion and every answer is checked here before
// the path acts on it, and anything the protocol does not allow is an error
// the path answers by failing (closing and reconnecting), never by crashing,
// completing a request twice or keeping stale state.
//
// Pieces:
//   check_conn_rsp     CON_RSP limits this client can live with
//   classify_receive   one receive work completion -> what it is
//   RequestSlot        one request's answer state and READ registration
//   RequestTable       the path's slots plus an rkey -> request index, so a
//                      server's SEND_WITH_INV proves the invalidation of
//                      exactly one live registration
#pragma once

#include <cxxrt/array.hpp>
#include <cxxrt/atomic.hpp>
#include <cxxrt/list.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/types.hpp>
#include "rtrs/core/rtrs-codec.hpp"
#include "rtrs/core/rtrs-remote-errno.hpp"

namespace rtrs::clt {

using namespace cxxrt::integers;

// CON_RSP bounds of this client (Documentation/protocol.md "What the client
// checks"). Queue depth: upstream servers default to 512; every request
// costs the client an MR, a scatterlist and a DMA buffer per path, so a
// hostile depth of 65535 is refused rather than allocated.
inline constexpr u32 kClientMaxQueueDepth = 4096;
// The block layer needs at least one page per request.
inline constexpr u32 kClientMinIoSize = 4096;
// Header room per chunk: upstream sends PAGE_SIZE (4 KiB; 64 KiB pages exist).
inline constexpr u32 kClientMaxHeaderSize = 65536;

struct ConnRspLimits {
    u32 max_queue_depth = kClientMaxQueueDepth;
    u32 min_io_size = kClientMinIoSize;
    u32 max_hdr_size = kClientMaxHeaderSize;
    u32 min_hdr_size = 0;  // the user header plus a READ message with one descriptor
    bool asked_key_after_data = false;  // our CON_REQ set wire::kConnReqKeyAfterData
};

// On top of codec::decode_conn_rsp (magic, version, errno == 0, nonzero
// sizes, addressable chunks, known flags): 1 <= queue_depth <= max,
// max_io_size >= min_io_size, min_hdr_size <= max_hdr_size <= max, and
// KEY_AFTER_DATA only if asked for and only with NEW_RKEY. kInval for a
// limit out of range, kMsgSize when the header does not fit, kProto for a
// flag this client did not ask for.
[[nodiscard]] cxxrt::Result<void> check_conn_rsp(const codec::ConnRspFields& rsp, const ConnRspLimits& limits);

// The INFO_RSP receive: it must be a plain SEND (no immediate, no
// invalidation) that fits the receive buffer. kProto otherwise.
struct ReceiveEvent {
    bool send = false;             // IB_WC_RECV: the server posted a SEND
    bool has_imm = false;          // IB_WC_WITH_IMM
    u32 imm = 0;                   // host order
    bool with_invalidate = false;  // IB_WC_WITH_INVALIDATE
    u32 invalidated_rkey = 0;      // wc.ex.invalidate_rkey
    u32 byte_len = 0;
};
[[nodiscard]] cxxrt::Result<void> check_info_rsp_receive(const ReceiveEvent& event, u32 buffer_size);

// What a connection may carry.
struct ConnectionRole {
    u32 queue_depth = 0;
    bool always_invalidate = false;  // CON_RSP's NEW_RKEY flag: answers are SENDs with an RKEY_RSP
    // CON_RSP's KEY_AFTER_DATA flag (with NEW_RKEY): an answer may also be an
    // RDMA write with immediate whose new rkey follows the READ's data.
    bool key_after_data = false;
    bool carries_io = false;         // an IO connection (or the only connection)
};

enum class ReceiveKind : u8 {
    kInvalidation,  // the server's SEND_WITH_INV: invalidated_rkey
    kResponse,      // an answer: id, err (already passed through remote_errno), claims_invalidated
    kHeartbeat,
    kHeartbeatAck,
    kError,         // why: a protocol violation, the path must fail
};

struct ReceiveDecision {
    ReceiveKind kind = ReceiveKind::kError;
    u32 id = 0;
    int err = 0;
    bool claims_invalidated = false;
    bool has_new_rkey = false;  // RKEY_RSP: the chunk `id` has a new rkey
    u32 new_rkey = 0;
    // KEY_AFTER_DATA: the chunk's new rkey follows the data in the READ's
    // buffer (valid only for a READ that named such a buffer: the caller checks).
    bool key_after_data = false;
    u32 invalidated_rkey = 0;
    const char* why = "";
};

// One successful receive work completion. `payload` is what the receive
// buffer holds (byte_len bytes at most). Never fails open: anything not
// listed in the protocol is kError.
ReceiveDecision classify_receive(const ReceiveEvent& event, cxxrt::ConstByteSpan payload, const ConnectionRole& role);

// One request of a path. Submission (any context) and the answer (softirq)
// meet here: only one answer per submission is accepted, and a READ's
// registration is kept unless the server proved it invalidated it.
class RequestSlot : cxxrt::Pinned {
public:
    enum class State : u8 { kIdle, kInFlight, kAnswered };

    // Submission: idle -> in flight. `registered`: a READ whose MR with
    // `rkey` the server may write to. False if the slot is not idle.
    [[nodiscard]] bool start(bool registered, u32 rkey);
    // Submission failed before anything was posted: back to idle.
    void abort();
    // The server's SEND_WITH_INV for `rkey`: true if it names this slot's
    // live registration (in flight, same rkey).
    [[nodiscard]] bool prove_invalidated(u32 rkey);

    struct Answer {
        bool invalidate_locally = false;
    };
    // The server's answer: in flight -> answered. kAlready if the request
    // is not in flight (early, duplicate or unknown answer); kProto if the
    // answer claims an invalidation of a request without registration
    // (then the slot stays in flight). A claim the server did not prove
    // with a SEND_WITH_INV of exactly this rkey is not trusted: the answer
    // stands and invalidate_locally is set. Without `proofs_tracked` (no
    // usable rkey index) no claim is trusted.
    [[nodiscard]] cxxrt::Result<Answer> answer(bool claims_invalidated, bool proofs_tracked = true);
    // The answer was handed to the user: answered -> idle.
    void finish();
    // Teardown (after the QPs drained): back to idle, the previous state.
    State take();

    State state() const { return state_.load(cxxrt::MemoryOrder::kAcquire); }
    bool registered() const { return registered_; }
    u32 rkey() const { return rkey_; }

private:
    cxxrt::Atomic<State> state_{State::kIdle};
    cxxrt::Atomic<bool> proven_{false};
    bool registered_ = false;
    u32 rkey_ = 0;
};

// The request slots of a path and an index from MR (rkey without its
// 8-bit key part) to request id.
class RequestTable : cxxrt::Pinned {
public:
    static constexpr u32 kNone = ~u32(0);

    RequestTable() = default;
    ~RequestTable() { reset(); }

    [[nodiscard]] cxxrt::Result<void> init(u32 count, cxxrt::Gfp gfp);
    void reset();
    u32 size() const { return slots_.size(); }
    RequestSlot& slot(u32 id) { return slots_[id]; }

    // Records that request `id` registers through the MR of `rkey` (any
    // key part). kExist if another request uses that MR: then no
    // invalidation is ever taken as proven (the path invalidates locally).
    [[nodiscard]] cxxrt::Result<void> index_rkey(u32 id, u32 rkey);
    u32 find(u32 rkey) const;

    // A SEND_WITH_INV arrived: kProto unless it names a live registration
    // (ignored when the index is not usable).
    [[nodiscard]] cxxrt::Result<void> on_invalidation(u32 rkey);
    // An answer for `id`: kInval if no such request, else RequestSlot::answer.
    [[nodiscard]] cxxrt::Result<RequestSlot::Answer> on_response(u32 id, bool claims_invalidated);

private:
    static u32 mr_of(u32 rkey) { return rkey >> 8; }
    cxxrt::Array<RequestSlot> slots_;
    cxxrt::Array<u32> index_mrs_;  // open addressing, mask_ + 1 entries
    cxxrt::Array<u32> index_ids_;
    u32 mask_ = 0;
    bool index_usable_ = true;
};

// The names of this module's live sessions (they name sysfs directories
// and the server's sessions, so two must never share one). claim() checks
// and records under one lock, so two concurrent opens of one name cannot
// both pass; release() (the session's destructor, on every error path too)
// unlinks, so a failed open never leaves its name behind.
class SessionNames : cxxrt::Pinned {
public:
    struct Entry {
        cxxrt::ListNode node;
        const char* name = nullptr;
    };

    SessionNames() = default;
    ~SessionNames();
    // kExist if a live session has `name`; else `entry` records it (the
    // string must outlive the claim).
    [[nodiscard]] cxxrt::Result<void> claim(Entry& entry, const char* name);
    // Idempotent.
    void release(Entry& entry);
    u32 count();

private:
    cxxrt::Mutex lock_{cxxrt::lock_class<"rtrs::clt::SessionNames::lock_">};
    cxxrt::IntrusiveList<Entry, &Entry::node> entries_ CXXRT_GUARDED_BY(lock_);
};

}  // namespace rtrs::clt
