// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: verbs (device attributes, PD, CQ, QP, posting work requests,
 * completions) for the C++ wrappers in kernel/ib/. One kernel call per
 * function (a work request is built and posted in one). See kapi-rdma.h.
 */
#include <linux/stddef.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <linux/irq_poll.h>
#include "cxxrt-kabi.h"
#include "kapi-rdma.h"

static_assert(KABI_SIZEOF_IB_CQE == sizeof(struct ib_cqe));
static_assert(KABI_SIZEOF_IB_WC == sizeof(struct ib_wc));
static_assert(KABI_SIZEOF_IRQ_POLL == sizeof(struct irq_poll));
static_assert(sizeof(struct kapi_ib_sge) == sizeof(struct ib_sge));
static_assert(offsetof(struct kapi_ib_sge, addr) == offsetof(struct ib_sge, addr));
static_assert(offsetof(struct kapi_ib_sge, length) == offsetof(struct ib_sge, length));
static_assert(offsetof(struct kapi_ib_sge, lkey) == offsetof(struct ib_sge, lkey));

/* Field copies of the cached attributes; any context. */
void kapi_ib_device_query(struct ib_device *device, struct kapi_ib_device_attrs *attrs)
{
	const struct ib_device *dev = device;

	*attrs = (struct kapi_ib_device_attrs){
		.max_qp_wr = dev->attrs.max_qp_wr, .max_send_sge = dev->attrs.max_send_sge,
		.max_recv_sge = dev->attrs.max_recv_sge, .max_cqe = dev->attrs.max_cqe,
		.max_fast_reg_page_list_len = dev->attrs.max_fast_reg_page_list_len,
		.num_comp_vectors = dev->num_comp_vectors, .max_mr_size = dev->attrs.max_mr_size,
		.mem_mgt_extensions = !!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS),
		.sg_gaps_reg = !!(dev->attrs.kernel_cap_flags & IBK_SG_GAPS_REG),
	};
}

const char *kapi_ib_device_name(struct ib_device *device)
{
	return dev_name(&device->dev);
}

/* KAPI: process context. */
struct ib_pd *kapi_ib_alloc_pd(struct ib_device *device, unsigned int flags, int *err)
{
	struct ib_pd *pd = ib_alloc_pd(device, flags);

	*err = PTR_ERR_OR_ZERO(pd);
	return IS_ERR(pd) ? NULL : pd;
}

void kapi_ib_dealloc_pd(struct ib_pd *pd)
{
	ib_dealloc_pd(pd);
}

unsigned int kapi_ib_pd_local_dma_lkey(struct ib_pd *pd)
{
	return pd->local_dma_lkey;
}

/* KAPI: process context. */
struct ib_cq *kapi_ib_alloc_cq(struct ib_device *device, int nr_cqe, int comp_vector, int poll_ctx, int *err)
{
	struct ib_cq *cq = ib_alloc_cq(device, NULL, nr_cqe, comp_vector, poll_ctx);

	*err = PTR_ERR_OR_ZERO(cq);
	return IS_ERR(cq) ? NULL : cq;
}

void kapi_ib_free_cq(struct ib_cq *cq)
{
	ib_free_cq(cq);
}

int kapi_ib_process_cq_direct(struct ib_cq *cq, int budget)
{
	return ib_process_cq_direct(cq, budget);
}

/* KAPI: the CQ's completion event (hard irq or the driver's softirq); forwards to C++. */
static void kapi_ib_cq_event(struct ib_cq *cq, void *context)
{
	kernel_ib_cq_event(context);
}

/* KAPI: process context. */
struct ib_cq *kapi_ib_create_cq(struct ib_device *device, int nr_cqe, int comp_vector, void *context, int *err)
{
	struct ib_cq_init_attr attr = { .cqe = nr_cqe, .comp_vector = comp_vector };
	struct ib_cq *cq = ib_create_cq(device, kapi_ib_cq_event, NULL, context, &attr);

	*err = PTR_ERR_OR_ZERO(cq);
	return IS_ERR(cq) ? NULL : cq;
}

void kapi_ib_destroy_cq(struct ib_cq *cq)
{
	ib_destroy_cq(cq);
}

int kapi_ib_req_notify_cq(struct ib_cq *cq)
{
	return ib_req_notify_cq(cq, IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS);
}

int kapi_ib_poll_cq(struct ib_cq *cq, int count, struct ib_wc *wcs)
{
	return ib_poll_cq(cq, count, wcs);
}

/* An unsignalled WR flushed by a dying QP comes without a cqe (as in the core's own poll loop). */
void kapi_ib_wc_dispatch(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->wr_cqe)
		wc->wr_cqe->done(cq, wc);
}

/* KAPI: softirq (IRQ_POLL_SOFTIRQ); forwards to C++. */
static int kapi_irq_poll_run(struct irq_poll *iop, int budget)
{
	return kernel_ib_irq_poll(iop, budget);
}

void kapi_irq_poll_init(struct irq_poll *iop, int weight)
{
	irq_poll_init(iop, weight, kapi_irq_poll_run);
}

void kapi_irq_poll_sched(struct irq_poll *iop)
{
	irq_poll_sched(iop);
}

void kapi_irq_poll_complete(struct irq_poll *iop)
{
	irq_poll_complete(iop);
}

void kapi_irq_poll_disable(struct irq_poll *iop)
{
	irq_poll_disable(iop);
}

/* KAPI: any context (the verbs allow a change to ERR anywhere); @qp alive. */
int kapi_ib_qp_to_error(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* KAPI: any context the core calls it from; forwards to C++. */
static void kapi_ib_qp_event(struct ib_event *event, void *context)
{
	kernel_ib_qp_event(context, event->event);
}

/* KAPI: process context. */
int kapi_rdma_create_qp(struct rdma_cm_id *cm_id, struct ib_pd *pd, struct ib_cq *cq, unsigned int max_send_wr,
			unsigned int max_recv_wr, unsigned int max_send_sge, unsigned int max_recv_sge, void *context)
{
	struct ib_qp_init_attr attr = {
		.event_handler = kapi_ib_qp_event, .qp_context = context, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = max_recv_wr,
			 .max_send_sge = max_send_sge, .max_recv_sge = max_recv_sge },
		.sq_sig_type = IB_SIGNAL_REQ_WR, .qp_type = IB_QPT_RC,
	};

	return rdma_create_qp(cm_id, pd, &attr);
}

void kapi_rdma_destroy_qp(struct rdma_cm_id *cm_id)
{
	rdma_destroy_qp(cm_id);
}

/* KAPI: process context, sleeps until all posted WRs are flushed. */
void kapi_ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_qp(qp);
}

/* KAPI: the CQ's poll context (softirq for IB_POLL_SOFTIRQ). */
static void kapi_ib_cqe_done(struct ib_cq *cq, struct ib_wc *wc)
{
	kernel_ib_wc_done(wc->wr_cqe, wc->status, wc->opcode, wc->byte_len, (__force u32)wc->ex.imm_data,
			 wc->ex.invalidate_rkey, wc->wc_flags);
}

void kapi_ib_cqe_init(struct ib_cqe *cqe)
{
	cqe->done = kapi_ib_cqe_done;
}

/* KAPI: any context; never sleeps. */
int kapi_ib_post_recv(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge)
{
	struct ib_recv_wr wr = { .wr_cqe = cqe, .sg_list = (struct ib_sge *)sge, .num_sge = num_sge };

	return ib_post_recv(qp, &wr, NULL);
}

/* @ex is the immediate (raw big-endian) or the rkey to invalidate: one union. */
int kapi_ib_post_send(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge, int opcode,
		      unsigned int flags, unsigned int ex)
{
	struct ib_send_wr wr = { .wr_cqe = cqe, .sg_list = (struct ib_sge *)sge, .num_sge = num_sge,
				 .opcode = opcode, .send_flags = flags, .ex.invalidate_rkey = ex };

	return ib_post_send(qp, &wr, NULL);
}

int kapi_ib_post_rdma(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge, int opcode,
		      unsigned int flags, unsigned long long remote_addr, unsigned int rkey,
		      unsigned int imm_raw)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_cqe = cqe, .sg_list = (struct ib_sge *)sge, .num_sge = num_sge, .opcode = opcode,
			.send_flags = flags, .ex.imm_data = (__force __be32)imm_raw },
		.remote_addr = remote_addr, .rkey = rkey,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

int kapi_ib_post_reg_mr(struct ib_qp *qp, struct ib_cqe *cqe, struct ib_mr *mr, int access, unsigned int flags)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_cqe = cqe, .opcode = IB_WR_REG_MR, .send_flags = flags },
		.mr = mr, .key = mr->rkey, .access = access,
	};

	return ib_post_send(qp, &wr.wr, NULL);
}

int kapi_ib_post_local_inv(struct ib_qp *qp, struct ib_cqe *cqe, unsigned int rkey, unsigned int flags)
{
	struct ib_send_wr wr = { .wr_cqe = cqe, .opcode = IB_WR_LOCAL_INV, .send_flags = flags,
				 .ex.invalidate_rkey = rkey };

	return ib_post_send(qp, &wr, NULL);
}

union kapi_ib_chain_wr {
	struct ib_send_wr send;
	struct ib_rdma_wr rdma;
	struct ib_reg_wr reg;
};
static_assert(KABI_SIZEOF_IB_CHAIN_WR == sizeof(union kapi_ib_chain_wr));

void kapi_ib_chain_send(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe,
			const struct kapi_ib_sge *sge, int num_sge, int opcode,
			unsigned int flags, unsigned int ex)
{
	((union kapi_ib_chain_wr *)slot)->send = (struct ib_send_wr){
		.next = next, .wr_cqe = cqe, .sg_list = (struct ib_sge *)sge, .num_sge = num_sge,
		.opcode = opcode, .send_flags = flags, .ex.invalidate_rkey = ex };
}

void kapi_ib_chain_rdma(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe,
			const struct kapi_ib_sge *sge, int num_sge, int opcode,
			unsigned int flags, unsigned long long remote_addr, unsigned int rkey,
			unsigned int imm_raw)
{
	((union kapi_ib_chain_wr *)slot)->rdma = (struct ib_rdma_wr){
		.wr = { .next = next, .wr_cqe = cqe, .sg_list = (struct ib_sge *)sge, .num_sge = num_sge,
			.opcode = opcode, .send_flags = flags, .ex.imm_data = (__force __be32)imm_raw },
		.remote_addr = remote_addr, .rkey = rkey };
}

void kapi_ib_chain_reg_mr(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe, struct ib_mr *mr,
			  int access, unsigned int flags)
{
	((union kapi_ib_chain_wr *)slot)->reg = (struct ib_reg_wr){
		.wr = { .next = next, .wr_cqe = cqe, .opcode = IB_WR_REG_MR, .send_flags = flags },
		.mr = mr, .key = mr->rkey, .access = access };
}

void kapi_ib_chain_local_inv(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe, unsigned int rkey,
			     unsigned int flags)
{
	((union kapi_ib_chain_wr *)slot)->send = (struct ib_send_wr){
		.next = next, .wr_cqe = cqe, .opcode = IB_WR_LOCAL_INV, .send_flags = flags,
		.ex.invalidate_rkey = rkey };
}

void kapi_ib_chain_link(struct ib_send_wr *slot, struct ib_send_wr *next)
{
	((union kapi_ib_chain_wr *)slot)->send.next = next;
}

int kapi_ib_post_chain(struct ib_qp *qp, struct ib_send_wr *first, const struct ib_send_wr **bad)
{
	return ib_post_send(qp, first, bad);
}

const char *kapi_ib_wc_status_msg(int status)
{
	return ib_wc_status_msg(status);
}
