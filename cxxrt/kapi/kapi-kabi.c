// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Generates cxxrt-kabi.h: sizes and alignments of the kernel objects that
 * C++ embeds as opaque storage, and the GFP constants, taken from the real
 * headers of the kernel being built for (the asm-offsets technique). Never
 * hand-write these: they change with the config (lockdep, debug options).
 * Compiled to assembly only, never linked.
 */
#include <linux/kbuild.h>
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define KABI_OBJECT(name, type)                          \
	DEFINE(KABI_SIZEOF_##name, sizeof(type));        \
	DEFINE(KABI_ALIGNOF_##name, __alignof__(type))

int main(void);
int main(void)
{
	KABI_OBJECT(SPINLOCK, spinlock_t);
	KABI_OBJECT(MUTEX, struct mutex);
	KABI_OBJECT(COMPLETION, struct completion);
	KABI_OBJECT(WORK, struct work_struct);
	KABI_OBJECT(DELAYED_WORK, struct delayed_work);
	KABI_OBJECT(TIMER, struct timer_list);
	KABI_OBJECT(WAIT_QUEUE_HEAD, wait_queue_head_t);
	KABI_OBJECT(KOBJECT, struct kobject);
	KABI_OBJECT(LOCK_CLASS_KEY, struct lock_class_key);  /* empty (size 0) without lockdep */
	BLANK();
	DEFINE(KABI_GFP_KERNEL, GFP_KERNEL);
	DEFINE(KABI_GFP_ATOMIC, GFP_ATOMIC);
	DEFINE(KABI_GFP_NOIO, GFP_NOIO);
	DEFINE(KABI_GFP_NOWAIT, GFP_NOWAIT);
	DEFINE(KABI___GFP_ZERO, __GFP_ZERO);
	DEFINE(KABI_PAGE_SIZE, PAGE_SIZE);
	return 0;
}

/* cxxrt: workqueue flags and wait queue entries (work.hpp, wait.hpp). */
int kabi_cxxrt_wq_wait(void);
int kabi_cxxrt_wq_wait(void)
{
	KABI_OBJECT(WAIT_QUEUE_ENTRY, struct wait_queue_entry);
	DEFINE(KABI_WQ_UNBOUND, WQ_UNBOUND);
	DEFINE(KABI_WQ_FREEZABLE, WQ_FREEZABLE);
	DEFINE(KABI_WQ_MEM_RECLAIM, WQ_MEM_RECLAIM);
	DEFINE(KABI_WQ_HIGHPRI, WQ_HIGHPRI);
	DEFINE(KABI_WQ_CPU_INTENSIVE, WQ_CPU_INTENSIVE);
	DEFINE(KABI_WQ_SYSFS, WQ_SYSFS);
	DEFINE(KABI_WQ_MAX_ACTIVE, WQ_MAX_ACTIVE);
	return 0;
}

/* RDMA: kernel/ib/kapi-rdma*.c and the kernel/ib/ C++ wrappers. */
#include <linux/dma-direction.h>
#include <linux/irq_poll.h>
#include <linux/scatterlist.h>
#include <linux/socket.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

int kabi_rtrs_rdma(void);
/* One send-queue WR of a chain (kernel/ib/kapi-rdma-verbs.c): any kind. */
union kapi_ib_chain_wr {
	struct ib_send_wr send;
	struct ib_rdma_wr rdma;
	struct ib_reg_wr reg;
};

int kabi_rtrs_rdma(void)
{
	KABI_OBJECT(IB_CQE, struct ib_cqe);
	KABI_OBJECT(IB_WC, struct ib_wc);
	KABI_OBJECT(IB_CHAIN_WR, union kapi_ib_chain_wr);
	KABI_OBJECT(IRQ_POLL, struct irq_poll);
	KABI_OBJECT(SCATTERLIST, struct scatterlist);
	KABI_OBJECT(SOCKADDR_STORAGE, struct sockaddr_storage);
	DEFINE(KABI_RDMA_PS_TCP, RDMA_PS_TCP);
	DEFINE(KABI_RDMA_PS_IB, RDMA_PS_IB);
	DEFINE(KABI_RDMA_CM_EVENT_ADDR_RESOLVED, RDMA_CM_EVENT_ADDR_RESOLVED);
	DEFINE(KABI_RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ADDR_ERROR);
	DEFINE(KABI_RDMA_CM_EVENT_ROUTE_RESOLVED, RDMA_CM_EVENT_ROUTE_RESOLVED);
	DEFINE(KABI_RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_ROUTE_ERROR);
	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_REQUEST, RDMA_CM_EVENT_CONNECT_REQUEST);
	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_RESPONSE, RDMA_CM_EVENT_CONNECT_RESPONSE);
	DEFINE(KABI_RDMA_CM_EVENT_CONNECT_ERROR, RDMA_CM_EVENT_CONNECT_ERROR);
	DEFINE(KABI_RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_UNREACHABLE);
	DEFINE(KABI_RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_REJECTED);
	DEFINE(KABI_RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED);
	DEFINE(KABI_RDMA_CM_EVENT_DISCONNECTED, RDMA_CM_EVENT_DISCONNECTED);
	DEFINE(KABI_RDMA_CM_EVENT_DEVICE_REMOVAL, RDMA_CM_EVENT_DEVICE_REMOVAL);
	DEFINE(KABI_RDMA_CM_EVENT_ADDR_CHANGE, RDMA_CM_EVENT_ADDR_CHANGE);
	DEFINE(KABI_RDMA_CM_EVENT_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT);
	DEFINE(KABI_IB_CM_REJ_CONSUMER_DEFINED, IB_CM_REJ_CONSUMER_DEFINED);
	DEFINE(KABI_IB_CM_REQ_PRIVATE_DATA_SIZE, IB_CM_REQ_PRIVATE_DATA_SIZE);
	DEFINE(KABI_IB_CM_REP_PRIVATE_DATA_SIZE, IB_CM_REP_PRIVATE_DATA_SIZE);
	DEFINE(KABI_IB_CM_REJ_PRIVATE_DATA_SIZE, IB_CM_REJ_PRIVATE_DATA_SIZE);
	DEFINE(KABI_IB_POLL_SOFTIRQ, IB_POLL_SOFTIRQ);
	DEFINE(KABI_IB_POLL_WORKQUEUE, IB_POLL_WORKQUEUE);
	DEFINE(KABI_IB_POLL_DIRECT, IB_POLL_DIRECT);
	DEFINE(KABI_IB_PD_UNSAFE_GLOBAL_RKEY, IB_PD_UNSAFE_GLOBAL_RKEY);
	DEFINE(KABI_IB_WC_SUCCESS, IB_WC_SUCCESS);
	DEFINE(KABI_IB_WC_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR);
	DEFINE(KABI_IB_WC_SEND, IB_WC_SEND);
	DEFINE(KABI_IB_WC_RDMA_WRITE, IB_WC_RDMA_WRITE);
	DEFINE(KABI_IB_WC_RDMA_READ, IB_WC_RDMA_READ);
	DEFINE(KABI_IB_WC_LOCAL_INV, IB_WC_LOCAL_INV);
	DEFINE(KABI_IB_WC_REG_MR, IB_WC_REG_MR);
	DEFINE(KABI_IB_WC_RECV, IB_WC_RECV);
	DEFINE(KABI_IB_WC_RECV_RDMA_WITH_IMM, IB_WC_RECV_RDMA_WITH_IMM);
	DEFINE(KABI_IB_WC_WITH_IMM, IB_WC_WITH_IMM);
	DEFINE(KABI_IB_WC_WITH_INVALIDATE, IB_WC_WITH_INVALIDATE);
	DEFINE(KABI_IB_WR_RDMA_WRITE, IB_WR_RDMA_WRITE);
	DEFINE(KABI_IB_WR_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_WRITE_WITH_IMM);
	DEFINE(KABI_IB_WR_SEND, IB_WR_SEND);
	DEFINE(KABI_IB_WR_SEND_WITH_IMM, IB_WR_SEND_WITH_IMM);
	DEFINE(KABI_IB_WR_SEND_WITH_INV, IB_WR_SEND_WITH_INV);
	DEFINE(KABI_IB_WR_RDMA_READ, IB_WR_RDMA_READ);
	DEFINE(KABI_IB_SEND_FENCE, IB_SEND_FENCE);
	DEFINE(KABI_IB_SEND_SIGNALED, IB_SEND_SIGNALED);
	DEFINE(KABI_IB_SEND_SOLICITED, IB_SEND_SOLICITED);
	DEFINE(KABI_IB_SEND_INLINE, IB_SEND_INLINE);
	DEFINE(KABI_IB_ACCESS_LOCAL_WRITE, IB_ACCESS_LOCAL_WRITE);
	DEFINE(KABI_IB_ACCESS_REMOTE_WRITE, IB_ACCESS_REMOTE_WRITE);
	DEFINE(KABI_IB_ACCESS_REMOTE_READ, IB_ACCESS_REMOTE_READ);
	DEFINE(KABI_DMA_BIDIRECTIONAL, DMA_BIDIRECTIONAL);
	DEFINE(KABI_DMA_TO_DEVICE, DMA_TO_DEVICE);
	DEFINE(KABI_DMA_FROM_DEVICE, DMA_FROM_DEVICE);
	return 0;
}

/*
 * rnbd-server: a looked-up path held while the export policy decides
 * (kernel/block/path.hpp); the block-layer ops and flags of its bios
 * (kernel/block/bio.hpp: blk_opf_t values, which C++ maps RNBD's onto).
 */
#include <linux/path.h>
#include <linux/blk_types.h>

int kabi_rnbd_server(void);
int kabi_rnbd_server(void)
{
	KABI_OBJECT(PATH, struct path);
	DEFINE(KABI_REQ_OP_READ, REQ_OP_READ);
	DEFINE(KABI_REQ_OP_WRITE, REQ_OP_WRITE);
	DEFINE(KABI_REQ_OP_FLUSH, REQ_OP_FLUSH);
	DEFINE(KABI_REQ_OP_DISCARD, REQ_OP_DISCARD);
	DEFINE(KABI_REQ_OP_SECURE_ERASE, REQ_OP_SECURE_ERASE);
	DEFINE(KABI_REQ_OP_WRITE_ZEROES, REQ_OP_WRITE_ZEROES);
	DEFINE(KABI_REQ_SYNC, REQ_SYNC);
	DEFINE(KABI_REQ_FUA, REQ_FUA);
	DEFINE(KABI_REQ_PREFLUSH, REQ_PREFLUSH);
	return 0;
}

/*
 * rnbd-client: what its queue_rq answers the block layer (blk_status_t,
 * kernel/block/status.hpp), so the boundary passes the value through.
 */
int kabi_rnbd_client(void);
int kabi_rnbd_client(void)
{
	DEFINE(KABI_BLK_STS_OK, (__force u8)BLK_STS_OK);
	DEFINE(KABI_BLK_STS_RESOURCE, (__force u8)BLK_STS_RESOURCE);
	DEFINE(KABI_BLK_STS_IOERR, (__force u8)BLK_STS_IOERR);
	DEFINE(KABI_BLK_STS_NOTSUPP, (__force u8)BLK_STS_NOTSUPP);
	DEFINE(KABI_BLK_STS_DEV_RESOURCE, (__force u8)BLK_STS_DEV_RESOURCE);
	return 0;
}
