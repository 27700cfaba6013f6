/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary of a blk-mq driver: blk-mq, gendisk, request helpers
 * (kernel/block/kapi-blk.c) and the scatterlists
 * (kernel/block/kapi-sg.c). Kernel objects are typed opaque pointers here
 * (the kernel's own struct names, incomplete on the C++ side); C++ reaches
 * them only through the views and owners of kernel/block/. The driver's
 * blk_mq_ops and block_device_operations tables are its own (defined in
 * its C boundary, calling its C++): they arrive here as pointers.
 */
#ifndef KAPI_BLK_H
#define KAPI_BLK_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's objects, opaque to C++. */
struct blk_mq_tag_set;
struct blk_mq_hw_ctx;
struct request;
struct gendisk;
struct device;
struct blk_mq_ops;
struct block_device_operations;

struct kapi_rq_info {
	unsigned int op;           /* req_op(): the kernel's REQ_OP_* value */
	unsigned int sync;         /* op_is_sync() of the request's flags */
	unsigned int flush_or_fua; /* op_is_flush(): PREFLUSH or FUA (or a flush op) */
	unsigned int bytes;        /* blk_rq_bytes() */
	unsigned long long sector; /* blk_rq_pos() */
	unsigned short prio;       /* req_get_ioprio() */
};

/*
 * The queue limits of a disk as plain numbers, filled by C++ and copied
 * into the kernel's limits by kapi_disk_alloc (which kernel call does
 * it differs between kernels; this description does not).
 */
struct kapi_queue_limits {
	unsigned int logical_block_size;  /* bytes */
	unsigned int physical_block_size; /* bytes */
	unsigned int max_hw_sectors;
	unsigned int max_segments;
	unsigned long virt_boundary_mask;
	unsigned int io_opt;              /* bytes */
	unsigned int max_discard_sectors; /* 0: no discard; one segment per discard */
	unsigned int discard_granularity; /* bytes */
	unsigned int discard_alignment;   /* bytes */
	unsigned int max_secure_erase_sectors;
	unsigned int max_write_zeroes_sectors; /* 0: the block layer writes zeroes itself */
	unsigned int write_cache;         /* volatile write cache: flushes are needed */
	unsigned int fua;
	unsigned int rotational;
};

/* ---- block major (process context) ---- */
/* register_blkdev(0, name): the dynamic major or -errno. */
int kapi_register_major(const char *name) KAPI_NOEXCEPT;
void kapi_unregister_major(int major, const char *name) KAPI_NOEXCEPT;

/* ---- tag set and disk (process context, may sleep) ---- */
/*
 * A blk_mq_tag_set with the driver's `ops`: nr_hw_queues, nr_maps (1, or
 * KAPI_HCTX_TYPES with polled queues; the map_queues upcall lays them
 * out), depth, a per-request PDU of `cmd_size` bytes (its layout is the C++
 * tag set's: kernel/block/tag-set.hpp), and `driver_data` handed to the
 * init_request and map_queues upcalls; `no_scheduler_by_default`: its
 * queues start with no I/O scheduler even with one hardware queue
 * (BLK_MQ_F_NO_SCHED_BY_DEFAULT; the administrator may still set one).
 * NULL without memory. Then init (blk_mq_alloc_tag_set, 0 or -errno); free if init failed.
 */
struct blk_mq_tag_set *kapi_tag_set_alloc(const struct blk_mq_ops *ops, unsigned int nr_hw_queues,
					  unsigned int nr_maps, unsigned int depth, unsigned int cmd_size,
					  void *driver_data, int no_scheduler_by_default) KAPI_NOEXCEPT;
/* Hardware queue types (enum hctx_type). */
enum kapi_hctx_type {
	KAPI_HCTX_DEFAULT = 0,
	KAPI_HCTX_READ = 1,
	KAPI_HCTX_POLL = 2,
	KAPI_HCTX_TYPES = 3,
};
/* From the map_queues upcall: map `type` is `nr_queues` queues from `offset` (blk_mq_map_queues). */
void kapi_map_queue_type(struct blk_mq_tag_set *tag_set, unsigned int type, unsigned int nr_queues,
			      unsigned int offset) KAPI_NOEXCEPT;
/* A hardware queue's type (KAPI_HCTX_*) and index in the tag set. Any context. */
unsigned int kapi_hctx_type(struct blk_mq_hw_ctx *hctx) KAPI_NOEXCEPT;
unsigned int kapi_hctx_queue_num(struct blk_mq_hw_ctx *hctx) KAPI_NOEXCEPT;
int kapi_tag_set_init(struct blk_mq_tag_set *set) KAPI_NOEXCEPT;
void kapi_tag_set_free(struct blk_mq_tag_set *set) KAPI_NOEXCEPT;
/* blk_mq_free_tag_set + kfree; after the disk's queue is gone (del_gendisk/put_disk). */
void kapi_tag_set_destroy(struct blk_mq_tag_set *set) KAPI_NOEXCEPT;
/*
 * blk_mq_alloc_disk(set, queuedata = device) with the queue limits of `lim`
 * (copied; the kernel validates them); 0 or -errno.
 */
int kapi_disk_alloc(struct blk_mq_tag_set *set, const struct kapi_queue_limits *lim, void *device,
			 struct gendisk **out) KAPI_NOEXCEPT;
/*
 * A live disk's queue limits replaced by `lim` (remap, resize): on 6.12 one
 * atomic, validated update (0 or -errno, nothing changed on error), on 6.1
 * the setters (0). Call between freeze and unfreeze: blk_mq_freeze_queue
 * waits for every request in flight, new ones wait for the unfreeze.
 */
int kapi_update_limits(struct gendisk *disk, const struct kapi_queue_limits *lim) KAPI_NOEXCEPT;
void kapi_freeze_queue(struct gendisk *disk) KAPI_NOEXCEPT;
void kapi_unfreeze_queue(struct gendisk *disk) KAPI_NOEXCEPT;
/* Names the disk "<prefix><index>" with `minors` minors from index * minors, the driver's `fops`. */
void kapi_disk_identity(struct gendisk *disk, const struct block_device_operations *fops, int major,
			unsigned int index, unsigned int minors, const char *prefix) KAPI_NOEXCEPT;
int kapi_add_disk(struct gendisk *disk) KAPI_NOEXCEPT;
void kapi_del_gendisk(struct gendisk *disk) KAPI_NOEXCEPT;
void kapi_put_disk(struct gendisk *disk) KAPI_NOEXCEPT;
/* blk_mark_disk_dead: every new IO fails at once (force unmap). */
void kapi_mark_disk_dead(struct gendisk *disk) KAPI_NOEXCEPT;
/* disk_to_dev(): the struct device of /sys/block/<name> (a kobject parent). */
struct device *kapi_disk_device(struct gendisk *disk) KAPI_NOEXCEPT;
const char *kapi_disk_name(struct gendisk *disk) KAPI_NOEXCEPT;

void kapi_set_read_only(struct gendisk *disk) KAPI_NOEXCEPT;
void kapi_set_capacity(struct gendisk *disk, unsigned long long sectors) KAPI_NOEXCEPT;
/* After add_disk: set_capacity_and_notify (a uevent for the size change). */
void kapi_set_capacity_notify(struct gendisk *disk, unsigned long long sectors) KAPI_NOEXCEPT;
/*
 * kobject_uevent(disk's device, KOBJ_CHANGE): tells udev to look at the disk
 * again (the driver's attributes exist, its state changed). Process context.
 */
void kapi_disk_change_uevent(struct gendisk *disk) KAPI_NOEXCEPT;

/* ---- requests (any context unless noted) ---- */
void kapi_rq_info(struct request *rq, struct kapi_rq_info *info) KAPI_NOEXCEPT;
void kapi_rq_start(struct request *rq) KAPI_NOEXCEPT;
/* blk_rq_map_sg into `sg` (initialised once by kapi_block_sg_init_table); entries used. */
int kapi_rq_map_sg(struct request *rq, struct scatterlist *sg) KAPI_NOEXCEPT;
/* blk_mq_complete_request: the complete upcall follows (softirq or here). */
void kapi_rq_complete(struct request *rq) KAPI_NOEXCEPT;
/* blk_mq_end_request with errno_to_blk_status(error). */
void kapi_rq_end(struct request *rq, int error) KAPI_NOEXCEPT;
/* The request's queue's timeout (q->rq_timeout, sysfs queue/io_timeout) in ms. */
unsigned int kapi_rq_queue_timeout_ms(struct request *rq) KAPI_NOEXCEPT;
/* blk_mq_delay_run_hw_queue: re-run a queue that ran out of permits. */
void kapi_hctx_delay_run(struct blk_mq_hw_ctx *hctx, unsigned long msecs) KAPI_NOEXCEPT;
/* blk_mq_requeue_request(rq, false): back to the queue, dispatched again after a kick. */
void kapi_rq_requeue(struct request *rq) KAPI_NOEXCEPT;
/* blk_mq_delay_kick_requeue_list of the request's queue. */
void kapi_rq_kick_requeue_list(struct request *rq, unsigned long msecs) KAPI_NOEXCEPT;
/* blk_mq_run_hw_queues(disk's queue, async): re-run every hardware queue. */
void kapi_run_queues(struct gendisk *disk) KAPI_NOEXCEPT;

/* ---- scatterlists (kapi-sg.c) ---- */
unsigned int kapi_sizeof_scatterlist(void) KAPI_NOEXCEPT;
unsigned int kapi_alignof_scatterlist(void) KAPI_NOEXCEPT;
void kapi_block_sg_init_table(struct scatterlist *sg, unsigned int entries) KAPI_NOEXCEPT;
/* sg_init_one over a kmalloc'd (DMA-able) buffer; the entry is kmalloc'd, free with kapi_sg_free_one. */
struct scatterlist *kapi_sg_alloc_one(void *buffer, unsigned int length, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_sg_free_one(struct scatterlist *sg) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* KAPI_BLK_H */
