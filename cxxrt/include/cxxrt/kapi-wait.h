/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary: completions and wait queues (cxxrt/kapi/kapi-wait.c), used by
 * cxxrt/wait.hpp. Storage: KABI_SIZEOF_COMPLETION, KABI_SIZEOF_WAIT_QUEUE_HEAD,
 * KABI_SIZEOF_WAIT_QUEUE_ENTRY. Includable from C and C++.
 */
#ifndef CXXRT_KAPI_WAIT_H
#define CXXRT_KAPI_WAIT_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Completions. init/reinit: nobody is waiting. complete*: any context.
 * init takes the lockdep class of the completion's internal lock (see kapi.h).
 */
void kapi_completion_init(void *completion, const char *name, void *key) KAPI_NOEXCEPT;
void kapi_completion_reinit(void *completion) KAPI_NOEXCEPT;
void kapi_complete(void *completion) KAPI_NOEXCEPT;
void kapi_complete_all(void *completion) KAPI_NOEXCEPT;
/* Process context, sleeps (uninterruptible). */
void kapi_wait_for_completion(void *completion) KAPI_NOEXCEPT;
/* Process context, sleeps. Returns the milliseconds left (>= 1), 0 on timeout. */
unsigned long kapi_wait_for_completion_timeout(void *completion, unsigned long timeout_ms) KAPI_NOEXCEPT;
/* Any context: consume one completion without sleeping; true if there was one. */
int kapi_try_wait_for_completion(void *completion) KAPI_NOEXCEPT;
/* Any context: true if a complete() is pending (a wait would not sleep). */
int kapi_completion_done(void *completion) KAPI_NOEXCEPT;

/* Wait queue heads. init (with its lockdep class): any context. wake_up*: any context. */
void kapi_waitqueue_init(void *head, const char *name, void *key) KAPI_NOEXCEPT;
void kapi_wake_up(void *head) KAPI_NOEXCEPT;
void kapi_wake_up_all(void *head) KAPI_NOEXCEPT;
/* Any context: a full barrier, then whether a task waits on head (wq_has_sleeper). */
int kapi_wq_has_sleeper(void *head) KAPI_NOEXCEPT;

/*
 * The pieces of a wait_event loop, driven from C++ (cxxrt::WaitQueue):
 *   init_entry; loop { prepare (sets the task state); test; schedule }; finish.
 * Process context only. prepare returns 0, or -ERESTARTSYS when
 * `interruptible` and a signal is pending (then the caller stops waiting).
 */
void kapi_wait_entry_init(void *entry) KAPI_NOEXCEPT;
long kapi_wait_prepare(void *head, void *entry, int interruptible) KAPI_NOEXCEPT;
void kapi_wait_finish(void *head, void *entry) KAPI_NOEXCEPT;
/* Sleeps until woken (task state set by prepare). */
void kapi_schedule(void) KAPI_NOEXCEPT;
/* Sleeps until woken or `timeout` jiffies pass; returns the jiffies left. */
long kapi_schedule_timeout(long timeout_jiffies) KAPI_NOEXCEPT;

/* Time conversions (any context). */
unsigned long kapi_msecs_to_jiffies(unsigned long ms) KAPI_NOEXCEPT;
unsigned long kapi_jiffies_to_msecs(unsigned long jiffies) KAPI_NOEXCEPT;
/* Process context: sleeps for at least ms milliseconds (msleep). */
void kapi_msleep(unsigned int ms) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_KAPI_WAIT_H */
