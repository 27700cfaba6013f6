// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: completions and wait queues. C++ owns the storage (sized by
 * cxxrt-kabi.h); one kernel call or macro per function. The wait_event loop
 * itself is C++ (cxxrt::WaitQueue), so the condition can be any C++ predicate.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/lockdep.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <cxxrt/kapi-wait.h>

/* Milliseconds from C++ are unsigned long; msecs_to_jiffies() takes an int. */
static unsigned long kapi_ms_to_jiffies(unsigned long ms)
{
	return ms > UINT_MAX ? MAX_JIFFY_OFFSET : msecs_to_jiffies((unsigned int)ms);
}

/*
 * KAPI: any context; nobody may be waiting. init_completion() gives every
 * completion of one call site one class, so the internal lock is then moved
 * to the C++ declaration's own class.
 */
void kapi_completion_init(void *completion, const char *name, void *key)
{
	init_completion((struct completion *)completion);
	lockdep_set_class_and_name(&((struct completion *)completion)->wait.lock,
				   (struct lock_class_key *)key, name);
}

void kapi_completion_reinit(void *completion)
{
	reinit_completion((struct completion *)completion);
}

/* KAPI: any context (hardirq included). */
void kapi_complete(void *completion)
{
	complete((struct completion *)completion);
}

void kapi_complete_all(void *completion)
{
	complete_all((struct completion *)completion);
}

/* KAPI: process context, sleeps uninterruptibly. */
void kapi_wait_for_completion(void *completion)
{
	wait_for_completion((struct completion *)completion);
}

/* KAPI: process context, sleeps. 0 on timeout, else the ms left (at least 1). */
unsigned long kapi_wait_for_completion_timeout(void *completion, unsigned long timeout_ms)
{
	unsigned long left = wait_for_completion_timeout((struct completion *)completion,
							 kapi_ms_to_jiffies(timeout_ms));

	return left ? max(jiffies_to_msecs(left), 1U) : 0;
}

/* KAPI: any context, never sleeps. */
int kapi_try_wait_for_completion(void *completion)
{
	return try_wait_for_completion((struct completion *)completion);
}

int kapi_completion_done(void *completion)
{
	return completion_done((struct completion *)completion);
}

/* KAPI: any context. The class (key, name) is the C++ declaration's own. */
void kapi_waitqueue_init(void *head, const char *name, void *key)
{
	__init_waitqueue_head((struct wait_queue_head *)head, name, (struct lock_class_key *)key);
}

/* KAPI: any context. */
void kapi_wake_up(void *head)
{
	wake_up((struct wait_queue_head *)head);
}

void kapi_wake_up_all(void *head)
{
	wake_up_all((struct wait_queue_head *)head);
}

int kapi_wq_has_sleeper(void *head)
{
	return wq_has_sleeper((struct wait_queue_head *)head);
}

/* KAPI: process context; the entry lives on the waiter's stack. */
void kapi_wait_entry_init(void *entry)
{
	init_wait_entry((struct wait_queue_entry *)entry, 0);
}

/* KAPI: process context. Sets the task state; 0 or -ERESTARTSYS. */
long kapi_wait_prepare(void *head, void *entry, int interruptible)
{
	return prepare_to_wait_event((struct wait_queue_head *)head, (struct wait_queue_entry *)entry,
				     interruptible ? TASK_INTERRUPTIBLE : TASK_UNINTERRUPTIBLE);
}

/* KAPI: process context; back to TASK_RUNNING and off the queue. */
void kapi_wait_finish(void *head, void *entry)
{
	finish_wait((struct wait_queue_head *)head, (struct wait_queue_entry *)entry);
}

/* KAPI: process context, sleeps; no spinlock held. */
void kapi_schedule(void)
{
	schedule();
}

long kapi_schedule_timeout(long timeout_jiffies)
{
	return schedule_timeout(timeout_jiffies);
}

unsigned long kapi_msecs_to_jiffies(unsigned long ms)
{
	return kapi_ms_to_jiffies(ms);
}

unsigned long kapi_jiffies_to_msecs(unsigned long jiffies)
{
	return jiffies_to_msecs(jiffies);
}

/* KAPI: process context, sleeps. */
void kapi_msleep(unsigned int ms)
{
	msleep(ms);
}
