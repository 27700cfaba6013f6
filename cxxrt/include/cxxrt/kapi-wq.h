/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary: work items and workqueues (cxxrt/kapi/kapi-wq.c), used by
 * cxxrt/work.hpp. Work items are opaque storage inside C++ objects
 * (KABI_SIZEOF_WORK / KABI_SIZEOF_DELAYED_WORK); a workqueue is an opaque
 * kernel pointer. Includable from C and C++.
 */
#ifndef CXXRT_KAPI_WQ_H
#define CXXRT_KAPI_WQ_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Init: process or atomic context; the storage must not be queued. name/key:
 * the item's lockdep class (a static struct lock_class_key, see kapi.h).
 */
void kapi_work_init(void *work, const char *name, void *key) KAPI_NOEXCEPT;
void kapi_delayed_work_init(void *dwork, const char *name, void *key) KAPI_NOEXCEPT;

/* Queueing: any context. wq NULL means system_wq. True if newly queued. */
int kapi_queue_work(void *wq, void *work) KAPI_NOEXCEPT;
int kapi_queue_work_on(int cpu, void *wq, void *work) KAPI_NOEXCEPT;
int kapi_queue_delayed_work(void *wq, void *dwork, unsigned long delay_ms) KAPI_NOEXCEPT;
int kapi_mod_delayed_work(void *wq, void *dwork, unsigned long delay_ms) KAPI_NOEXCEPT;

/* Any context; true if the item was pending. Does not wait for a running callback. */
int kapi_cancel_delayed_work(void *dwork) KAPI_NOEXCEPT;
/* Process context, may sleep: cancel and wait for a running callback. */
int kapi_cancel_work_sync(void *work) KAPI_NOEXCEPT;
int kapi_cancel_delayed_work_sync(void *dwork) KAPI_NOEXCEPT;
/* Process context, may sleep: wait for the last queueing to finish. */
int kapi_flush_work(void *work) KAPI_NOEXCEPT;
int kapi_flush_delayed_work(void *dwork) KAPI_NOEXCEPT;
/* Any context. */
int kapi_work_pending(void *work) KAPI_NOEXCEPT;
int kapi_delayed_work_pending(void *dwork) KAPI_NOEXCEPT;

/* Process context, may sleep. flags: KABI_WQ_*; max_active 0 = default. NULL on failure. */
void *kapi_alloc_workqueue(const char *name, unsigned int flags, int max_active) KAPI_NOEXCEPT;
/* Process context, may sleep: drains, then frees. */
void kapi_destroy_workqueue(void *wq) KAPI_NOEXCEPT;
void kapi_flush_workqueue(void *wq) KAPI_NOEXCEPT;

/*
 * Upcalls, implemented in C++ (work.hpp users link cxxrt/src/work.cpp).
 * KAPI: process context (a kworker), may sleep; no locks held. `work` is the
 * storage that was queued; the callback may free the object that holds it.
 */
void cxxrt_cxx_work_run(void *work) KAPI_NOEXCEPT;
void cxxrt_cxx_delayed_work_run(void *dwork) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_KAPI_WQ_H */
