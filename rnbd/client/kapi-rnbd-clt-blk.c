// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-client's C boundary towards the block layer as a driver: its
 * blk_mq_ops and block_device_operations, each entry one call of its C++
 * upcall (rnbd-clt-upcalls.h) with the device the kernel holds for it.
 * kernel/block/ makes the tag sets and disks with these tables: the kernel
 * calls the entries directly, no table of ours in between.
 *
 * Kernel versions: the #if block names the release where the call changed;
 * 6.1 and 6.12 are the kernels built and tested.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/version.h>
#include "rnbd-clt-upcalls.h"

/* KAPI: blk-mq, may not sleep; forwards to C++ with the device (queuedata). */
static blk_status_t rnbd_clt_queue_rq(struct blk_mq_hw_ctx *hctx, const struct blk_mq_queue_data *bd)
{
	return (__force blk_status_t)rnbd_clt_cxx_queue_rq(hctx->queue->queuedata, hctx, bd->rq, blk_mq_rq_to_pdu(bd->rq));
}

/* KAPI: softirq (or the context that completed the request). */
static void rnbd_clt_complete(struct request *rq)
{
	rnbd_clt_cxx_complete_rq(rq, blk_mq_rq_to_pdu(rq));
}

/* KAPI: process context (blk-mq timeout work). */
static enum blk_eh_timer_return rnbd_clt_timeout(struct request *rq)
{
	if (rnbd_clt_cxx_timeout(rq->q->queuedata, rq, blk_mq_rq_to_pdu(rq)))
		return BLK_EH_RESET_TIMER;
	return BLK_EH_DONE;
}

/* KAPI: process context, once per request when the tag set is allocated. */
static int rnbd_clt_init_request(struct blk_mq_tag_set *set, struct request *rq, unsigned int hctx_idx,
				 unsigned int numa_node)
{
	rnbd_clt_cxx_init_request(set->driver_data, blk_mq_rq_to_pdu(rq));
	return 0;
}

/* KAPI: process context (tag set allocation, CPU hotplug); C++ lays out the maps. */
static void rnbd_clt_map_queues(struct blk_mq_tag_set *set)
{
	rnbd_clt_cxx_map_queues(set->driver_data, set);
}

/* KAPI: the polling task (io_uring, blk_poll), process context, may not sleep. */
static int rnbd_clt_poll(struct blk_mq_hw_ctx *hctx, struct io_comp_batch *iob)
{
	return rnbd_clt_cxx_poll(hctx->queue->queuedata, hctx->queue_num);
}

const struct blk_mq_ops rnbd_clt_mq_ops = {
	.queue_rq = rnbd_clt_queue_rq,
	.complete = rnbd_clt_complete,
	.timeout = rnbd_clt_timeout,
	.init_request = rnbd_clt_init_request,
	.map_queues = rnbd_clt_map_queues,
	.poll = rnbd_clt_poll,
};

/* KAPI: process context. Since 6.5 open takes the disk and a blk_mode_t. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static int rnbd_clt_open(struct gendisk *disk, blk_mode_t mode)
{
	return rnbd_clt_cxx_open(disk->private_data, !!(mode & BLK_OPEN_WRITE));
}

static void rnbd_clt_release(struct gendisk *disk)
{
	rnbd_clt_cxx_release(disk->private_data);
}
#else
static int rnbd_clt_open(struct block_device *bdev, fmode_t mode)
{
	return rnbd_clt_cxx_open(bdev->bd_disk->private_data, !!(mode & FMODE_WRITE));
}

static void rnbd_clt_release(struct gendisk *disk, fmode_t mode)
{
	rnbd_clt_cxx_release(disk->private_data);
}
#endif

/* KAPI: the last reference to the disk is gone (disk_release), process context. */
static void rnbd_clt_free_disk(struct gendisk *disk)
{
	rnbd_clt_cxx_free_disk(disk->private_data);
}

const struct block_device_operations rnbd_clt_disk_ops = {
	.owner = THIS_MODULE,
	.open = rnbd_clt_open,
	.release = rnbd_clt_release,
	.free_disk = rnbd_clt_free_disk,
};
