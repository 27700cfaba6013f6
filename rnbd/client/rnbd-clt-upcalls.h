/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contract between rnbd-client's C files and its C++: the module entry
 * (rnbd-clt-mod.c, rnbd-clt.cpp) and the block driver (kapi-rnbd-clt-blk.c,
 * rnbd-clt-dev{,-io}.cpp).
 */
#ifndef RNBD_CLT_KAPI_H
#define RNBD_CLT_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rnbd_clt_cxx_init(void) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rnbd_clt_cxx_exit(void) KAPI_NOEXCEPT;
/* KAPI: try_module_get(THIS_MODULE): nonzero if the module is not going away. */
int rnbd_clt_module_get(void) KAPI_NOEXCEPT;
/* KAPI: module_put(THIS_MODULE). */
void rnbd_clt_module_put(void) KAPI_NOEXCEPT;
/* The control_timeout_ms parameter. KAPI: any context. */
unsigned int rnbd_clt_control_timeout_ms(void) KAPI_NOEXCEPT;
/*
 * Its setter (C++): parses `value` (milliseconds) and, when it is within
 * the documented range, stores it in *storage; else -EINVAL and the old
 * value stays. KAPI: process context, the parameter lock held.
 */
int rnbd_clt_cxx_set_control_timeout(const char *value, unsigned int *storage) KAPI_NOEXCEPT;

/* ---- the block driver (kapi-rnbd-clt-blk.c) ---- */
struct blk_mq_ops;
struct block_device_operations;
struct blk_mq_tag_set;
struct blk_mq_hw_ctx;
struct request;

/*
 * The tables the tag sets and disks are made with: each entry calls one
 * upcall below. `device` is the C++ device (the queue's queuedata, the
 * disk's private_data); `session` the C++ session (the tag set's
 * driver_data: a session's devices share its tag set).
 */
extern const struct blk_mq_ops rnbd_clt_mq_ops;
extern const struct block_device_operations rnbd_clt_disk_ops;

/* Upcalls (C++, rnbd-clt-dev{,-io}.cpp). */
/* KAPI: blk-mq init_request, process context (tag set allocation). */
void rnbd_clt_cxx_init_request(void *session, void *pdu) KAPI_NOEXCEPT;
/* KAPI: blk-mq queue_rq; may not sleep (BLK_MQ_F_BLOCKING is not set). Answers a blk_status_t value. */
int rnbd_clt_cxx_queue_rq(void *device, struct blk_mq_hw_ctx *hctx, struct request *rq, void *pdu) KAPI_NOEXCEPT;
/* KAPI: blk-mq map_queues, process context: the session lays out its maps (kernel/block/queue-maps.hpp). */
void rnbd_clt_cxx_map_queues(void *session, struct blk_mq_tag_set *tag_set) KAPI_NOEXCEPT;
/* KAPI: blk-mq poll of hardware queue `queue_num` (a polled one), process context, no sleep;
 * completions reaped (>= 0). */
int rnbd_clt_cxx_poll(void *device, unsigned int queue_num) KAPI_NOEXCEPT;
/* KAPI: blk-mq complete; softirq or the completing context. */
void rnbd_clt_cxx_complete_rq(struct request *rq, void *pdu) KAPI_NOEXCEPT;
/* KAPI: blk-mq timeout, process context (timeout work). 1: reset the timer;
 * 0: done (the upcall completed the request itself). */
int rnbd_clt_cxx_timeout(void *device, struct request *rq, void *pdu) KAPI_NOEXCEPT;
/* KAPI: block_device_operations open/release, process context; open returns 0 or -errno;
 * `write`: opened for writing. */
int rnbd_clt_cxx_open(void *device, int write) KAPI_NOEXCEPT;
void rnbd_clt_cxx_release(void *device) KAPI_NOEXCEPT;
/* KAPI: free_disk, when the last reference to the gendisk is gone; process context. */
void rnbd_clt_cxx_free_disk(void *device) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
