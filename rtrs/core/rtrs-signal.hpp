// Selective signalling of a send queue: which IO posts ask for a completion.
//
// Nothing in the IO path needs the completion of a successful send (the
// client learns the outcome from the server's answer, the server frees its
// chunk when the answer is posted); a failed send completes whether it was
// signalled or not. But a provider may reclaim the send queue's slots only
// when a signalled work request completes, so one post in `interval` asks
// for a completion: with at most `interval` IOs of a few work requests each
// between two signalled ones, the queue (sized for the queue depth) never
// fills with unreclaimed slots. An interval of 1 signals every post.
//
// Not thread-safe: the caller holds the queue pair's post lock.
#pragma once

#include <cxxrt/types.hpp>

namespace rtrs {

class SignalInterval {
public:
    static constexpr cxxrt::u32 kMax = 32;

    // interval: the send queue's queue depth in IOs (clamped to 1..kMax).
    explicit SignalInterval(cxxrt::u32 interval = 1)
        : interval_(interval == 0 ? 1 : (interval > kMax ? kMax : interval))
    {
    }

    // True for the post that must be signalled: the interval-th since the
    // last one.
    bool next()
    {
        if (++since_ < interval_)
            return false;
        since_ = 0;
        return true;
    }

    cxxrt::u32 interval() const { return interval_; }

private:
    cxxrt::u32 interval_;
    cxxrt::u32 since_ = 0;
};

}  // namespace rtrs
