// DrainCounter: counts the users of something in flight (IOs, submitters,
// setups, live devices) and lets a teardown wait until none is left. The
// last leave() wakes the waiters; wait_idle() sleeps until the count is 0.
//
//     cxxrt::DrainCounter inflight_{cxxrt::lock_class<"rtrs::srv::Path::inflight_">};
//     inflight_.enter();  ...  inflight_.leave();        // any context
//     inflight_.wait_idle();                             // process context
//
// enter()/leave() are full barriers (sequentially consistent), so a user
// that enters and then tests a "closing" flag, against a closer that sets
// the flag and then waits, always sees one of the two: either the user sees
// closing, or the closer waits for that user. The wait queue takes its
// lockdep class where the counter is declared (lock_class.hpp).
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

private:
    Atomic<u32> count_{0};
    WaitQueue idle_;
};

}  // namespace cxxrt
