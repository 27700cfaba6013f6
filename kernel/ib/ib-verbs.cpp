// kernel::ib — device, PD, CQ, QP, Connection, and the completion upcall.
#include "kernel/ib/verbs.hpp"
#include <cxxrt/log.hpp>
#include <cxxrt/enforce.hpp>

namespace kernel::ib {

static_assert(__is_standard_layout(Completion), "Completion::from_cqe needs a standard layout");
static_assert(sizeof(Sge) == 16);
static_assert(__is_standard_layout(CompletionQueue), "CompletionQueue::from_irq_poll needs a standard layout");

DeviceAttrs Device::attrs() const
{
    kapi_ib_device_attrs raw{};
    kapi_ib_device_query(raw_, &raw);
    DeviceAttrs attrs;
    attrs.max_qp_wr = raw.max_qp_wr;
    attrs.max_send_sge = raw.max_send_sge;
    attrs.max_recv_sge = raw.max_recv_sge;
    attrs.max_cqe = raw.max_cqe;
    attrs.max_fast_reg_page_list_len = raw.max_fast_reg_page_list_len;
    attrs.num_comp_vectors = raw.num_comp_vectors;
    attrs.max_mr_size = raw.max_mr_size;
    attrs.mem_mgt_extensions = raw.mem_mgt_extensions != 0;
    attrs.sg_gaps_reg = raw.sg_gaps_reg != 0;
    return attrs;
}

Result<RefPtr<ProtectionDomain>> ProtectionDomain::create(Gfp gfp, Device device, bool unsafe_global_rkey)
{
    if (!device)
        return Error(cxxrt::err::kNoDev);
    auto pd = CXXRT_TRY(cxxrt::make_ref<ProtectionDomain>(gfp, Private{}, device));
    int rc = 0;
    pd->raw_ = kapi_ib_alloc_pd(device.raw(), unsafe_global_rkey ? KABI_IB_PD_UNSAFE_GLOBAL_RKEY : 0, &rc);
    if (!pd->raw_)
        return Error::from_errno(rc);
    return pd;
}

ProtectionDomain::~ProtectionDomain()
{
    if (raw_)
        kapi_ib_dealloc_pd(raw_);
}

Result<UniquePtr<CompletionQueue>> CompletionQueue::create(Gfp gfp, Device device, int nr_cqe, int comp_vector,
                                                           PollContext poll, BatchObserver observer)
{
    if (!device || nr_cqe <= 0 || comp_vector < 0)
        return Error(cxxrt::err::kInval);
    auto cq = CXXRT_TRY(cxxrt::make_unique<CompletionQueue>(gfp, Private{}, nr_cqe, poll, observer));
    int rc = 0;
    if (poll != PollContext::kSoftirq) {
        cq->raw_ = kapi_ib_alloc_cq(device.raw(), nr_cqe, comp_vector, int(poll), &rc);
        if (!cq->raw_)
            return Error::from_errno(rc);
        return cq;
    }
    // The irq_poll first: an event may come as soon as the CQ is armed.
    kapi_irq_poll_init(cq->iop(), kSoftirqBudget);
    cq->irq_poll_ready_ = true;
    cq->raw_ = kapi_ib_create_cq(device.raw(), nr_cqe, comp_vector, cq.get(), &rc);
    if (!cq->raw_)
        return Error::from_errno(rc);
    if (kapi_ib_req_notify_cq(cq->raw_) > 0)
        kapi_irq_poll_sched(cq->iop());
    return cq;
}

CompletionQueue::~CompletionQueue()
{
    if (poll_ != PollContext::kSoftirq) {
        if (raw_)
            kapi_ib_free_cq(raw_);
        return;
    }
    // A late event finds the irq_poll disabled and schedules nothing.
    if (irq_poll_ready_)
        kapi_irq_poll_disable(iop());
    if (raw_)
        kapi_ib_destroy_cq(raw_);
}

int CompletionQueue::poll_direct(int budget)
{
    const int reaped = kapi_ib_process_cq_direct(raw_, budget);
    observe(reaped, true);
    return reaped;
}

void CompletionQueue::on_event() { kapi_irq_poll_sched(iop()); }

int CompletionQueue::reap(int budget)
{
    int reaped = 0;
    while (reaped < budget) {
        const int want = cxxrt::min(kPollBatch, budget - reaped);
        const int got = kapi_ib_poll_cq(raw_, want, wc(0));
        if (got <= 0)
            break;
        for (int i = 0; i < got; ++i)
            kapi_ib_wc_dispatch(raw_, wc(i));
        reaped += got;
        if (got < want)
            break;
    }
    return reaped;
}

int CompletionQueue::on_irq_poll(int budget)
{
    const int reaped = reap(budget);
    if (reaped < budget) {
        // Done for now: re-arm, and run again at once if completions
        // arrived between the last poll and the arming.
        kapi_irq_poll_complete(iop());
        if (kapi_ib_req_notify_cq(raw_) > 0)
            kapi_irq_poll_sched(iop());
    }
    observe(reaped, false);
    return reaped;
}

Result<UniquePtr<QueuePair>> QueuePair::create(Gfp gfp, CmId& cm_id, ProtectionDomain& pd, CompletionQueue& cq,
                                               const QueuePairConfig& config)
{
    if (!(cm_id.device() == pd.device()))
        return Error(cxxrt::err::kInval);
    auto qp = CXXRT_TRY(cxxrt::make_unique<QueuePair>(gfp, Private{}, cm_id, config));
    CXXRT_TRY(cxxrt::to_result(kapi_rdma_create_qp(cm_id.raw(), pd.raw(), cq.raw(), config.max_send_wr,
                                                   config.max_recv_wr, config.max_send_sge, config.max_recv_sge,
                                                   qp.get())));
    qp->qp_ = kapi_rdma_cm_id_qp(cm_id.raw());
    return qp;
}

QueuePair::~QueuePair()
{
    // A CmId disowned after a refused connect request has no id any more;
    // the refusing handler destroyed its queues before that (cm.hpp).
    if (qp_ && cm_id_.raw())
        kapi_rdma_destroy_qp(cm_id_.raw());
}

Result<UniquePtr<Connection>> Connection::create(Gfp gfp, UniquePtr<CmId> cm_id)
{
    if (!cm_id)
        return Error(cxxrt::err::kInval);
    return cxxrt::make_unique<Connection>(gfp, Private{}, cxxrt::move(cm_id));
}

Connection::~Connection()
{
    destroy_queues();
    cm_id_.reset();
}

Result<void> Connection::create_queues(Gfp gfp, RefPtr<ProtectionDomain> pd, const ConnectionConfig& config)
{
    if (qp_ || !pd)
        return Error(cxxrt::err::kInval);
    Device device = cm_id_->device();
    if (!device || !(device == pd->device()))
        return Error(cxxrt::err::kNoDev);
    DeviceAttrs attrs = device.attrs();
    int vectors = attrs.num_comp_vectors ? int(attrs.num_comp_vectors) : 1;
    int cq_size = config.cq_size ? config.cq_size : int(config.qp.max_send_wr + config.qp.max_recv_wr);
    auto cq = CXXRT_TRY(
        CompletionQueue::create(gfp, device, cq_size, config.comp_vector % vectors, config.poll, config.batches));
    auto qp = CXXRT_TRY(QueuePair::create(gfp, *cm_id_, *pd, *cq, config.qp));
    pd_ = cxxrt::move(pd);
    cq_ = cxxrt::move(cq);
    qp_ = cxxrt::move(qp);
    return {};
}

void Connection::destroy_queues()
{
    qp_.reset();
    cq_.reset();
    pd_.reset();
}

}  // namespace kernel::ib

// KAPI upcall: the CQ's poll context (softirq for PollContext::kSoftirq).
extern "C" void kernel_ib_wc_done(ib_cqe* cqe, int status, int opcode, unsigned int byte_len, unsigned int imm_raw,
                                 unsigned int invalidate_rkey, int wc_flags) noexcept
{
    using namespace kernel::ib;
    WorkCompletion wc{status, opcode, byte_len, imm_raw, invalidate_rkey, wc_flags};
    Completion::from_cqe(cqe)->dispatch(wc);
}

// KAPI upcall: a completion event of a kSoftirq CQ (hard irq or the
// driver's softirq): schedule the irq_poll run.
extern "C" void kernel_ib_cq_event(void* context) noexcept
{
    static_cast<kernel::ib::CompletionQueue*>(context)->on_event();
}

// KAPI upcall: one irq_poll run (softirq) of a kSoftirq CQ.
extern "C" int kernel_ib_irq_poll(irq_poll* iop, int budget) noexcept
{
    return kernel::ib::CompletionQueue::from_irq_poll(iop)->on_irq_poll(budget);
}

// KAPI upcall: asynchronous QP events (fatal errors, path migration, ...).
// RTRS only logs them; the CM reports the consequences (disconnects).
extern "C" void kernel_ib_qp_event(void* context, int event) noexcept
{
    cxxrt::log::info("ib: QP %p: async event %d", context, event);
}
