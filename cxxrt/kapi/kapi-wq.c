// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: work items and workqueues. C++ owns the work storage (sized by
 * cxxrt-kabi.h); the two work functions below only hand the storage address
 * back to C++, which finds its object and callback from it.
 */
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/workqueue.h>
#include <cxxrt/kapi-wq.h>

/* Milliseconds from C++ are unsigned long; msecs_to_jiffies() takes an int. */
static unsigned long kapi_ms_to_jiffies(unsigned long ms)
{
	return ms > UINT_MAX ? MAX_JIFFY_OFFSET : msecs_to_jiffies((unsigned int)ms);
}

static void kapi_work_fn(struct work_struct *work)
{
	cxxrt_cxx_work_run(work);
}

static void kapi_delayed_work_fn(struct work_struct *work)
{
	cxxrt_cxx_delayed_work_run(to_delayed_work(work));
}

static struct workqueue_struct *kapi_wq_or_system(void *wq)
{
	return wq ? (struct workqueue_struct *)wq : system_wq;
}

/*
 * The work item's lockdep map (it exists only with lockdep) gets the C++
 * declaration's class: INIT_WORK() alone gives all items of one call site
 * one class, and its name would be this file's expression.
 */
static void kapi_work_set_class(struct work_struct *work, const char *name, void *key)
{
#ifdef CONFIG_LOCKDEP
	lockdep_init_map(&work->lockdep_map, name, (struct lock_class_key *)key, 0);
#endif
}

/* KAPI: any context; the storage is not queued (a fresh or idle object). */
void kapi_work_init(void *work, const char *name, void *key)
{
	INIT_WORK((struct work_struct *)work, kapi_work_fn);
	kapi_work_set_class((struct work_struct *)work, name, key);
}

void kapi_delayed_work_init(void *dwork, const char *name, void *key)
{
	INIT_DELAYED_WORK((struct delayed_work *)dwork, kapi_delayed_work_fn);
	kapi_work_set_class(&((struct delayed_work *)dwork)->work, name, key);
}

/* KAPI: any context. Returns true if newly queued, false if already pending. */
int kapi_queue_work(void *wq, void *work)
{
	return queue_work(kapi_wq_or_system(wq), (struct work_struct *)work);
}

/* KAPI: any context; the caller keeps `cpu` online (or accepts a migration). */
int kapi_queue_work_on(int cpu, void *wq, void *work)
{
	return queue_work_on(cpu, kapi_wq_or_system(wq), (struct work_struct *)work);
}

/* KAPI: any context. delay in milliseconds, rounded up to jiffies. */
int kapi_queue_delayed_work(void *wq, void *dwork, unsigned long delay_ms)
{
	return queue_delayed_work(kapi_wq_or_system(wq), (struct delayed_work *)dwork, kapi_ms_to_jiffies(delay_ms));
}

/* KAPI: any context. Queues or re-arms; true if it was pending before. */
int kapi_mod_delayed_work(void *wq, void *dwork, unsigned long delay_ms)
{
	return mod_delayed_work(kapi_wq_or_system(wq), (struct delayed_work *)dwork, kapi_ms_to_jiffies(delay_ms));
}

/* KAPI: any context; a callback already running keeps running. */
int kapi_cancel_delayed_work(void *dwork)
{
	return cancel_delayed_work((struct delayed_work *)dwork);
}

/* KAPI: process context, sleeps; not from the item's own callback. */
int kapi_cancel_work_sync(void *work)
{
	return cancel_work_sync((struct work_struct *)work);
}

int kapi_cancel_delayed_work_sync(void *dwork)
{
	return cancel_delayed_work_sync((struct delayed_work *)dwork);
}

/* KAPI: process context, sleeps. */
int kapi_flush_work(void *work)
{
	return flush_work((struct work_struct *)work);
}

int kapi_flush_delayed_work(void *dwork)
{
	return flush_delayed_work((struct delayed_work *)dwork);
}

/* KAPI: any context; a snapshot. */
int kapi_work_pending(void *work)
{
	return work_pending((struct work_struct *)work);
}

int kapi_delayed_work_pending(void *dwork)
{
	return delayed_work_pending((struct delayed_work *)dwork);
}

/* KAPI: process context, may sleep. The name is copied by the kernel. */
void *kapi_alloc_workqueue(const char *name, unsigned int flags, int max_active)
{
	return alloc_workqueue("%s", flags, max_active, name);
}

/* KAPI: process context, sleeps until every queued item has run. */
void kapi_destroy_workqueue(void *wq)
{
	destroy_workqueue((struct workqueue_struct *)wq);
}

void kapi_flush_workqueue(void *wq)
{
	flush_workqueue((struct workqueue_struct *)wq);
}
