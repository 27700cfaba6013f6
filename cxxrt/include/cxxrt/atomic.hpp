// Atomic<T> over the compiler's __atomic builtins. C++ owns its own atomics;
// kernel-owned counters stay in C and are reached through kapi (pitfall P20).
#pragma once

#include <cxxrt/types.hpp>

namespace cxxrt {

enum class MemoryOrder : int {
    kRelaxed = __ATOMIC_RELAXED,
    kAcquire = __ATOMIC_ACQUIRE,
    kRelease = __ATOMIC_RELEASE,
    kAcqRel = __ATOMIC_ACQ_REL,
    kSeqCst = __ATOMIC_SEQ_CST,
};

namespace detail {
// Enums are stored as their underlying integer: clang's __atomic builtins
// accept only integers and pointers.
template <typename T, bool = __is_enum(T)> struct AtomicStorage { using Type = T; };
template <typename T> struct AtomicStorage<T, true> { using Type = __underlying_type(T); };
}  // namespace detail

// A full barrier: stores before it are visible to every CPU before loads
// after it are made (the store-then-load handshakes of two racing sides).
inline void full_fence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

template <typename T>
class Atomic {
    using Raw = typename detail::AtomicStorage<T>::Type;

public:
    constexpr Atomic() = default;
    constexpr explicit Atomic(T initial) : value_(Raw(initial)) {}
    Atomic(const Atomic&) = delete;
    Atomic& operator=(const Atomic&) = delete;

    T load(MemoryOrder order = MemoryOrder::kSeqCst) const { return T(__atomic_load_n(&value_, int(order))); }
    void store(T v, MemoryOrder order = MemoryOrder::kSeqCst) { __atomic_store_n(&value_, Raw(v), int(order)); }
    T exchange(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return T(__atomic_exchange_n(&value_, Raw(v), int(order))); }
    T fetch_add(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return __atomic_fetch_add(&value_, v, int(order)); }
    T fetch_sub(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return __atomic_fetch_sub(&value_, v, int(order)); }
    T fetch_or(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return __atomic_fetch_or(&value_, v, int(order)); }
    T fetch_and(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return __atomic_fetch_and(&value_, v, int(order)); }
    bool compare_exchange(T& expected, T desired, MemoryOrder order = MemoryOrder::kSeqCst)
    {
        Raw raw_expected = Raw(expected);
        bool done = __atomic_compare_exchange_n(&value_, &raw_expected, Raw(desired), false, int(order),
                                                int(MemoryOrder::kRelaxed));
        expected = T(raw_expected);
        return done;
    }
    // As above, with the order of the failing compare given (at most as
    // strong as order, and neither release nor acq_rel).
    bool compare_exchange(T& expected, T desired, MemoryOrder order, MemoryOrder failure_order)
    {
        Raw raw_expected = Raw(expected);
        bool done = __atomic_compare_exchange_n(&value_, &raw_expected, Raw(desired), false, int(order),
                                                int(failure_order));
        expected = T(raw_expected);
        return done;
    }

private:
    Raw value_{};
};

// Atomic access to a plain integer or pointer that lives in a copyable
// struct (a field written atomically at one place and read as part of a
// snapshot elsewhere): std::atomic_ref's shape, over the same builtins.
template <typename T>
class AtomicRef {
    static_assert(!__is_enum(T), "an enum field is an Atomic<T> member");

public:
    explicit AtomicRef(T& target) : target_(&target) {}

    T load(MemoryOrder order = MemoryOrder::kSeqCst) const { return __atomic_load_n(target_, int(order)); }
    void store(T v, MemoryOrder order = MemoryOrder::kSeqCst) { __atomic_store_n(target_, v, int(order)); }
    T fetch_add(T v, MemoryOrder order = MemoryOrder::kSeqCst) { return __atomic_fetch_add(target_, v, int(order)); }

private:
    T* target_;
};

}  // namespace cxxrt
