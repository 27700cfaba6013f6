// Work items and workqueues. A Work embeds the kernel's work_struct as opaque
// storage (pinned: the kernel links it into lists) and runs a Callback in a
// kworker (process context, may sleep). DelayedWork adds a timer (delays in
// milliseconds, rounded up to jiffies). Workqueue owns an alloc_workqueue().
//
// Lifetime rule: the object that holds a Work must outlive every queueing.
// Before freeing it (and before module exit) call cancel_sync() or flush()
// from process context; the destructor only WARNs if the item is still
// pending. A callback may free its own holder, and then must not touch it.
//
// Each item has its own lockdep class (lock_class.hpp; flush/cancel_sync
// against locks its callback takes are checked per item):
//     cxxrt::Work close_work_{cxxrt::lock_class<"rtrs::srv::Path::close_work_">,
//                             cxxrt::Callback::to<&Path::close_now>(this)};
#pragma once

#include <cxxrt/callback.hpp>
#include <cxxrt/kapi-wq.h>
#include <cxxrt/lock_class.hpp>
#include <cxxrt/native_owner.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt {

class Workqueue;

// What both kinds of item are: the kernel's struct as opaque storage, first
// (from_native() relies on it: checked below), and the callback it runs.
template <class Item, size_t Size, size_t Align>
class WorkStorage : Pinned {
public:
    void* native() { return storage_; }
    static Item* from_native(void* storage) { return reinterpret_cast<Item*>(storage); }
    void run() { callback_(); }

protected:
    explicit WorkStorage(Callback callback) : callback_(callback) {}

private:
    alignas(Align) unsigned char storage_[Size];
    Callback callback_;
};

class Work : public WorkStorage<Work, KABI_SIZEOF_WORK, KABI_ALIGNOF_WORK> {
public:
    // KAPI: any context.
    Work(LockClass& cls, Callback callback) : WorkStorage(callback) { kapi_work_init(native(), cls.name(), cls.key()); }
    ~Work()
    {
        if (kapi_work_pending(native()))
            kapi_warn("cxxrt: Work destroyed while pending");
    }

    // Any context. False if it was already pending (it runs once then).
    bool queue() { return kapi_queue_work(nullptr, native()) != 0; }
    inline bool queue_on(Workqueue& wq);
    // Runs on `cpu` (a per-CPU workqueue; on system_wq when wq is null).
    inline bool queue_on_cpu(unsigned int cpu, Workqueue* wq = nullptr);
    // Process context, sleeps. True if it was pending (and now is not).
    bool cancel_sync() { return kapi_cancel_work_sync(native()) != 0; }
    // Process context, sleeps until the last queueing has run. True if it waited.
    bool flush() { return kapi_flush_work(native()) != 0; }
    bool pending() { return kapi_work_pending(native()) != 0; }
};

class DelayedWork : public WorkStorage<DelayedWork, KABI_SIZEOF_DELAYED_WORK, KABI_ALIGNOF_DELAYED_WORK> {
public:
    DelayedWork(LockClass& cls, Callback callback) : WorkStorage(callback)
    {
        kapi_delayed_work_init(native(), cls.name(), cls.key());
    }
    ~DelayedWork()
    {
        if (kapi_delayed_work_pending(native()))
            kapi_warn("cxxrt: DelayedWork destroyed while pending");
    }

    // Any context. False if already pending (the earlier expiry stays).
    bool queue(unsigned long delay_ms) { return kapi_queue_delayed_work(nullptr, native(), delay_ms) != 0; }
    inline bool queue_on(Workqueue& wq, unsigned long delay_ms);
    // Any context: (re)arms to now + delay_ms whether pending or not.
    // True if it was pending before.
    bool mod(unsigned long delay_ms) { return kapi_mod_delayed_work(nullptr, native(), delay_ms) != 0; }
    inline bool mod_on(Workqueue& wq, unsigned long delay_ms);
    // Any context; does not wait for a callback that already started.
    bool cancel() { return kapi_cancel_delayed_work(native()) != 0; }
    // Process context, sleeps: after it returns the callback is neither
    // pending nor running (unless it re-queues itself from elsewhere).
    bool cancel_sync() { return kapi_cancel_delayed_work_sync(native()) != 0; }
    // Process context: fires a pending timer now and waits for the callback.
    bool flush() { return kapi_flush_delayed_work(native()) != 0; }
    bool pending() { return kapi_delayed_work_pending(native()) != 0; }
};

// from_native(): storage_ is the first member of a standard-layout class.
static_assert(__is_standard_layout(Work) && __is_standard_layout(DelayedWork));

// Workqueue flags (alloc_workqueue's WQ_*), values from the kernel headers.
namespace wq {
inline constexpr unsigned int kUnbound = KABI_WQ_UNBOUND;
inline constexpr unsigned int kFreezable = KABI_WQ_FREEZABLE;
inline constexpr unsigned int kMemReclaim = KABI_WQ_MEM_RECLAIM;  // needed on the IO/reclaim path
inline constexpr unsigned int kHighPri = KABI_WQ_HIGHPRI;
inline constexpr unsigned int kCpuIntensive = KABI_WQ_CPU_INTENSIVE;
inline constexpr unsigned int kSysfs = KABI_WQ_SYSFS;
inline constexpr int kMaxActive = KABI_WQ_MAX_ACTIVE;
}  // namespace wq

// Owns one workqueue; move-only. reset() (or the destructor) drains and
// frees it (process context, sleeps).
class Workqueue : public NativeOwner<kapi_destroy_workqueue> {
public:
    constexpr Workqueue() = default;
    // Process context, may sleep. max_active 0 = the kernel's default.
    static Result<Workqueue> create(const char* name, unsigned int flags, int max_active = 0)
    {
        void* native = kapi_alloc_workqueue(name, flags, max_active);
        if (!native)
            return Error(err::kNoMem);
        return Workqueue(native);
    }

    // Process context, sleeps: waits for everything queued so far.
    void flush()
    {
        if (native())
            kapi_flush_workqueue(native());
    }

private:
    explicit Workqueue(void* native) : NativeOwner(native) {}
};

inline bool Work::queue_on(Workqueue& wq) { return kapi_queue_work(wq.native(), native()) != 0; }
inline bool Work::queue_on_cpu(unsigned int cpu, Workqueue* wq)
{
    return kapi_queue_work_on(int(cpu), wq ? wq->native() : nullptr, native()) != 0;
}
inline bool DelayedWork::queue_on(Workqueue& wq, unsigned long delay_ms)
{
    return kapi_queue_delayed_work(wq.native(), native(), delay_ms) != 0;
}
inline bool DelayedWork::mod_on(Workqueue& wq, unsigned long delay_ms)
{
    return kapi_mod_delayed_work(wq.native(), native(), delay_ms) != 0;
}

}  // namespace cxxrt
