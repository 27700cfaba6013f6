/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RDMA part of the C boundary: RDMA-CM and verbs for the C++ RTRS code
 * (kernel/ib/ wraps it; nothing else should call it). Includable from C and
 * C++; no kernel type's layout crosses this line. Handles are typed: the
 * kernel's own struct names, declared here and incomplete in C++ (so C++
 * cannot hand a QP where a CQ is due, and holds no void* handle):
 *   cm_id  struct rdma_cm_id *     device struct ib_device *
 *   pd     struct ib_pd *          cq     struct ib_cq *
 *   qp     struct ib_qp *          mr     struct ib_mr *
 *   cqe    struct ib_cqe *, storage owned by C++ (KABI_SIZEOF_IB_CQE)
 *   wc     struct ib_wc *, storage owned by C++ (KABI_SIZEOF_IB_WC)
 *   iop    struct irq_poll *, storage owned by C++ (KABI_SIZEOF_IRQ_POLL)
 *   sg     struct scatterlist *, storage owned by C++ (KABI_SIZEOF_SCATTERLIST)
 *   slot   struct ib_send_wr *, a chained WR, storage owned by C++
 *          (KABI_SIZEOF_IB_CHAIN_WR: room for any send-queue WR kind)
 *   sockaddr  struct sockaddr *, storage owned by C++
 *          (KABI_SIZEOF_SOCKADDR_STORAGE)
 * Contexts (a C++ object an upcall gets back) stay void *.
 * Constants (event numbers, opcodes, flags, DMA directions) come from the
 * generated cxxrt-kabi.h (KABI_RDMA_*, KABI_IB_*, KABI_DMA_*).
 *
 * Implementations: kapi-rdma-cm.c (RDMA-CM, addresses), kapi-rdma-verbs.c
 * (device, PD, CQ, QP, posting, completions), kapi-rdma-mr.c (DMA mapping,
 * scatterlists, memory regions). Each function is one kernel call or macro.
 *
 * Functions returning int return 0 or a negative errno unless stated.
 */
#ifndef KERNEL_IB_KAPI_RDMA_H
#define KERNEL_IB_KAPI_RDMA_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdma_cm_id;
struct ib_device;
struct ib_pd;
struct ib_cq;
struct ib_qp;
struct ib_mr;
struct ib_cqe;
struct ib_wc;
struct ib_send_wr;
struct irq_poll;
struct scatterlist;
struct sockaddr;

/* ---- Addresses ---------------------------------------------------------- */

/* Families of struct kapi_rdma_addr (the values of rtrs::AddressFamily). */
#define KAPI_RDMA_AF_NONE 0
#define KAPI_RDMA_AF_INET 1  /* bytes[0..3], network order */
#define KAPI_RDMA_AF_INET6 2 /* bytes[0..15], network order; scope_id */
#define KAPI_RDMA_AF_IB 3    /* bytes = GID; service id RDMA_IB_IP_PS_IB | port */

struct kapi_rdma_addr {
	unsigned int family;
	unsigned int scope_id; /* IPv6 link-local interface index, else 0 */
	unsigned short port;   /* host order */
	unsigned char bytes[16];
};

/*
 * Fills a struct sockaddr_storage from @addr: sockaddr_in, sockaddr_in6, or
 * sockaddr_ib (pkey 0xffff, sid RDMA_IB_IP_PS_IB | port, sid mask all ones).
 * -EAFNOSUPPORT for KAPI_RDMA_AF_NONE or an unknown family. Any context.
 */
int kapi_rdma_addr_to_sockaddr(const struct kapi_rdma_addr *addr, struct sockaddr *sockaddr) KAPI_NOEXCEPT;
/* The reverse, for addresses the CM resolved. -EAFNOSUPPORT if unknown. */
int kapi_rdma_sockaddr_to_addr(const struct sockaddr *sockaddr, struct kapi_rdma_addr *addr) KAPI_NOEXCEPT;
/* The id's source / destination address (route.addr); valid after resolve_addr. */
const struct sockaddr *kapi_rdma_cm_id_src_sockaddr(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
const struct sockaddr *kapi_rdma_cm_id_dst_sockaddr(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;

/* ---- RDMA-CM ------------------------------------------------------------ */

/*
 * Creates an RC cm_id in init_net. Every CM event on it (and on the ids of
 * connect requests it receives as a listener) goes to kernel_ib_cm_event()
 * with @context. @port_space: KABI_RDMA_PS_TCP or KABI_RDMA_PS_IB.
 * Returns the id, or NULL with *err set. KAPI: process context, may sleep.
 */
struct rdma_cm_id *kapi_rdma_create_id(void *context, int port_space, int *err) KAPI_NOEXCEPT;
/*
 * KAPI: process context, sleeps until a running event handler of this id
 * has returned: never call it from this id's own handler (deadlock). The QP
 * must be destroyed first (kapi_rdma_destroy_qp).
 */
void kapi_rdma_destroy_id(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
/* The id's context (what kernel_ib_cm_event gets). Ids of connect requests
 * start with their listener's context; the new owner sets its own. */
void kapi_rdma_set_context(struct rdma_cm_id *cm_id, void *context) KAPI_NOEXCEPT;
void *kapi_rdma_get_context(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;

/* KAPI: process context, may sleep. @sockaddr: filled sockaddr_storage. */
int kapi_rdma_bind_addr(struct rdma_cm_id *cm_id, struct sockaddr *sockaddr) KAPI_NOEXCEPT;
int kapi_rdma_listen(struct rdma_cm_id *cm_id, int backlog) KAPI_NOEXCEPT;
/* Asynchronous: ends in ADDR_RESOLVED or ADDR_ERROR. @src may be NULL. */
int kapi_rdma_resolve_addr(struct rdma_cm_id *cm_id, struct sockaddr *src, struct sockaddr *dst,
			   int timeout_ms) KAPI_NOEXCEPT;
/* Asynchronous: ends in ROUTE_RESOLVED or ROUTE_ERROR. */
int kapi_rdma_resolve_route(struct rdma_cm_id *cm_id, unsigned long timeout_ms) KAPI_NOEXCEPT;
/*
 * Sends the connect request (RC) with @len bytes of private data (at most 56
 * for KABI_RDMA_PS_TCP ids: the CM takes 36 of the 92 bytes of an IB REQ).
 * responder_resources/initiator_depth are 0, as upstream RTRS sends them
 * (so no RDMA READ). _locked: from inside this id's own event handler (the
 * CM holds the handler mutex there, e.g. on ROUTE_RESOLVED); the plain one
 * from anywhere else in process context.
 */
int kapi_rdma_connect(struct rdma_cm_id *cm_id, const void *data, unsigned char len, unsigned char retry_count,
		      unsigned char rnr_retry_count) KAPI_NOEXCEPT;
int kapi_rdma_connect_locked(struct rdma_cm_id *cm_id, const void *data, unsigned char len, unsigned char retry_count,
			     unsigned char rnr_retry_count) KAPI_NOEXCEPT;
/*
 * Accepts a connect request with private data (at most 196 bytes on IB/RoCE).
 * KAPI: must run with the id's handler mutex held: from the CONNECT_REQUEST
 * handler itself, or between kapi_rdma_lock_handler/unlock_handler.
 */
/* rdma_set_ack_timeout(): the QP's local ACK timeout, 4.096 us * 2^timeout. */
int kapi_rdma_set_ack_timeout(struct rdma_cm_id *cm_id, unsigned char timeout) KAPI_NOEXCEPT;
int kapi_rdma_accept(struct rdma_cm_id *cm_id, const void *data, unsigned char len,
		     unsigned char rnr_retry_count) KAPI_NOEXCEPT;
/* Rejects (IB_CM_REJ_CONSUMER_DEFINED) with private data (at most 148). */
int kapi_rdma_reject(struct rdma_cm_id *cm_id, const void *data, unsigned char len) KAPI_NOEXCEPT;
/* Moves the QP to the error state and sends a DREQ. Process context. */
int kapi_rdma_disconnect(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
void kapi_rdma_lock_handler(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
void kapi_rdma_unlock_handler(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;

/* The device the id is bound to (NULL before address resolution) and port. */
struct ib_device *kapi_rdma_cm_id_device(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
unsigned int kapi_rdma_cm_id_port(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
/* The QP made by kapi_rdma_create_qp, or NULL. */
struct ib_qp *kapi_rdma_cm_id_qp(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
/* Printable names; static strings. */
const char *kapi_rdma_event_msg(int event) KAPI_NOEXCEPT;
const char *kapi_rdma_reject_msg(struct rdma_cm_id *cm_id, int reason) KAPI_NOEXCEPT;

/*
 * Upcall, implemented in C++ (kernel/ib/ib-cm.cpp). @context: the id's context;
 * @cm_id: the id the event is for (a new id on CONNECT_REQUEST, whose context
 * is still the listener's). @private_data/@len: the peer's private data of
 * CONNECT_REQUEST, ESTABLISHED (the accept's) and REJECTED (only a consumer
 * defined reject carries data, else len 0); meaningless for other events.
 * Returning non-zero makes the CM destroy @cm_id after the return.
 * KAPI: process context (CM work queues), the id's handler mutex held.
 */
int kernel_ib_cm_event(void *context, struct rdma_cm_id *cm_id, int event, int status, const void *private_data,
		      unsigned int private_data_len) KAPI_NOEXCEPT;

/* ---- Device, PD, CQ, QP ------------------------------------------------- */

struct kapi_ib_device_attrs {
	unsigned int max_qp_wr;
	unsigned int max_send_sge;
	unsigned int max_recv_sge;
	unsigned int max_cqe;
	unsigned int max_fast_reg_page_list_len;
	unsigned int num_comp_vectors;
	unsigned long long max_mr_size;
	int mem_mgt_extensions; /* IB_DEVICE_MEM_MGT_EXTENSIONS: fast reg MRs */
	int sg_gaps_reg;        /* IBK_SG_GAPS_REG */
};
/* Copies the cached device attributes. Any context. */
void kapi_ib_device_query(struct ib_device *device, struct kapi_ib_device_attrs *attrs) KAPI_NOEXCEPT;
const char *kapi_ib_device_name(struct ib_device *device) KAPI_NOEXCEPT;

/* KAPI: process context. @flags: 0 or KABI_IB_PD_UNSAFE_GLOBAL_RKEY. */
struct ib_pd *kapi_ib_alloc_pd(struct ib_device *device, unsigned int flags, int *err) KAPI_NOEXCEPT;
void kapi_ib_dealloc_pd(struct ib_pd *pd) KAPI_NOEXCEPT;
/* The lkey that covers all DMA-mapped memory of the device (for SGEs). */
unsigned int kapi_ib_pd_local_dma_lkey(struct ib_pd *pd) KAPI_NOEXCEPT;

/*
 * A CQ of @nr_cqe entries on completion vector @comp_vector (the caller
 * keeps it below kapi_ib_device_attrs.num_comp_vectors). @poll_ctx: KABI_IB_POLL_SOFTIRQ (done
 * callbacks in softirq), _WORKQUEUE, or _DIRECT (only from
 * kapi_ib_process_cq_direct). KAPI: process context.
 */
struct ib_cq *kapi_ib_alloc_cq(struct ib_device *device, int nr_cqe, int comp_vector, int poll_ctx,
			       int *err) KAPI_NOEXCEPT;
/* KAPI: process context; no QP may use the CQ any more. */
void kapi_ib_free_cq(struct ib_cq *cq) KAPI_NOEXCEPT;
/* Polls a KABI_IB_POLL_DIRECT CQ; returns the number of completions. */
int kapi_ib_process_cq_direct(struct ib_cq *cq, int budget) KAPI_NOEXCEPT;

/*
 * CQs whose completions C++ reaps itself, in batches (kernel/ib/ib-verbs.cpp):
 * a CQ with a completion event handler, and an irq_poll (storage of
 * KABI_SIZEOF_IRQ_POLL owned by C++) that runs the reaping in softirq, as
 * the core's IB_POLL_SOFTIRQ CQs do.
 *
 * kapi_ib_create_cq: a CQ of @nr_cqe entries on @comp_vector whose
 * completion events call kernel_ib_cq_event(@context). Not armed yet.
 * KAPI: process context.
 */
struct ib_cq *kapi_ib_create_cq(struct ib_device *device, int nr_cqe, int comp_vector, void *context,
				int *err) KAPI_NOEXCEPT;
/* KAPI: process context; no QP may use the CQ any more. */
void kapi_ib_destroy_cq(struct ib_cq *cq) KAPI_NOEXCEPT;
/* Upcall (C++): a completion event of a kapi_ib_create_cq CQ. Hard irq or the driver's softirq. */
void kernel_ib_cq_event(void *context) KAPI_NOEXCEPT;
/*
 * Arms the CQ for the next completion; > 0 when completions may have
 * arrived unreported meanwhile (IB_CQ_REPORT_MISSED_EVENTS): poll again.
 * Any context.
 */
int kapi_ib_req_notify_cq(struct ib_cq *cq) KAPI_NOEXCEPT;
/* Reaps up to @count completions into @wcs (struct ib_wc[@count]); returns how many. Any context. */
int kapi_ib_poll_cq(struct ib_cq *cq, int count, struct ib_wc *wcs) KAPI_NOEXCEPT;
/* Runs the done callback of one reaped struct ib_wc (none for an unsignalled WR). The CQ's poll context. */
void kapi_ib_wc_dispatch(struct ib_cq *cq, struct ib_wc *wc) KAPI_NOEXCEPT;

/* irq_poll on @iop, at most @weight completions per run; runs call kernel_ib_irq_poll. */
void kapi_irq_poll_init(struct irq_poll *iop, int weight) KAPI_NOEXCEPT;
/* Upcall (C++): one run of the irq_poll (softirq); returns the work done (<= @budget). */
int kernel_ib_irq_poll(struct irq_poll *iop, int budget) KAPI_NOEXCEPT;
/* Any context. */
void kapi_irq_poll_sched(struct irq_poll *iop) KAPI_NOEXCEPT;
/* From the run itself, when it did less than its budget. */
void kapi_irq_poll_complete(struct irq_poll *iop) KAPI_NOEXCEPT;
/* Waits for a running run and stops scheduling. KAPI: process context, sleeps. */
void kapi_irq_poll_disable(struct irq_poll *iop) KAPI_NOEXCEPT;

/* ib_modify_qp(@qp, IB_QPS_ERR): fault injection. Any context; 0 or -errno. */
int kapi_ib_qp_to_error(struct ib_qp *qp) KAPI_NOEXCEPT;

/*
 * Creates the RC QP of @cm_id on @pd, both queues on @cq, signalling only
 * requested WRs (IB_SIGNAL_REQ_WR). Async QP events go to kernel_ib_qp_event
 * with @context. KAPI: process context (CM handlers included).
 */
int kapi_rdma_create_qp(struct rdma_cm_id *cm_id, struct ib_pd *pd, struct ib_cq *cq, unsigned int max_send_wr,
			unsigned int max_recv_wr, unsigned int max_send_sge, unsigned int max_recv_sge,
			void *context) KAPI_NOEXCEPT;
void kapi_rdma_destroy_qp(struct rdma_cm_id *cm_id) KAPI_NOEXCEPT;
/*
 * Moves the QP to the error state and waits until every posted WR has
 * completed (flushed). Needs one free slot in each queue and a CQ that is
 * not KABI_IB_POLL_DIRECT. KAPI: process context, sleeps.
 */
void kapi_ib_drain_qp(struct ib_qp *qp) KAPI_NOEXCEPT;
/* Upcall (C++): an asynchronous QP event (enum ib_event_type). Any context. */
void kernel_ib_qp_event(void *context, int event) KAPI_NOEXCEPT;

/* ---- Posting and completions -------------------------------------------- */

/* Same layout as struct ib_sge (checked in kapi-rdma-verbs.c). */
struct kapi_ib_sge {
	unsigned long long addr;
	unsigned int length;
	unsigned int lkey;
};

/*
 * Makes C++-owned storage a struct ib_cqe whose done callback forwards to
 * kernel_ib_wc_done(). Any context.
 */
void kapi_ib_cqe_init(struct ib_cqe *cqe) KAPI_NOEXCEPT;
/*
 * Upcall (C++) for every completion of a WR posted with that cqe.
 * @imm_raw: wc.ex.imm_data as stored (big-endian bit pattern); @invalidate_rkey:
 * wc.ex.invalidate_rkey (the same union); @wc_flags: KABI_IB_WC_WITH_IMM,
 * KABI_IB_WC_WITH_INVALIDATE. When @status is not KABI_IB_WC_SUCCESS only
 * @cqe and @status are meaningful. KAPI: the CQ's poll context: softirq for
 * KABI_IB_POLL_SOFTIRQ (no sleeping), process for _WORKQUEUE/_DIRECT.
 */
void kernel_ib_wc_done(struct ib_cqe *cqe, int status, int opcode, unsigned int byte_len, unsigned int imm_raw,
		      unsigned int invalidate_rkey, int wc_flags) KAPI_NOEXCEPT;

/*
 * Posting. One WR each (kapi_ib_post_chain below posts several at once);
 * the send queue is FIFO, so separate posts keep their order. @cqe may be NULL only for unsignalled WRs (a
 * flushed WR without a cqe is dropped silently by the core). @flags:
 * KABI_IB_SEND_* bits. Any context; they do not sleep or allocate.
 */
int kapi_ib_post_recv(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge) KAPI_NOEXCEPT;
/*
 * SEND family: @opcode KABI_IB_WR_SEND, _SEND_WITH_IMM (@ex = immediate, as
 * the big-endian bit pattern) or _SEND_WITH_INV (@ex = rkey to invalidate).
 */
int kapi_ib_post_send(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge, int opcode,
		      unsigned int flags, unsigned int ex) KAPI_NOEXCEPT;
/*
 * RDMA family: @opcode KABI_IB_WR_RDMA_WRITE, _RDMA_WRITE_WITH_IMM (@imm_raw
 * big-endian bit pattern) or _RDMA_READ. Zero SGEs with remote address and
 * rkey 0 is the RTRS heartbeat shape (a write with immediate and no data).
 */
int kapi_ib_post_rdma(struct ib_qp *qp, struct ib_cqe *cqe, const struct kapi_ib_sge *sge, int num_sge, int opcode,
		      unsigned int flags, unsigned long long remote_addr, unsigned int rkey,
		      unsigned int imm_raw) KAPI_NOEXCEPT;
/* IB_WR_REG_MR of @mr with its current key and the page list of the last map. */
int kapi_ib_post_reg_mr(struct ib_qp *qp, struct ib_cqe *cqe, struct ib_mr *mr, int access,
			unsigned int flags) KAPI_NOEXCEPT;
/* IB_WR_LOCAL_INV of @rkey. */
int kapi_ib_post_local_inv(struct ib_qp *qp, struct ib_cqe *cqe, unsigned int rkey, unsigned int flags) KAPI_NOEXCEPT;
/*
 * Send-queue WRs chained in one ib_post_send (the provider's send path runs
 * once). @slot: KABI_SIZEOF_IB_CHAIN_WR bytes (any WR kind) that the caller
 * owns until the post returns; each kapi_ib_chain_* fills one, as
 * kapi_ib_post_send, _post_rdma, _post_reg_mr or _post_local_inv would
 * have posted it alone, followed by @next (NULL ends the chain).
 * kapi_ib_post_chain posts from @first; on an error *@bad is the slot the
 * provider stopped at: the slots before it execute in order, the rest never.
 */
void kapi_ib_chain_send(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe,
			const struct kapi_ib_sge *sge, int num_sge, int opcode,
			unsigned int flags, unsigned int ex) KAPI_NOEXCEPT;
void kapi_ib_chain_rdma(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe,
			const struct kapi_ib_sge *sge, int num_sge, int opcode,
			unsigned int flags, unsigned long long remote_addr, unsigned int rkey,
			unsigned int imm_raw) KAPI_NOEXCEPT;
void kapi_ib_chain_reg_mr(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe, struct ib_mr *mr,
			  int access, unsigned int flags) KAPI_NOEXCEPT;
void kapi_ib_chain_local_inv(struct ib_send_wr *slot, struct ib_send_wr *next, struct ib_cqe *cqe, unsigned int rkey,
			     unsigned int flags) KAPI_NOEXCEPT;
/* The next WR of a filled slot (NULL: the last). */
void kapi_ib_chain_link(struct ib_send_wr *slot, struct ib_send_wr *next) KAPI_NOEXCEPT;
int kapi_ib_post_chain(struct ib_qp *qp, struct ib_send_wr *first, const struct ib_send_wr **bad) KAPI_NOEXCEPT;
const char *kapi_ib_wc_status_msg(int status) KAPI_NOEXCEPT;

/* ---- DMA mapping, scatterlists, memory regions --------------------------- */

/* @dir: KABI_DMA_*. Map returns -ENOMEM on a mapping error. Any context. */
int kapi_ib_dma_map_single(struct ib_device *device, void *cpu_addr, unsigned long size, int dir,
			   unsigned long long *dma_addr) KAPI_NOEXCEPT;
void kapi_ib_dma_unmap_single(struct ib_device *device, unsigned long long dma_addr, unsigned long size,
			      int dir) KAPI_NOEXCEPT;
void kapi_ib_dma_sync_for_cpu(struct ib_device *device, unsigned long long dma_addr, unsigned long size,
			      int dir) KAPI_NOEXCEPT;
void kapi_ib_dma_sync_for_device(struct ib_device *device, unsigned long long dma_addr, unsigned long size,
				 int dir) KAPI_NOEXCEPT;

/* A table of @nents scatterlist entries (storage: nents * KABI_SIZEOF_SCATTERLIST). */
void kapi_sg_init_table(struct scatterlist *sgl, unsigned int nents) KAPI_NOEXCEPT;
/* Entry @index of a flat (unchained) table. */
struct scatterlist *kapi_sg_entry(struct scatterlist *sgl, unsigned int index) KAPI_NOEXCEPT;
/* The next entry, chained tables followed; NULL after the last. */
struct scatterlist *kapi_sg_next(struct scatterlist *sg) KAPI_NOEXCEPT;
/* An entry's data in the kernel's linear map (sg_virt) and its length. */
void *kapi_sg_virt(struct scatterlist *sg) KAPI_NOEXCEPT;
unsigned int kapi_sg_length(const struct scatterlist *sg) KAPI_NOEXCEPT;
/* Points the entry at kernel memory (kmalloc/linear map, not vmalloc). */
void kapi_sg_set_buf(struct scatterlist *sg, const void *buf, unsigned int len) KAPI_NOEXCEPT;
/*
 * Makes @sg a one-entry table for memory that is already DMA-mapped
 * (kapi_ib_dma_map_single): sets buffer, DMA address and DMA length, so
 * ib_map_mr_sg can take it without a second mapping.
 */
void kapi_sg_init_one_mapped(struct scatterlist *sg, const void *buf, unsigned int len,
			     unsigned long long dma_addr) KAPI_NOEXCEPT;
/* Returns the number of DMA segments (> 0), or 0 on failure. */
int kapi_ib_dma_map_sg(struct ib_device *device, struct scatterlist *sgl, int nents, int dir) KAPI_NOEXCEPT;
void kapi_ib_dma_unmap_sg(struct ib_device *device, struct scatterlist *sgl, int nents, int dir) KAPI_NOEXCEPT;
unsigned long long kapi_sg_dma_address(struct scatterlist *sg) KAPI_NOEXCEPT;
unsigned int kapi_sg_dma_len(struct scatterlist *sg) KAPI_NOEXCEPT;

/* A fast-registration MR (IB_MR_TYPE_MEM_REG) of up to @max_pages pages. KAPI: process context. */
struct ib_mr *kapi_ib_alloc_mr(struct ib_pd *pd, unsigned int max_pages, int *err) KAPI_NOEXCEPT;
int kapi_ib_dereg_mr(struct ib_mr *mr) KAPI_NOEXCEPT;
/*
 * Loads the MR's page list from a DMA-mapped table; returns the number of
 * entries mapped (< nents: did not all fit) or a negative errno.
 * @sg_offset: byte offset into the first entry. Any context.
 */
int kapi_ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sgl, int nents, unsigned int sg_offset,
		      unsigned int page_size) KAPI_NOEXCEPT;
/* Sets the low 8 bits (the key) of the MR's lkey and rkey. */
void kapi_ib_update_fast_reg_key(struct ib_mr *mr, unsigned char key) KAPI_NOEXCEPT;
/* @rkey with its key byte incremented (wrapping). */
unsigned int kapi_ib_inc_rkey(unsigned int rkey) KAPI_NOEXCEPT;
unsigned int kapi_ib_mr_lkey(struct ib_mr *mr) KAPI_NOEXCEPT;
unsigned int kapi_ib_mr_rkey(struct ib_mr *mr) KAPI_NOEXCEPT;
unsigned long long kapi_ib_mr_iova(struct ib_mr *mr) KAPI_NOEXCEPT;
unsigned long long kapi_ib_mr_length(struct ib_mr *mr) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KERNEL_IB_KAPI_RDMA_H */
