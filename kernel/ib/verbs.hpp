// kernel::ib — verbs objects: protection domain, completion queue, queue pair,
// and Connection (cm_id + CQ + QP: the shape RTRS uses per connection).
//
// Ownership: a ProtectionDomain is shared (RefPtr) by every connection and
// MR on a device; a CompletionQueue and a QueuePair are owned (UniquePtr) by
// their Connection, which also owns its CmId. Destruction order is QP, CQ,
// cm_id, then the last PD reference; Connection's destructor does it.
// Creation and destruction: process context. Posting: any context (softirq
// completion handlers re-post receives), never allocates, never sleeps.
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/unique_ptr.hpp>
#include "kernel/ib/cm.hpp"
#include "kernel/ib/ib.hpp"

namespace kernel::ib {

using cxxrt::Gfp;
using cxxrt::RefPtr;
using cxxrt::UniquePtr;

class ProtectionDomain final : public cxxrt::RefCounted<ProtectionDomain> {
    struct Private {};

public:
    // ib_alloc_pd on device. unsafe_global_rkey: IB_PD_UNSAFE_GLOBAL_RKEY
    // (remote access to all memory; RTRS does not use it). Process context.
    static Result<RefPtr<ProtectionDomain>> create(Gfp gfp, Device device, bool unsafe_global_rkey = false);

    ProtectionDomain(Private, Device device) : device_(device) {}
    ProtectionDomain(const ProtectionDomain&) = delete;
    ProtectionDomain& operator=(const ProtectionDomain&) = delete;
    // ib_dealloc_pd, on the last reference: no QP or MR may remain on it.
    ~ProtectionDomain();

    Device device() const { return device_; }
    ib_pd* raw() const { return raw_; }
    // The lkey for SGEs of memory mapped with DmaBuffer/ScatterList.
    u32 local_dma_lkey() const { return kapi_ib_pd_local_dma_lkey(raw_); }

private:
    Device device_;
    ib_pd* raw_ = nullptr;
};

class CompletionQueue final : cxxrt::Pinned {
    struct Private {};

public:
    // Completions reaped per ib_poll_cq, and per softirq run of a kSoftirq
    // CQ (the core's IB_POLL_BATCH and IB_POLL_BUDGET_IRQ).
    static constexpr int kPollBatch = 16;
    static constexpr int kSoftirqBudget = 256;

    // A CQ of nr_cqe entries on comp_vector (below the device's
    // num_comp_vectors). kSoftirq: our own CQ, armed, reaped in batches of
    // kPollBatch by an irq_poll (softirq) on each completion event;
    // kWorkqueue: the core's ib_alloc_cq; kDirect: the core's, never armed,
    // reaped only by poll_direct(). Process context.
    static Result<UniquePtr<CompletionQueue>> create(Gfp gfp, Device device, int nr_cqe, int comp_vector,
                                                     PollContext poll, BatchObserver observer = {});

    CompletionQueue(Private, int size, PollContext poll, BatchObserver observer)
        : size_(size), poll_(poll), observer_(observer)
    {
    }
    // Process context, after the QPs that use it are destroyed: stops the
    // irq_poll (waiting for a run in progress), then frees the CQ.
    ~CompletionQueue();

    // For PollContext::kDirect only: runs up to budget (-1: no limit)
    // completion handlers in the caller's context; returns how many ran.
    // The caller keeps two pollers of one CQ apart. Process context, no
    // sleep, bottom halves on: a polled block request must complete in task
    // context (Linux 6.1's bio_put WARNs on a cached bio freed with bottom
    // halves off), so handlers must not assume softirq.
    int poll_direct(int budget);
    int size() const { return size_; }
    PollContext poll_context() const { return poll_; }
    ib_cq* raw() const { return raw_; }

    // Upcalls of a kSoftirq CQ (kapi-rdma-verbs.c): a completion event,
    // and one irq_poll run (softirq) that reaps up to budget completions.
    void on_event();
    int on_irq_poll(int budget);
    static CompletionQueue* from_irq_poll(irq_poll* iop)
    {
        return reinterpret_cast<CompletionQueue*>(reinterpret_cast<u8*>(iop) -
                                                  __builtin_offsetof(CompletionQueue, irq_poll_));
    }

private:
    // ib_poll_cq in batches of kPollBatch until the CQ is empty or budget
    // completions ran; returns how many.
    int reap(int budget);
    void observe(int reaped, bool polled) const
    {
        if (reaped > 0 && observer_)
            observer_.call(u32(reaped), polled);
    }

    alignas(KABI_ALIGNOF_IRQ_POLL) u8 irq_poll_[KABI_SIZEOF_IRQ_POLL];
    // One run's batch (runs of one irq_poll never overlap).
    alignas(KABI_ALIGNOF_IB_WC) u8 wcs_[kPollBatch * KABI_SIZEOF_IB_WC];
    // The irq_poll_ storage as the boundary takes it.
    irq_poll* iop() { return reinterpret_cast<irq_poll*>(irq_poll_); }
    ib_wc* wc(int index) { return reinterpret_cast<ib_wc*>(wcs_ + size_t(index) * KABI_SIZEOF_IB_WC); }

    ib_cq* raw_ = nullptr;
    bool irq_poll_ready_ = false;
    int size_;
    PollContext poll_;
    BatchObserver observer_;
};

struct QueuePairConfig {
    u32 max_send_wr = 0;   // add 1 for the drain WR
    u32 max_recv_wr = 0;   // add 1 for the drain WR
    u32 max_send_sge = 1;
    u32 max_recv_sge = 1;
};

// The RC QP of a cm_id. All post_* return the verbs' errno (-ENOMEM when
// the queue is full, -EINVAL for a bad WR) and never allocate or sleep.
// A Completion passed to a post must stay alive until its WR completes;
// nullptr is allowed for unsignaled WRs only (a flushed WR without a cqe is
// dropped by the core).
class QueuePair final : cxxrt::Pinned {
    struct Private {};

public:
    // rdma_create_qp on cm_id (bound to pd's device), both queues on cq.
    // Asynchronous QP events go to kernel_ib_qp_event(event_context, ...),
    // which logs them. Process context (CM handlers included).
    static Result<UniquePtr<QueuePair>> create(Gfp gfp, CmId& cm_id, ProtectionDomain& pd, CompletionQueue& cq,
                                               const QueuePairConfig& config);

    QueuePair(Private, CmId& cm_id, const QueuePairConfig& config) : cm_id_(cm_id), config_(config) {}
    // rdma_destroy_qp: process context. Drain first if WRs may be posted.
    ~QueuePair();

    // A receive: zero SGEs for RDMA writes with immediate and empty sends.
    Result<void> post_recv(Completion& done, Span<const Sge> sges = {})
    {
        return cxxrt::to_result(kapi_ib_post_recv(qp_, done.cqe(), sges.data(), int(sges.size())));
    }
    Result<void> post_send(Completion* done, Span<const Sge> sges, SendFlags flags)
    {
        return send(done, sges, KABI_IB_WR_SEND, flags, 0);
    }
    Result<void> post_send_imm(Completion* done, Span<const Sge> sges, u32 imm, SendFlags flags)
    {
        return send(done, sges, KABI_IB_WR_SEND_WITH_IMM, flags, imm_to_wire(imm));
    }
    // A send that also invalidates the peer's rkey (the receiver's completion
    // reports has_invalidate() and the rkey).
    Result<void> post_send_inv(Completion* done, Span<const Sge> sges, u32 rkey, SendFlags flags)
    {
        return send(done, sges, KABI_IB_WR_SEND_WITH_INV, flags, rkey);
    }
    Result<void> post_write(Completion* done, Span<const Sge> sges, RemoteBuffer remote, SendFlags flags)
    {
        return rdma(done, sges, KABI_IB_WR_RDMA_WRITE, flags, remote, 0);
    }
    // Consumes one receive on the peer, whose completion carries imm and the
    // byte count. With no SGEs and remote {0, 0}: the RTRS heartbeat.
    Result<void> post_write_imm(Completion* done, Span<const Sge> sges, RemoteBuffer remote, u32 imm,
                                SendFlags flags)
    {
        return rdma(done, sges, KABI_IB_WR_RDMA_WRITE_WITH_IMM, flags, remote, imm_to_wire(imm));
    }
    Result<void> post_local_inv(Completion* done, u32 rkey, SendFlags flags)
    {
        return cxxrt::to_result(kapi_ib_post_local_inv(qp_, done ? done->cqe() : nullptr, rkey, flags));
    }

    // ib_drain_qp: error state, then waits for every posted WR to complete
    // (handlers see flushed completions). Process context; not for a
    // kDirect CQ.
    void drain() { kapi_ib_drain_qp(qp_); }
    // To the error state, as after a fatal transport error: posted work
    // requests flush with errors (fault injection). Any context.
    Result<void> move_to_error() { return cxxrt::to_result(kapi_ib_qp_to_error(qp_)); }

    const QueuePairConfig& config() const { return config_; }
    ib_qp* raw() const { return qp_; }

private:
    Result<void> send(Completion* done, Span<const Sge> sges, int opcode, SendFlags flags, u32 ex)
    {
        return cxxrt::to_result(
            kapi_ib_post_send(qp_, done ? done->cqe() : nullptr, sges.data(), int(sges.size()), opcode, flags, ex));
    }
    Result<void> rdma(Completion* done, Span<const Sge> sges, int opcode, SendFlags flags, RemoteBuffer remote,
                      u32 imm_raw)
    {
        return cxxrt::to_result(kapi_ib_post_rdma(qp_, done ? done->cqe() : nullptr, sges.data(), int(sges.size()),
                                                  opcode, flags, remote.addr, remote.rkey, imm_raw));
    }

    CmId& cm_id_;
    ib_qp* qp_ = nullptr;
    QueuePairConfig config_;
};

struct ConnectionConfig {
    QueuePairConfig qp;
    int cq_size = 0;  // 0: max_send_wr + max_recv_wr
    // Usually the CPU the connection serves (upstream: one IO connection per
    // CPU); taken modulo the device's completion vectors.
    int comp_vector = 0;
    PollContext poll = PollContext::kSoftirq;
    BatchObserver batches;  // of the connection's CQ (not for kWorkqueue)
};

// One RDMA connection: a CmId, and once its device is known, a CQ and a QP.
class Connection final : cxxrt::Pinned {
    struct Private {};

public:
    static Result<UniquePtr<Connection>> create(Gfp gfp, UniquePtr<CmId> cm_id);
    Connection(Private, UniquePtr<CmId> cm_id) : cm_id_(cxxrt::move(cm_id)) {}
    // Destroys QP, CQ, then the cm_id: process context, not from this
    // connection's CM handler. Drain before if WRs may still be posted.
    ~Connection();

    // Once the cm_id has a device (client: from kAddrResolved; server: in
    // on_connect_request after adopt), before connect/accept. Process
    // context; the PD must be on the cm_id's device.
    Result<void> create_queues(Gfp gfp, RefPtr<ProtectionDomain> pd, const ConnectionConfig& config);
    // Destroys QP and CQ and drops the PD. If WRs were ever posted, drain()
    // first (after a disconnect), so that no completion is still to come.
    void destroy_queues();
    void drain() { qp_->drain(); }
    bool has_queues() const { return bool(qp_); }

    CmId& cm_id() { return *cm_id_; }
    QueuePair& qp() { return *qp_; }
    CompletionQueue& cq() { return *cq_; }
    ProtectionDomain& pd() { return *pd_; }
    Device device() const { return cm_id_->device(); }

private:
    UniquePtr<CmId> cm_id_;
    RefPtr<ProtectionDomain> pd_;
    UniquePtr<CompletionQueue> cq_;
    UniquePtr<QueuePair> qp_;
};

}  // namespace kernel::ib
