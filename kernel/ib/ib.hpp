// kernel::ib — the RDMA layer under RTRS: common types.
//
// Thin C++ over the C boundary in kernel/ib/kapi-rdma.h (RDMA-CM + verbs). The
// classes own kernel objects and free them in their destructors; nothing on
// the IO post path allocates. Contexts, as everywhere in this folder:
//   - CM events: process context (the CM's work queues), may sleep, with the
//     id's handler mutex held (see cm.hpp);
//   - completions (Completion handlers) of an IB_POLL_SOFTIRQ CQ: softirq,
//     must not sleep, allocate only with Gfp::atomic();
//   - create/destroy of every object: process context, may sleep.
// Naming follows the verbs (send queue, work request, SGE, rkey).
#pragma once

#include <cxxrt/callback.hpp>
#include <cxxrt/endian.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"
#include "kernel/ib/kapi-rdma.h"

namespace kernel::ib {

using cxxrt::ConstByteSpan;
using cxxrt::Error;
using cxxrt::Result;
using cxxrt::Span;
using namespace cxxrt::integers;

// Converts between host order and the big-endian bit pattern the verbs
// carry an immediate in (both directions are the same swap).
constexpr u32 swap_be32(u32 v) { return cxxrt::detail::kHostIsLittleEndian ? __builtin_bswap32(v) : v; }

// One scatter/gather element of a work request; the layout of struct ib_sge.
using Sge = kapi_ib_sge;

// The largest private data of an RDMA-CM connect (RC, TCP port space): the
// 92 bytes of an IB CM REQ minus the CM's own 36-byte header. RTRS's CON_REQ
// is exactly this size.
inline constexpr size_t kMaxConnectPrivateData = 56;
inline constexpr size_t kMaxAcceptPrivateData = KABI_IB_CM_REP_PRIVATE_DATA_SIZE;
inline constexpr size_t kMaxRejectPrivateData = KABI_IB_CM_REJ_PRIVATE_DATA_SIZE;

enum class DmaDirection : int {
    kBidirectional = KABI_DMA_BIDIRECTIONAL,
    kToDevice = KABI_DMA_TO_DEVICE,
    kFromDevice = KABI_DMA_FROM_DEVICE,
};

enum class PollContext : int {
    kSoftirq = KABI_IB_POLL_SOFTIRQ,      // handlers run in softirq (IRQ connections), reaped by us in batches
    kWorkqueue = KABI_IB_POLL_WORKQUEUE,  // handlers run in a kworker (the core's poll loop)
    kDirect = KABI_IB_POLL_DIRECT,        // only CompletionQueue::poll_direct() runs them (polled connections)
};

// Told after each poll of a CQ that reaped completions how many it reaped,
// and whether the caller polled (kDirect) rather than an interrupt
// (kSoftirq); the RTRS stats count batches with it (stats/wc_completion).
// Runs in the poll's context, after the batch's handlers. Not called for
// kWorkqueue CQs (the core reaps those). Made as {fn, context}, fn being
// void fn(void* context, u32 completions, bool polled).
using BatchObserver = cxxrt::CallbackWith<u32, bool>;

// Send flags of a work request (bit set of KABI_IB_SEND_*).
enum SendFlags : u32 {
    kUnsignaled = 0,
    kSignaled = KABI_IB_SEND_SIGNALED,
    kSolicited = KABI_IB_SEND_SOLICITED,
    kFence = KABI_IB_SEND_FENCE,
};
constexpr SendFlags operator|(SendFlags a, SendFlags b) { return SendFlags(u32(a) | u32(b)); }

// MR access rights for a registration.
enum Access : int {
    kLocalWrite = KABI_IB_ACCESS_LOCAL_WRITE,
    kRemoteWrite = KABI_IB_ACCESS_REMOTE_WRITE,
    kRemoteRead = KABI_IB_ACCESS_REMOTE_READ,
};
constexpr Access operator|(Access a, Access b) { return Access(int(a) | int(b)); }

// The peer memory an RDMA write goes to.
struct RemoteBuffer {
    u64 addr = 0;
    u32 rkey = 0;
};

// What a completion reports. Only status is meaningful when !ok() (a
// flushed WR after a disconnect reports kFlushed and nothing else).
struct WorkCompletion {
    static constexpr int kSuccess = KABI_IB_WC_SUCCESS;
    static constexpr int kFlushed = KABI_IB_WC_WR_FLUSH_ERR;
    // Opcodes (enum ib_wc_opcode).
    static constexpr int kSend = KABI_IB_WC_SEND;
    static constexpr int kRdmaWrite = KABI_IB_WC_RDMA_WRITE;
    static constexpr int kRdmaRead = KABI_IB_WC_RDMA_READ;
    static constexpr int kLocalInv = KABI_IB_WC_LOCAL_INV;
    static constexpr int kRegMr = KABI_IB_WC_REG_MR;
    static constexpr int kRecv = KABI_IB_WC_RECV;
    static constexpr int kRecvRdmaWithImm = KABI_IB_WC_RECV_RDMA_WITH_IMM;

    int status;
    int opcode;
    u32 byte_len;
    u32 imm_raw;          // wc.ex.imm_data, big-endian bit pattern
    u32 invalidate_rkey;  // wc.ex.invalidate_rkey (same union as imm_raw)
    int flags;

    bool ok() const { return status == kSuccess; }
    bool flushed() const { return status == kFlushed; }
    bool has_imm() const { return (flags & KABI_IB_WC_WITH_IMM) != 0; }
    bool has_invalidate() const { return (flags & KABI_IB_WC_WITH_INVALIDATE) != 0; }
    // The immediate in host order (RTRS packs type and payload in it).
    u32 imm() const { return swap_be32(imm_raw); }
    const char* status_text() const { return kapi_ib_wc_status_msg(status); }
};

// The immediate as a work request carries it: big-endian bit pattern.
constexpr u32 imm_to_wire(u32 host) { return swap_be32(host); }

// A struct ib_cqe living inside a C++ object, with the handler it dispatches
// to. Embed one per outstanding work request (an IU, a request, a MR); the
// object must stay alive until that WR has completed, flushes included.
// Dispatch is a plain function pointer beside the cqe (no virtual call):
//     struct Iu {
//         void on_done(const WorkCompletion& wc);
//         Completion done{Completion::member<Iu, &Iu::on_done>, this};
//     };
// Handlers run in the CQ's poll context (softirq for PollContext::kSoftirq).
class Completion : cxxrt::Pinned {
public:
    using Handler = cxxrt::CallbackWith<const WorkCompletion&>::Fn;

    Completion(Handler handler, void* owner) : handler_(handler, owner) { kapi_ib_cqe_init(cqe()); }

    template <typename T, void (T::*Method)(const WorkCompletion&)>
    static void member(void* owner, const WorkCompletion& wc)
    {
        (static_cast<T*>(owner)->*Method)(wc);
    }

    ib_cqe* cqe() { return reinterpret_cast<ib_cqe*>(cqe_); }
    void* owner() const { return handler_.context(); }

    // From kernel_ib_wc_done (the C upcall): back from cqe storage to us.
    static Completion* from_cqe(ib_cqe* cqe)
    {
        return reinterpret_cast<Completion*>(reinterpret_cast<u8*>(cqe) - __builtin_offsetof(Completion, cqe_));
    }
    void dispatch(const WorkCompletion& wc) { handler_.call(wc); }

private:
    alignas(KABI_ALIGNOF_IB_CQE) u8 cqe_[KABI_SIZEOF_IB_CQE];
    cxxrt::CallbackWith<const WorkCompletion&> handler_;
};

struct DeviceAttrs {
    u32 max_qp_wr = 0;
    u32 max_send_sge = 0;
    u32 max_recv_sge = 0;
    u32 max_cqe = 0;
    u32 max_fast_reg_page_list_len = 0;  // pages one fast-reg MR can map
    u32 num_comp_vectors = 0;
    u64 max_mr_size = 0;
    bool mem_mgt_extensions = false;  // fast registration supported
    bool sg_gaps_reg = false;
};

// A non-owning handle on an ib_device (the one a cm_id is bound to). The
// device outlives every object made on it (the CM sends DEVICE_REMOVAL and
// waits for our ids to go first).
class Device {
public:
    constexpr Device() = default;
    constexpr explicit Device(ib_device* raw) : raw_(raw) {}
    ib_device* raw() const { return raw_; }
    explicit operator bool() const { return raw_ != nullptr; }
    bool operator==(const Device& other) const { return raw_ == other.raw_; }
    const char* name() const { return kapi_ib_device_name(raw_); }
    DeviceAttrs attrs() const;

private:
    ib_device* raw_ = nullptr;
};

// A socket address (sockaddr_in / _in6 / _ib) for the CM, built from the
// plain C address the RTRS parsers produce.
class SockAddr {
public:
    SockAddr() { cxxrt::fill_bytes(storage_, 0, sizeof(storage_)); }
    static Result<SockAddr> from(const kapi_rdma_addr& addr);
    // An address as the RTRS parsers give it: `family` one of
    // rtrs::AddressFamily's values, `bytes` in network order, `scope_id`
    // the IPv6 link-local interface (else 0), `port` in host order.
    static Result<SockAddr> from_parts(u32 family, const u8 (&bytes)[16], u32 scope_id, u16 port);
    static Result<SockAddr> ipv4(const u8 (&bytes)[4], u16 port);
    // The IPv6 wildcard, which accepts IPv4 clients too (dual stack).
    static Result<SockAddr> any_ipv6(u16 port);
    // Copies an address the CM holds (e.g. kapi_rdma_cm_id_src_sockaddr).
    static SockAddr copy_of(const sockaddr* address);
    Result<kapi_rdma_addr> to_addr() const;
    sockaddr* raw() { return reinterpret_cast<sockaddr*>(storage_); }
    const sockaddr* raw() const { return reinterpret_cast<const sockaddr*>(storage_); }

private:
    alignas(KABI_ALIGNOF_SOCKADDR_STORAGE) u8 storage_[KABI_SIZEOF_SOCKADDR_STORAGE];
};

}  // namespace kernel::ib
