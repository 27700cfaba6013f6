// CPUs and per-CPU variables.
//
// PerCpu<T>: one zeroed T per possible CPU (alloc_percpu). No constructor
// runs (the memory is zero-filled), so T must be valid when all-zero and
// trivially destructible: counters, stats blocks, pointers. Move-only owner;
// freeing is process context.
//
//   auto stats = CXXRT_TRY(PerCpu<Stats>::create(Gfp::kernel()));
//   stats.with_this_cpu([](Stats& s) { ++s.reads; });        // any context
//   u64 total = 0;
//   stats.for_each_possible([&](unsigned, Stats& s) { total += s.reads; });
//   CXXRT_TRY(stats.with_snapshot([&](Span<Stats> per_cpu) { format(per_cpu); }));
//
// Updates through with_this_cpu() run with preemption disabled (get_cpu),
// so they never race with other CPUs' updaters. A reader summing all CPUs
// sees each CPU's value at some instant (enough for statistics); anything
// updated from softirq and process context on the same CPU needs more.
#pragma once

#include <cxxrt/kapi-percpu.h>
#include <cxxrt/native_owner.hpp>
#include <cxxrt/new.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/span.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

inline unsigned int nr_cpu_ids() { return kapi_nr_cpu_ids(); }
inline unsigned int num_online_cpus() { return kapi_num_online_cpus(); }
inline unsigned int num_possible_cpus() { return kapi_num_possible_cpus(); }
inline bool cpu_online(unsigned int cpu) { return kapi_cpu_online(cpu) != 0; }

// fn(unsigned cpu) for each online CPU (a snapshot; CPU hotplug may race).
template <typename Fn>
void for_each_online_cpu(Fn&& fn)
{
    const unsigned int limit = kapi_nr_cpu_ids();
    for (unsigned int cpu = kapi_next_online_cpu(-1); cpu < limit; cpu = kapi_next_online_cpu(int(cpu)))
        fn(cpu);
}

// fn(unsigned cpu) for each possible CPU (fixed after boot).
template <typename Fn>
void for_each_possible_cpu(Fn&& fn)
{
    const unsigned int limit = kapi_nr_cpu_ids();
    for (unsigned int cpu = kapi_next_possible_cpu(-1); cpu < limit; cpu = kapi_next_possible_cpu(int(cpu)))
        fn(cpu);
}

// The CPU running the caller now, as a hint (raw_smp_processor_id): it may
// change right after unless preemption is off. Spreads work (connections,
// permit caches) over CPUs; never a key that must stay valid.
inline unsigned int current_cpu_hint() { return kapi_smp_processor_id(); }

// get_cpu()/put_cpu(): preemption is disabled while it lives (no sleeping).
class [[nodiscard]] CpuGuard : Pinned {
public:
    CpuGuard() : cpu_(kapi_get_cpu()) {}
    ~CpuGuard() { kapi_put_cpu(); }
    unsigned int cpu() const { return cpu_; }

private:
    unsigned int cpu_;
};

template <typename T>
class PerCpu : public NativeOwner<kapi_free_percpu> {
    static_assert(__has_trivial_destructor(T), "per-CPU memory is freed without destructors");

public:
    constexpr PerCpu() = default;

    // Process context for Gfp::kernel(); zeroed memory.
    static Result<PerCpu> create(Gfp gfp)
    {
        void* native = kapi_alloc_percpu(sizeof(T), alignof(T), gfp.flags());
        if (!native)
            return Error(err::kNoMem);
        return PerCpu(native);
    }

    // reset() (and the destructor) in process context.

    // Any context: `cpu`'s copy (a possible CPU below nr_cpu_ids()).
    T& on(unsigned int cpu) const { return *static_cast<T*>(kapi_per_cpu_ptr(native(), cpu)); }
    // This CPU's copy; the guard proves preemption is off.
    T& this_cpu(const CpuGuard&) const { return *static_cast<T*>(kapi_this_cpu_ptr(native())); }
    // Any context: fn(T&) on this CPU's copy with preemption disabled.
    template <typename Fn>
    decltype(auto) with_this_cpu(Fn&& fn) const
    {
        CpuGuard guard;
        return fn(this_cpu(guard));
    }
    // fn(unsigned cpu, T&) over every possible CPU's copy (sums, resets).
    template <typename Fn>
    void for_each_possible(Fn&& fn) const
    {
        for_each_possible_cpu([&](unsigned int cpu) { fn(cpu, on(cpu)); });
    }
    // fn(Span<T>) over a copy of every CPU's value, indexed by CPU number
    // (nr_cpu_ids() entries; a CPU that is not possible reads zero): a
    // table to format without holding the live copies. Process context
    // (allocates the copy); -ENOMEM without calling fn.
    template <typename Fn>
    Result<void> with_snapshot(Fn&& fn) const
    {
        const unsigned int cpus = nr_cpu_ids();
        T* copy = allocate_array<T>(Gfp::kernel(), cpus);
        if (!copy)
            return Error(err::kNoMem);
        for_each_possible([&](unsigned int cpu, T& value) { copy[cpu] = value; });
        fn(Span<T>(copy, cpus));
        free_array(copy);
        return {};
    }

private:
    explicit PerCpu(void* native) : NativeOwner(native) {}
};

}  // namespace cxxrt
