// Locks and guards. Kernel lock objects live inside C++ objects as opaque,
// correctly sized and aligned storage (sizes from the generated kabi header,
// so lockdep or debug configs that grow the structs just work); the types
// are pinned because the kernel structs hold pointers to themselves.
// Guards make every critical section a scope: no unlock by hand.
// Every lock is constructed with its own lockdep class (lock_class.hpp):
//     cxxrt::Mutex mutex_{cxxrt::lock_class<"rnbd::srv::Session::mutex_">};
#pragma once

#include <cxxrt/annotations.hpp>
#include <cxxrt/kapi.h>
#include <cxxrt/lock_class.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt {

class CXXRT_CAPABILITY("spinlock") SpinLock : Pinned {
public:
    explicit SpinLock(LockClass& cls) { kapi_spin_init(storage_, cls.name(), cls.key()); }
    void lock() CXXRT_ACQUIRE() { kapi_spin_lock(storage_); }
    // An intended nesting inside another lock of the same class.
    void lock_nested(LockSubclass sub) CXXRT_ACQUIRE() { kapi_spin_lock_nested(storage_, sub.value); }
    void unlock() CXXRT_RELEASE() { kapi_spin_unlock(storage_); }
    void lock_bh() CXXRT_ACQUIRE() { kapi_spin_lock_bh(storage_); }
    void unlock_bh() CXXRT_RELEASE() { kapi_spin_unlock_bh(storage_); }
    [[nodiscard]] unsigned long lock_irqsave() CXXRT_ACQUIRE() { return kapi_spin_lock_irqsave(storage_); }
    void unlock_irqrestore(unsigned long flags) CXXRT_RELEASE() { kapi_spin_unlock_irqrestore(storage_, flags); }
    bool is_locked() { return kapi_spin_is_locked(storage_) != 0; }
    void* native() { return storage_; }

private:
    alignas(KABI_ALIGNOF_SPINLOCK) unsigned char storage_[KABI_SIZEOF_SPINLOCK];
};

class CXXRT_CAPABILITY("mutex") Mutex : Pinned {
public:
    explicit Mutex(LockClass& cls) { kapi_mutex_init(storage_, cls.name(), cls.key()); }
    ~Mutex() { kapi_mutex_destroy(storage_); }
    void lock() CXXRT_ACQUIRE() { kapi_mutex_lock(storage_); }
    // An intended nesting inside another mutex of the same class.
    void lock_nested(LockSubclass sub) CXXRT_ACQUIRE() { kapi_mutex_lock_nested(storage_, sub.value); }
    [[nodiscard]] bool try_lock() CXXRT_TRY_ACQUIRE(true) { return kapi_mutex_trylock(storage_) != 0; }
    void unlock() CXXRT_RELEASE() { kapi_mutex_unlock(storage_); }
    bool is_locked() { return kapi_mutex_is_locked(storage_) != 0; }
    void* native() { return storage_; }

private:
    alignas(KABI_ALIGNOF_MUTEX) unsigned char storage_[KABI_SIZEOF_MUTEX];
};

// Plain guard: spin_lock/spin_unlock or mutex_lock/mutex_unlock.
template <typename Lock>
class CXXRT_SCOPED_CAPABILITY [[nodiscard]] Guard : Pinned {
public:
    explicit Guard(Lock& lock) CXXRT_ACQUIRE(lock) : lock_(lock) { lock_.lock(); }
    // Nested inside a held lock of the same class (say which, in a comment).
    Guard(Lock& lock, LockSubclass sub) CXXRT_ACQUIRE(lock) : lock_(lock) { lock_.lock_nested(sub); }
    ~Guard() CXXRT_RELEASE() { lock_.unlock(); }

private:
    Lock& lock_;
};

// spin_lock_irqsave: for data shared with hard interrupt context.
class CXXRT_SCOPED_CAPABILITY [[nodiscard]] IrqSpinGuard : Pinned {
public:
    explicit IrqSpinGuard(SpinLock& lock) CXXRT_ACQUIRE(lock) : lock_(lock), flags_(lock.lock_irqsave()) {}
    ~IrqSpinGuard() CXXRT_RELEASE() { lock_.unlock_irqrestore(flags_); }

private:
    SpinLock& lock_;
    unsigned long flags_;
};

// spin_lock_bh: for data shared with softirq context (CQ completions).
class CXXRT_SCOPED_CAPABILITY [[nodiscard]] BhSpinGuard : Pinned {
public:
    explicit BhSpinGuard(SpinLock& lock) CXXRT_ACQUIRE(lock) : lock_(lock) { lock_.lock_bh(); }
    ~BhSpinGuard() CXXRT_RELEASE() { lock_.unlock_bh(); }

private:
    SpinLock& lock_;
};

class [[nodiscard]] RcuReadGuard : Pinned {
public:
    RcuReadGuard() { kapi_rcu_read_lock(); }
    ~RcuReadGuard() { kapi_rcu_read_unlock(); }
};

// Waits until every RCU read-side section that began before it has ended
// (objects unpublished before the call may then be freed). Sleeps.
inline void synchronize_rcu() { kapi_synchronize_rcu(); }

// Bottom halves (softirqs) off on this CPU while it lives: data that a
// softirq handler and process context on the same CPU both change.
// With `when` false it does nothing (a choice made at run time). Interrupts
// must be on where it ends.
class [[nodiscard]] BottomHalvesOff : Pinned {
public:
    BottomHalvesOff() { kapi_local_bh_disable(); }
    explicit BottomHalvesOff(bool when) : on_(when)
    {
        if (on_)
            kapi_local_bh_disable();
    }
    ~BottomHalvesOff()
    {
        if (on_)
            kapi_local_bh_enable();
    }

private:
    bool on_ = true;
};

using SpinGuard = Guard<SpinLock>;
using MutexGuard = Guard<Mutex>;

// A value reachable only under its lock: protected.with([](T& v) { ... }).
template <typename T, typename Lock = SpinLock>
class Protected : Pinned {
public:
    template <typename... Args>
    explicit Protected(LockClass& cls, Args&&... args) : lock_(cls), value_(forward<Args>(args)...) {}

    template <typename Fn>
    decltype(auto) with(Fn&& fn)
    {
        Guard<Lock> guard(lock_);
        return fn(value_);
    }

private:
    Lock lock_;
    T value_ CXXRT_GUARDED_BY(lock_);
};

}  // namespace cxxrt
