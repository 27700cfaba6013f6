// The life of a client path, as a table of allowed transitions. Every state
// change goes through PathStateMachine::change(), which refuses a transition
// the table does not allow, so races between the error handler, sysfs
// (disconnect/reconnect/remove_path) and the reconnect work cannot move a
// path backwards (e.g. resurrect a path that is being removed).
//
//   Connecting ──ok──▶ Connected ──error──▶ Reconnecting ──▶ Connecting
//       │                  │                      ▲
//       └─error─▶ ConnectingError ────────────────┘
//   any live state ──disconnect──▶ Closing ──▶ Closed ──reconnect──▶ Reconnecting
//   Closed ──remove──▶ Dead (terminal)
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/types.hpp>

namespace rtrs::clt {

enum class PathState : cxxrt::u8 {
    kConnecting,
    kConnectingError,
    kReconnecting,
    kConnected,
    kClosing,
    kClosed,
    kDead,
};
inline constexpr int kPathStateCount = 7;

constexpr const char* path_state_name(PathState state)
{
    switch (state) {
    case PathState::kConnecting: return "connecting";
    case PathState::kConnectingError: return "connecting_err";
    case PathState::kReconnecting: return "reconnecting";
    case PathState::kConnected: return "connected";
    case PathState::kClosing: return "closing";
    case PathState::kClosed: return "closed";
    case PathState::kDead: return "dead";
    }
    return "unknown";
}

// What sysfs `state` prints (the upstream ABI has two words only).
constexpr const char* path_state_sysfs(PathState state)
{
    return state == PathState::kConnected ? "connected" : "disconnected";
}

constexpr bool path_transition_allowed(PathState from, PathState to)
{
    using S = PathState;
    switch (to) {
    case S::kConnecting: return from == S::kReconnecting;
    case S::kConnectingError: return from == S::kConnecting;
    case S::kReconnecting: return from == S::kConnected || from == S::kConnectingError || from == S::kClosed;
    case S::kConnected: return from == S::kConnecting;
    case S::kClosing:
        return from == S::kConnecting || from == S::kConnectingError || from == S::kReconnecting ||
               from == S::kConnected;
    case S::kClosed: return from == S::kClosing;
    case S::kDead: return from == S::kClosed;
    }
    return false;
}

class PathStateMachine {
public:
    explicit constexpr PathStateMachine(PathState initial = PathState::kConnecting) : state_(initial) {}

    PathState state() const { return state_.load(cxxrt::MemoryOrder::kAcquire); }

    // Moves to `to` if allowed from the current state; atomic against
    // concurrent callers. Returns false (and changes nothing) otherwise.
    [[nodiscard]] bool change(PathState to)
    {
        PathState from = state_.load(cxxrt::MemoryOrder::kAcquire);
        while (path_transition_allowed(from, to)) {
            if (state_.compare_exchange(from, to, cxxrt::MemoryOrder::kAcqRel))
                return true;
        }
        return false;
    }
    // Moves only from `expected` (for "if still connecting, then ...").
    [[nodiscard]] bool change_from(PathState expected, PathState to)
    {
        if (!path_transition_allowed(expected, to))
            return false;
        return state_.compare_exchange(expected, to, cxxrt::MemoryOrder::kAcqRel);
    }

private:
    cxxrt::Atomic<PathState> state_;
};

// Reconnect attempts: -1 means forever; a successful connect resets the count.
class ReconnectBudget {
public:
    static constexpr int kMinAttempts = -1;
    static constexpr int kMaxAttempts = 9999;

    explicit constexpr ReconnectBudget(int max_attempts = -1) : max_attempts_(max_attempts) {}

    bool set_max_attempts(int value)
    {
        if (value < kMinAttempts || value > kMaxAttempts)
            return false;
        max_attempts_.store(value);
        return true;
    }
    int max_attempts() const { return max_attempts_.load(); }

    // Called before each attempt: false when the budget is spent.
    bool begin_attempt()
    {
        int max = max_attempts_.load();
        int done = attempts_.fetch_add(1) + 1;
        return max < 0 || done <= max;
    }
    void connected() { attempts_.store(0); }
    int attempts() const { return attempts_.load(); }

private:
    cxxrt::Atomic<int> max_attempts_;
    cxxrt::Atomic<int> attempts_{0};
};

// Opening a session again whose server refused it mid-handshake. Linux
// 6.12's server refuses a session whose name one of its sessions still
// holds ("pathname is duplicated": the INFO exchange ends in a reset), and
// it releases the name only at the end of its close work, some time after
// it answered our disconnect: nothing on the wire says when. A quick
// unmap and map again (blktests' map/unmap loop) meets that window, so an
// open whose every path was reset (ECONNRESET) is tried again, after 50,
// 100, 200, 400 and 800 ms (1.55 s in all); any other error is final.
class OpenRetry {
public:
    static constexpr cxxrt::u32 kRetries = 5;
    static constexpr cxxrt::u32 kFirstDelayMs = 50;

    // After a failed attempt with this error code (positive errno): the
    // delay before the next attempt, or 0 to give up.
    cxxrt::u32 next_delay_ms(int error)
    {
        if (error != cxxrt::err::kConnReset || retries_ >= kRetries)
            return 0;
        return kFirstDelayMs << retries_++;
    }
    cxxrt::u32 retries() const { return retries_; }

private:
    cxxrt::u32 retries_ = 0;
};

}  // namespace rtrs::clt
