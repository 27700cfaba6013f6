// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The C boundary of a blk-mq driver: tag set, gendisk, queue limits and
 * request helpers. Each function is one kernel call (or one macro) and
 * knows no driver: the driver's own C boundary defines its blk_mq_ops and
 * block_device_operations (calling its C++ directly, so an IO costs no
 * call more than the kernel's own indirect one) and hands them to
 * kapi_tag_set_alloc and kapi_disk_identity.
 *
 * Kernel versions: the #if blocks name the release where the call changed;
 * 6.1 and 6.12 are the kernels built and tested. The queue limits reach
 * this file as one plain description (struct kapi_queue_limits): since 6.9
 * the kernel takes them as a struct at allocation, before as one
 * blk_queue_* setter each; either way the fields are only copied. A live
 * disk's limits change (remap, resize) as one update since 6.9
 * (queue_limits_start_update/commit_update: validated, all or nothing),
 * through the same setters before; the queue is frozen around it.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/version.h>
#include "kapi-blk.h"

/* KAPI: process context; the C++ device owns the disk this major serves. */
int kapi_register_major(const char *name)
{
	return register_blkdev(0, name);
}

void kapi_unregister_major(int major, const char *name)
{
	unregister_blkdev(major, name);
}

static_assert((int)KAPI_HCTX_DEFAULT == (int)HCTX_TYPE_DEFAULT && (int)KAPI_HCTX_READ == (int)HCTX_TYPE_READ &&
	      (int)KAPI_HCTX_POLL == (int)HCTX_TYPE_POLL && (int)KAPI_HCTX_TYPES == (int)HCTX_MAX_TYPES);

/* One map of the set: `nr_queues` hardware queues from `offset`, spread over the CPUs. */
void kapi_map_queue_type(struct blk_mq_tag_set *tag_set, unsigned int type, unsigned int nr_queues,
			      unsigned int offset)
{
	struct blk_mq_queue_map *map = &tag_set->map[type];

	map->nr_queues = nr_queues;
	map->queue_offset = offset;
	blk_mq_map_queues(map);
}

unsigned int kapi_hctx_type(struct blk_mq_hw_ctx *hctx)
{
	return hctx->type;
}

unsigned int kapi_hctx_queue_num(struct blk_mq_hw_ctx *hctx)
{
	return hctx->queue_num;
}

/* KAPI: process context; a zeroed tag set with the driver's ops, not yet allocated. */
struct blk_mq_tag_set *kapi_tag_set_alloc(const struct blk_mq_ops *ops, unsigned int nr_hw_queues,
					  unsigned int nr_maps, unsigned int depth, unsigned int cmd_size,
					  void *driver_data, int no_scheduler_by_default)
{
	struct blk_mq_tag_set *set = kzalloc(sizeof(*set), GFP_KERNEL);

	if (!set)
		return NULL;
	set->ops = ops;
	set->nr_hw_queues = nr_hw_queues;
	set->nr_maps = nr_maps;
	set->queue_depth = depth;
	set->numa_node = NUMA_NO_NODE;
	set->cmd_size = cmd_size;
	set->flags = BLK_MQ_F_SHOULD_MERGE | (no_scheduler_by_default ? BLK_MQ_F_NO_SCHED_BY_DEFAULT : 0);
	set->driver_data = driver_data;
	return set;
}

/* KAPI: process context, sleeps (allocates every request of every queue). */
int kapi_tag_set_init(struct blk_mq_tag_set *set)
{
	return blk_mq_alloc_tag_set(set);
}

/* A tag set whose init failed (or never ran). */
void kapi_tag_set_free(struct blk_mq_tag_set *set)
{
	kfree(set);
}

void kapi_tag_set_destroy(struct blk_mq_tag_set *set)
{
	blk_mq_free_tag_set(set);
	kfree(set);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
/*
 * The description as the kernel's limits: a field copy, features as flags
 * (the three it describes; the block layer's own features stay).
 */
static void kapi_fill_limits(struct queue_limits *ql, const struct kapi_queue_limits *lim)
{
	ql->logical_block_size = lim->logical_block_size;
	ql->physical_block_size = lim->physical_block_size;
	ql->max_hw_sectors = lim->max_hw_sectors;
	ql->max_segments = lim->max_segments;
	ql->virt_boundary_mask = lim->virt_boundary_mask;
	ql->io_opt = lim->io_opt;
	ql->max_discard_segments = 1;
	ql->max_hw_discard_sectors = lim->max_discard_sectors;
	ql->discard_granularity = lim->discard_granularity;
	ql->discard_alignment = lim->discard_alignment;
	ql->max_secure_erase_sectors = lim->max_secure_erase_sectors;
	ql->max_write_zeroes_sectors = lim->max_write_zeroes_sectors;
	ql->features = (ql->features & ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA | BLK_FEAT_ROTATIONAL)) |
		       (lim->write_cache ? BLK_FEAT_WRITE_CACHE : 0) | (lim->fua ? BLK_FEAT_FUA : 0) |
		       (lim->rotational ? BLK_FEAT_ROTATIONAL : 0);
}

/* KAPI: process context, queue frozen; one validated update, all or nothing. */
int kapi_update_limits(struct gendisk *disk, const struct kapi_queue_limits *lim)
{
	struct request_queue *q = disk->queue;
	struct queue_limits ql = queue_limits_start_update(q);

	kapi_fill_limits(&ql, lim);
	return queue_limits_commit_update(q, &ql);
}

/* KAPI: process context; the limits are validated and applied at allocation. */
int kapi_disk_alloc(struct blk_mq_tag_set *set, const struct kapi_queue_limits *lim, void *device,
			 struct gendisk **out)
{
	struct queue_limits ql = {};
	struct gendisk *disk;

	kapi_fill_limits(&ql, lim);
	disk = blk_mq_alloc_disk(set, &ql, device);
	if (IS_ERR(disk))
		return PTR_ERR(disk);
	disk->private_data = device;
	*out = disk;
	return 0;
}
#else
/* The description through the setters of this kernel, one per field. */
static void kapi_set_limits(struct request_queue *q, const struct kapi_queue_limits *lim)
{
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_virt_boundary(q, lim->virt_boundary_mask);
	blk_queue_io_opt(q, lim->io_opt);
	blk_queue_max_discard_segments(q, 1);
	blk_queue_max_discard_sectors(q, lim->max_discard_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
	q->limits.discard_alignment = lim->discard_alignment;
	blk_queue_max_secure_erase_sectors(q, lim->max_secure_erase_sectors);
	blk_queue_max_write_zeroes_sectors(q, lim->max_write_zeroes_sectors);
	blk_queue_write_cache(q, lim->write_cache, lim->fua);
	if (lim->rotational)
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, q);
	else
		blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
}

/* KAPI: process context, queue frozen; this kernel has setters only. */
int kapi_update_limits(struct gendisk *disk, const struct kapi_queue_limits *lim)
{
	kapi_set_limits(disk->queue, lim);
	return 0;
}

/* KAPI: process context. */
int kapi_disk_alloc(struct blk_mq_tag_set *set, const struct kapi_queue_limits *lim, void *device,
			 struct gendisk **out)
{
	struct gendisk *disk = blk_mq_alloc_disk(set, device);

	if (IS_ERR(disk))
		return PTR_ERR(disk);
	kapi_set_limits(disk->queue, lim);
	disk->private_data = device;
	*out = disk;
	return 0;
}
#endif

void kapi_disk_identity(struct gendisk *disk, const struct block_device_operations *fops, int major,
			unsigned int index, unsigned int minors, const char *prefix)
{
	disk->major = major;
	disk->first_minor = index * minors;
	disk->minors = minors;
	disk->fops = fops;
	snprintf(disk->disk_name, sizeof(disk->disk_name), "%s%u", prefix, index);
}

/* KAPI: process context; partitions are scanned (IO is issued) before it returns. */
int kapi_add_disk(struct gendisk *disk)
{
	return add_disk(disk);
}

/* KAPI: process context; waits for in-flight IO. */
void kapi_del_gendisk(struct gendisk *disk)
{
	del_gendisk(disk);
}

void kapi_put_disk(struct gendisk *disk)
{
	put_disk(disk);
}

void kapi_mark_disk_dead(struct gendisk *disk)
{
	blk_mark_disk_dead(disk);
}

struct device *kapi_disk_device(struct gendisk *disk)
{
	return disk_to_dev(disk);
}

const char *kapi_disk_name(struct gendisk *disk)
{
	return disk->disk_name;
}

void kapi_set_read_only(struct gendisk *disk)
{
	set_disk_ro(disk, true);
}

/* KAPI: process context; waits until no request of the disk is in flight. */
void kapi_freeze_queue(struct gendisk *disk)
{
	blk_mq_freeze_queue(disk->queue);
}

void kapi_unfreeze_queue(struct gendisk *disk)
{
	blk_mq_unfreeze_queue(disk->queue);
}

void kapi_set_capacity(struct gendisk *disk, unsigned long long sectors)
{
	set_capacity(disk, sectors);
}

void kapi_set_capacity_notify(struct gendisk *disk, unsigned long long sectors)
{
	set_capacity_and_notify(disk, sectors);
}

void kapi_disk_change_uevent(struct gendisk *disk)
{
	kobject_uevent(&disk_to_dev(disk)->kobj, KOBJ_CHANGE);
}

/* KAPI: any context; reads the request's fields. */
void kapi_rq_info(struct request *rq, struct kapi_rq_info *info)
{
	info->op = (__force unsigned int)req_op(rq);
	info->sync = op_is_sync(rq->cmd_flags);
	info->flush_or_fua = op_is_flush(rq->cmd_flags);
	info->bytes = blk_rq_bytes(rq);
	info->sector = blk_rq_pos(rq);
	info->prio = req_get_ioprio(rq);
}

void kapi_rq_start(struct request *rq)
{
	blk_mq_start_request(rq);
}

int kapi_rq_map_sg(struct request *rq, struct scatterlist *sg)
{
	return blk_rq_map_sg(rq->q, rq, sg);
}

/* KAPI: any context (the transport's completion, softirq). */
void kapi_rq_complete(struct request *rq)
{
	if (likely(!blk_should_fake_timeout(rq->q)))
		blk_mq_complete_request(rq);
}

void kapi_rq_end(struct request *rq, int error)
{
	blk_mq_end_request(rq, errno_to_blk_status(error));
}

/* KAPI: any context; the queue's request timeout (sysfs queue/io_timeout). */
unsigned int kapi_rq_queue_timeout_ms(struct request *rq)
{
	return jiffies_to_msecs(rq->q->rq_timeout);
}

void kapi_hctx_delay_run(struct blk_mq_hw_ctx *hctx, unsigned long msecs)
{
	blk_mq_delay_run_hw_queue(hctx, msecs);
}

/* KAPI: any context (the complete upcall, softirq). */
void kapi_rq_requeue(struct request *rq)
{
	blk_mq_requeue_request(rq, false);
}

void kapi_rq_kick_requeue_list(struct request *rq, unsigned long msecs)
{
	blk_mq_delay_kick_requeue_list(rq->q, msecs);
}

/* KAPI: process context. */
void kapi_run_queues(struct gendisk *disk)
{
	blk_mq_run_hw_queues(disk->queue, true);
}
