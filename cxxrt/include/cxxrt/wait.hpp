// Completions and wait queues, embedded as opaque kernel storage (pinned).
//
// Completion: one-shot or counted "done" signal. complete()/complete_all()
// from any context; wait*() from process context (sleeps).
//
// WaitQueue: wait until a C++ predicate holds. The wait_event loop runs here
// (prepare_to_wait_event / test / schedule / finish_wait through kapi), so the
// predicate is any callable returning bool; it is evaluated after the task
// state is set, so a wake_up() between the test and the sleep is not lost.
// The waker changes the state the predicate reads, then calls wake_up().
// Predicates must not sleep (the task state is already set when they run).
//
// Both take their lockdep class (lock_class.hpp) where they are declared:
//     cxxrt::Completion gone_{cxxrt::lock_class<"rnbd::srv::Server::gone_">};
#pragma once

#include <cxxrt/kapi-wait.h>
#include <cxxrt/lock_class.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt {

class Completion : Pinned {
public:
    explicit Completion(LockClass& cls) { kapi_completion_init(storage_, cls.name(), cls.key()); }

    // Any context.
    void complete() { kapi_complete(storage_); }
    void complete_all() { kapi_complete_all(storage_); }
    // Process context, sleeps uninterruptibly until completed.
    void wait() { kapi_wait_for_completion(storage_); }
    // Process context, sleeps. True if completed within timeout_ms.
    [[nodiscard]] bool wait_timeout(unsigned long timeout_ms) { return wait_timeout_left(timeout_ms) != 0; }
    // Like wait_timeout, returning the milliseconds left (>= 1), or 0 on timeout.
    unsigned long wait_timeout_left(unsigned long timeout_ms)
    {
        return kapi_wait_for_completion_timeout(storage_, timeout_ms);
    }
    // Any context: consumes one complete() if there is one, never sleeps.
    bool try_wait() { return kapi_try_wait_for_completion(storage_) != 0; }
    // Any context: a complete() is pending.
    bool done() { return kapi_completion_done(storage_) != 0; }
    // Resets to "not completed" (after complete_all, before reuse); nobody waits.
    void reinit() { kapi_completion_reinit(storage_); }

    void* native() { return storage_; }

private:
    alignas(KABI_ALIGNOF_COMPLETION) unsigned char storage_[KABI_SIZEOF_COMPLETION];
};

class WaitQueue : Pinned {
public:
    // The kernel's -ERESTARTSYS (not a user errno: the syscall is restarted).
    static constexpr int kRestartSys = 512;

    explicit WaitQueue(LockClass& cls) { kapi_waitqueue_init(storage_, cls.name(), cls.key()); }

    // Any context.
    void wake_up() { kapi_wake_up(storage_); }
    void wake_up_all() { kapi_wake_up_all(storage_); }
    // Any context: the same, only if a task waits (no lock taken otherwise:
    // hot paths). The caller changed what the waiters' predicate reads just
    // before; the full barrier in the test orders that change before the
    // look at the queue, and a waiter queues itself before it re-tests, so
    // either the waiter sees the change or this sees the waiter.
    void wake_up_if_waiting()
    {
        if (kapi_wq_has_sleeper(storage_))
            kapi_wake_up(storage_);
    }
    void wake_up_all_if_waiting()
    {
        if (kapi_wq_has_sleeper(storage_))
            kapi_wake_up_all(storage_);
    }

    // Process context, sleeps uninterruptibly until pred() is true.
    template <typename Pred>
    void wait(Pred&& pred)
    {
        (void)wait_loop(pred, kForever, false);
    }

    // Process context. True if pred() became true within timeout_ms.
    template <typename Pred>
    [[nodiscard]] bool wait_timeout(Pred&& pred, unsigned long timeout_ms)
    {
        return wait_loop(pred, long(kapi_msecs_to_jiffies(timeout_ms)), false) == kMet;
    }

    // Process context. Ok when pred() is true; -ERESTARTSYS on a signal.
    template <typename Pred>
    Result<void> wait_interruptible(Pred&& pred)
    {
        if (wait_loop(pred, kForever, true) == kSignalled)
            return Error(kRestartSys);
        return {};
    }

    // Process context. Ok when pred() is true within timeout_ms; else
    // -ETIMEDOUT, or -ERESTARTSYS on a signal.
    template <typename Pred>
    Result<void> wait_interruptible_timeout(Pred&& pred, unsigned long timeout_ms)
    {
        switch (wait_loop(pred, long(kapi_msecs_to_jiffies(timeout_ms)), true)) {
        case kMet:
            return {};
        case kSignalled:
            return Error(kRestartSys);
        case kTimedOut:
            break;
        }
        return Error(err::kTimedOut);
    }

    void* native() { return storage_; }

private:
    static constexpr long kForever = __LONG_MAX__;  // MAX_SCHEDULE_TIMEOUT
    enum Outcome { kMet, kTimedOut, kSignalled };

    template <typename Pred>
    Outcome wait_loop(Pred& pred, long timeout, bool interruptible)
    {
        if (pred())
            return kMet;
        alignas(KABI_ALIGNOF_WAIT_QUEUE_ENTRY) unsigned char entry[KABI_SIZEOF_WAIT_QUEUE_ENTRY];
        kapi_wait_entry_init(entry);
        Outcome outcome = kTimedOut;
        for (;;) {
            long rc = kapi_wait_prepare(storage_, entry, interruptible);
            if (pred()) {
                outcome = kMet;
                break;
            }
            if (rc) {
                outcome = kSignalled;
                break;
            }
            if (timeout == 0)
                break;
            if (timeout == kForever)
                kapi_schedule();
            else
                timeout = kapi_schedule_timeout(timeout);
        }
        kapi_wait_finish(storage_, entry);
        // The last wake-up may have raced with the timeout: test once more.
        if (outcome == kTimedOut && pred())
            outcome = kMet;
        return outcome;
    }

    alignas(KABI_ALIGNOF_WAIT_QUEUE_HEAD) unsigned char storage_[KABI_SIZEOF_WAIT_QUEUE_HEAD];
};

}  // namespace cxxrt
