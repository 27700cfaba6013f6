// DrainCounter: counts the users of something in flight (IOs, submitters,
// setups, live devices) and lets a teardown wait until none is left. The
// last leave() wakes the waiters; wait_idle() sleeps until the count is 0.
//
//     cxxrt::DrainCounter inflight_{cxxrt::lock_class<"rtrs::srv::Path::inflight_">};
//     inflight_.enter();  ...  inflight_.leave();        // any context
//     inflight_.wait_idle();                             // process context
//
// enter()/leave() are sequentially consistent read-modify-writes, so a user
// that enters and then tests a "closing" flag, against a closer that sets
// the flag and then waits, always sees one of the two (either the user sees
// closing, or the closer waits for that user) when the flag is read and
// written sequentially consistent too. A flag read with acquire order (a
// state machine's) can be read before the count is raised, as far as the
// C++ memory model goes: DrainCounter::Scope puts a full_fence() between
// the two, and the closer puts one between its flag and wait_idle(). The
// wait queue takes its lockdep class where the counter is declared
// (lock_class.hpp).
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/wait.hpp>

namespace cxxrt {

class DrainCounter : Pinned {
public:
    explicit DrainCounter(LockClass& cls) : idle_(cls) {}

    // Any context: one more user.
    void enter() { count_.fetch_add(1); }
    // Any context: one user fewer; the last one wakes the waiters, if any
    // (a leave per IO takes no lock when nobody drains).
    void leave()
    {
        if (count_.fetch_sub(1) == 1)
            idle_.wake_up_all_if_waiting();
    }
    // Any context: the users right now (a snapshot).
    u32 count() const { return count_.load(); }
    bool is_idle() const { return count() == 0; }

    // Process context, sleeps until no user is left.
    void wait_idle()
    {
        idle_.wait([this] { return is_idle(); });
    }
    // Process context, sleeps. True if no user was left within timeout_ms.
    [[nodiscard]] bool wait_idle_timeout(unsigned long timeout_ms)
    {
        return idle_.wait_timeout([this] { return is_idle(); }, timeout_ms);
    }

    // One user for the scope's lifetime: enter() then a full fence, so the
    // caller's re-check of its flag comes after the count is raised.
    //
    //     cxxrt::DrainCounter::Scope submitter(submitters_);
    //     if (!connected()) return ...;            // leaves on every return
    class Scope : Pinned {
    public:
        explicit Scope(DrainCounter& counter) : counter_(counter)
        {
            counter_.enter();
            full_fence();
        }
        ~Scope() { counter_.leave(); }

    private:
        DrainCounter& counter_;
    };

private:
    Atomic<u32> count_{0};
    WaitQueue idle_;
};

}  // namespace cxxrt
