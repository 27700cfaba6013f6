// In-kernel tests of cxxrt: the pieces host tests cannot vouch for, because
// they depend on the real kernel (locks, GFP, debugfs, RCU) or because the
// code must behave the same once compiled with the kernel's flags.
#include <cxxrt/array.hpp>
#include <cxxrt/drain.hpp>
#include <cxxrt/foreign.hpp>
#include <cxxrt/list.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/percpu.hpp>
#include <cxxrt/scope_guard.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/wait.hpp>
#include <cxxrt/work.hpp>
#include "cxxrt/tests/kmod/expect.hpp"
#include <cxxrt/enforce.hpp>

extern "C" int cxxrt_selftest_run(bool leak_on_exit) noexcept;

namespace {

using namespace cxxrt;

struct Element {
    explicit Element(int v) : value(v) {}
    int value;
    ListNode node;
};
using ElementList = IntrusiveList<Element, &Element::node>;

bool test_allocation_accounting()
{
    s64 before = alloc_counter<Element>.live.load();
    Element* e = allocate<Element>(Gfp::kernel(), 7);
    EXPECT(e != nullptr);
    EXPECT(e->value == 7);
    EXPECT(alloc_counter<Element>.live.load() == before + 1);
    destroy(e);
    EXPECT(alloc_counter<Element>.live.load() == before);
    return true;
}

struct Constructed {
    Constructed() { ++constructions; }
    static inline int constructions = 0;
};

bool test_allocation_failure_path()
{
    Constructed::constructions = 0;
    u64 failed_before = alloc_counter<Constructed>.failed.load();
    g_alloc_registry.fail_nth.set(1);
    auto made = make_unique<Constructed>(Gfp::kernel());
    EXPECT(made.is_error());
    EXPECT(made.error().code() == err::kNoMem);
    EXPECT(Constructed::constructions == 0);  // no constructor on failed memory
    EXPECT(alloc_counter<Constructed>.failed.load() == failed_before + 1);
    auto again = make_unique<Constructed>(Gfp::kernel());  // the knob fired once only
    EXPECT(again.is_ok());
    EXPECT(Constructed::constructions == 1);
    return true;
}

// Each C++ lock has its own lockdep class: two mutexes of different classes
// nest with no report (with one class for all, lockdep would say "possible
// recursive locking"), and two of one class nest when annotated (kNested).
// On a kernel without lockdep this only checks that the locks work.
bool test_lock_classes()
{
    LockClass& outer_class = lock_class<"cxxrt::selftest::lock_classes::outer">;
    EXPECT(&outer_class == &lock_class<"cxxrt::selftest::lock_classes::outer">);  // one per name
    EXPECT(&outer_class != &lock_class<"cxxrt::selftest::lock_classes::inner">);
    Mutex outer{outer_class};
    Mutex inner{lock_class<"cxxrt::selftest::lock_classes::inner">};
    {
        MutexGuard a(outer);
        MutexGuard b(inner);
        EXPECT(inner.is_locked());
    }
    Mutex first{lock_class<"cxxrt::selftest::lock_classes::same_mutex">};
    Mutex second{lock_class<"cxxrt::selftest::lock_classes::same_mutex">};
    {
        MutexGuard a(first);
        MutexGuard b(second, kNested);
        EXPECT(second.is_locked());
    }
    SpinLock left{lock_class<"cxxrt::selftest::lock_classes::same_spin">};
    SpinLock right{lock_class<"cxxrt::selftest::lock_classes::same_spin">};
    {
        SpinGuard a(left);
        SpinGuard b(right, kNested);
        EXPECT(right.is_locked());
    }
    return true;
}

bool test_atomic_allocation_under_spinlock()
{
    SpinLock lock{lock_class<"cxxrt::selftest::atomic_allocation::lock">};
    Element* e = nullptr;
    {
        SpinGuard guard(lock);
        EXPECT(kapi_in_atomic_context());
        e = allocate<Element>(Gfp::atomic(), 1);
    }
    EXPECT(e != nullptr);
    destroy(e);
    return true;
}

// Takes a held mutex on purpose (try_lock must fail), which the lock lint flags.
CXXRT_NO_THREAD_SAFETY_ANALYSIS bool test_lock_guards()
{
    SpinLock lock{lock_class<"cxxrt::selftest::lock_guards::lock">};
    EXPECT(!lock.is_locked());
    {
        SpinGuard guard(lock);
        EXPECT(lock.is_locked());
    }
    EXPECT(!lock.is_locked());
    {
        IrqSpinGuard guard(lock);
        EXPECT(lock.is_locked());
        EXPECT(kapi_in_atomic_context());
    }
    {
        BhSpinGuard guard(lock);
        EXPECT(lock.is_locked());
    }
    EXPECT(!lock.is_locked());
    EXPECT(!kapi_in_atomic_context());

    auto mutex = make_unique<Mutex>(Gfp::kernel(), lock_class<"cxxrt::selftest::lock_guards::mutex">);
    EXPECT(mutex.is_ok());
    Mutex& m = *mutex.value();
    {
        MutexGuard guard(m);
        EXPECT(m.is_locked());
        EXPECT(!m.try_lock());
    }
    EXPECT(!m.is_locked());
    {
        RcuReadGuard outer;
        RcuReadGuard nested;
    }
    kapi_synchronize_rcu();
    return true;
}

bool test_intrusive_list()
{
    constexpr int kCount = 1000;
    ElementList list;
    for (int i = 0; i < kCount; ++i) {
        Element* e = allocate<Element>(Gfp::kernel(), i);
        EXPECT(e != nullptr);
        list.push_back(*e);
    }
    EXPECT(list.check_invariants());
    EXPECT(list.size() == size_t(kCount));
    list.for_each_safe([](Element& e) {
        if (e.value % 2) {
            ElementList::remove(e);
            destroy(&e);
        }
    });
    EXPECT(list.check_invariants());
    EXPECT(list.size() == size_t(kCount / 2));
    int expected = 0;
    for (Element& e : list) {
        EXPECT(e.value == expected);
        expected += 2;
    }
    while (Element* e = list.pop_front())
        destroy(e);
    EXPECT(list.is_empty());
    EXPECT(list.check_invariants());
    return true;
}

struct Tracked : RefCounted<Tracked> {
    explicit Tracked(int* releases) : releases_(releases) {}
    ~Tracked() { ++*releases_; }
    int* releases_;
};

bool test_refcount_release()
{
    int releases = 0;
    {
        auto made = make_ref<Tracked>(Gfp::kernel(), &releases);
        EXPECT(made.is_ok());
        RefPtr<Tracked> a = made.release_value();
        RefPtr<Tracked> b = a;
        RefPtr<Tracked> c = move(b);
        EXPECT(a->ref_count() == 2);
        EXPECT(!b);
        c.reset();
        EXPECT(releases == 0);
    }
    EXPECT(releases == 1);
    EXPECT(alloc_counter<Tracked>.live.load() == 0);
    return true;
}

Result<int> half(int v)
{
    if (v % 2)
        return Error(err::kInval);
    return v / 2;
}
Result<int> quarter(int v)
{
    int h = CXXRT_TRY(half(v));
    return CXXRT_TRY(half(h));
}

bool test_result_propagation()
{
    EXPECT(quarter(8).value() == 2);
    EXPECT(quarter(6).to_errno() == -err::kInval);
    return true;
}

bool test_sysfs_tokenizer()
{
    static constexpr parse::OptionSpec kSpecs[] = {
        {"sessname", 1, true},
        {"path", 6, true},
    };
    parse::Option options[8];
    parse::ParseError error;
    auto ok = parse::parse_options("sessname=a path=ip:192.0.2.1 path=ip:198.51.100.1\n", kSpecs, options, &error);
    EXPECT(ok.is_ok() && ok.value() == 3);
    auto dup = parse::parse_options("sessname=a sessname=b path=x", kSpecs, options, &error);
    EXPECT(dup.to_errno() == -err::kInval && error.reason == parse::Reason::kDuplicateKey);
    auto big = parse::parse_unsigned("18446744073709551616", ~u64(0));
    EXPECT(big.to_errno() == -err::kRange);
    return true;
}

// ---- work items, completions, wait queues, per-CPU ----

u64 elapsed_ms(u64 since_ns)
{
    return (kapi_ktime_ns() - since_ns) / 1000000;
}

struct WorkProbe {
    WorkProbe()
        : work(lock_class<"cxxrt::selftest::WorkProbe::work">, Callback::to<&WorkProbe::on_work>(this)),
          delayed(lock_class<"cxxrt::selftest::WorkProbe::delayed">, Callback::to<&WorkProbe::on_delayed>(this))
    {
    }
    void on_work()
    {
        work_cpu.store(int(kapi_smp_processor_id()));
        slept_ok.store(!kapi_in_atomic_context());  // a kworker may sleep
        runs.fetch_add(1);
        done.complete();
    }
    void on_delayed()
    {
        delayed_at_ns.store(kapi_ktime_ns());
        delayed_runs.fetch_add(1);
        delayed_done.complete();
    }

    Work work;
    DelayedWork delayed;
    Completion done{lock_class<"cxxrt::selftest::WorkProbe::done">};
    Completion delayed_done{lock_class<"cxxrt::selftest::WorkProbe::delayed_done">};
    Atomic<int> runs{0};
    Atomic<int> delayed_runs{0};
    Atomic<int> work_cpu{-1};
    Atomic<bool> slept_ok{false};
    Atomic<u64> delayed_at_ns{0};
};

bool test_work_runs()
{
    auto made = make_unique<WorkProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WorkProbe& p = *made.value();
    EXPECT(p.work.queue());
    EXPECT(p.done.wait_timeout(5000));
    EXPECT(p.runs.load() == 1);
    EXPECT(p.slept_ok.load());
    EXPECT(!p.work.pending());
    // Queued again after it ran: runs again. flush() waits for it.
    EXPECT(p.work.queue());
    p.work.flush();
    EXPECT(p.runs.load() == 2);
    EXPECT(!p.work.cancel_sync());  // nothing pending
    return true;
}

bool test_delayed_work_runs_after_delay()
{
    auto made = make_unique<WorkProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WorkProbe& p = *made.value();
    constexpr unsigned long kDelayMs = 200;
    u64 start = kapi_ktime_ns();
    EXPECT(p.delayed.queue(kDelayMs));
    EXPECT(!p.delayed.queue(kDelayMs));  // already pending
    EXPECT(p.delayed.pending());
    // No "not yet" wait here: on a loaded host this thread can be preempted
    // past the whole delay (seen in CI), so earliness is judged only by
    // when the work itself ran, measured below.
    EXPECT(p.delayed_done.wait_timeout(5000));
    u64 after = (p.delayed_at_ns.load() - start) / 1000000;
    log::info("#   delayed work ran after %llu ms (asked %lu)", (unsigned long long)after, kDelayMs);
    // Not early by more than timekeeping noise: a debug kernel under TCG
    // emulation was measured firing 200 ms work after 182 ms of ktime (its
    // jiffies and clocksource drift apart); a delay that is ignored shows ~0.
    EXPECT(after * 5 >= kDelayMs * 4);
    EXPECT(p.delayed_runs.load() == 1);
    EXPECT(!p.delayed.cancel_sync());
    return true;
}

bool test_cancel_prevents_work()
{
    auto made = make_unique<WorkProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WorkProbe& p = *made.value();
    EXPECT(p.delayed.queue(300));
    EXPECT(p.delayed.cancel_sync());
    EXPECT(!p.delayed.pending());
    EXPECT(!p.delayed_done.wait_timeout(500));  // well past the original expiry
    EXPECT(p.delayed_runs.load() == 0);
    // Non-sync cancel from atomic context.
    EXPECT(p.delayed.queue(300));
    {
        SpinLock lock{lock_class<"cxxrt::selftest::delayed_cancel::lock">};
        SpinGuard guard(lock);
        EXPECT(p.delayed.cancel());
    }
    EXPECT(!p.delayed_done.wait_timeout(400));
    EXPECT(p.delayed_runs.load() == 0);
    return true;
}

bool test_mod_delayed_work()
{
    auto made = make_unique<WorkProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WorkProbe& p = *made.value();
    EXPECT(p.delayed.queue(60000));
    u64 start = kapi_ktime_ns();
    EXPECT(p.delayed.mod(20));  // was pending: re-armed to fire soon
    EXPECT(p.delayed_done.wait_timeout(5000));
    EXPECT(elapsed_ms(start) < 5000);
    EXPECT(p.delayed_runs.load() == 1);
    EXPECT(!p.delayed.mod(10));  // idle: mod queues it
    p.delayed.flush();
    EXPECT(p.delayed_runs.load() == 2);
    return true;
}

bool test_own_workqueue()
{
    auto wq = Workqueue::create("cxxrt_selftest_wq", wq::kMemReclaim | wq::kUnbound);
    EXPECT(wq.is_ok());
    auto made = make_unique<WorkProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WorkProbe& p = *made.value();
    EXPECT(p.work.queue_on(wq.value()));
    EXPECT(p.delayed.queue_on(wq.value(), 10));
    wq.value().flush();
    EXPECT(p.runs.load() == 1);
    p.delayed.flush();
    EXPECT(p.delayed_runs.load() == 1);
    // Destruction drains: queue once more and destroy the queue at once.
    EXPECT(p.work.queue_on(wq.value()));
    wq.value().reset();
    EXPECT(p.runs.load() == 2);
    EXPECT(!wq.value());
    return true;
}

bool test_completion()
{
    auto made = make_unique<Completion>(Gfp::kernel(), lock_class<"cxxrt::selftest::completion::c">);
    EXPECT(made.is_ok());
    Completion& c = *made.value();
    u64 start = kapi_ktime_ns();
    EXPECT(!c.wait_timeout(100));
    EXPECT(elapsed_ms(start) >= 50);  // jiffies lag a late tick (test_wait_queue)
    EXPECT(!c.done());
    c.complete();
    EXPECT(c.done());
    EXPECT(c.wait_timeout_left(1000) >= 1);
    EXPECT(!c.try_wait());  // consumed
    c.complete();
    EXPECT(c.try_wait());
    c.complete_all();
    for (int i = 0; i < 3; ++i)
        EXPECT(c.wait_timeout(10));  // complete_all lets every wait pass
    c.reinit();
    EXPECT(!c.wait_timeout(20));
    return true;
}

struct WaitProbe {
    WaitProbe() : work(lock_class<"cxxrt::selftest::WaitProbe::work">, Callback::to<&WaitProbe::on_work>(this)) {}
    void on_work()
    {
        kapi_msleep(50);
        flag.store(true);
        queue.wake_up();
    }
    WaitQueue queue{lock_class<"cxxrt::selftest::WaitProbe::queue">};
    DelayedWork work;
    Atomic<bool> flag{false};
};

bool test_wait_queue()
{
    auto made = make_unique<WaitProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    WaitProbe& p = *made.value();
    // Timeout with a predicate that never holds.
    u64 start = kapi_ktime_ns();
    EXPECT(!p.queue.wait_timeout([] { return false; }, 100));
    // The timeout counts jiffies, which lag the clock by as long as a tick
    // is late (over 15 ms on a loaded TCG guest): it slept, not 100 ms sharp.
    EXPECT(elapsed_ms(start) >= 50);
    // Woken by a work item that sets the flag.
    EXPECT(p.work.queue(10));
    EXPECT(p.queue.wait_timeout([&p] { return p.flag.load(); }, 5000));
    EXPECT(p.flag.load());
    p.work.cancel_sync();
    // Predicate already true: no sleep.
    p.queue.wait([&p] { return p.flag.load(); });
    p.flag.store(false);
    EXPECT(p.work.queue(10));
    EXPECT(p.queue.wait_interruptible([&p] { return p.flag.load(); }).is_ok());
    p.work.cancel_sync();
    return true;
}

// Array of pinned elements that embed kernel objects (a mutex and a work
// item each): every lock initialised in place, usable, destroyed in place.
struct ArraySlot : Pinned {
    ArraySlot(Atomic<int>* runs_counter, u32 slot_index)
        : work(lock_class<"cxxrt::selftest::ArraySlot::work">, Callback::to<&ArraySlot::on_work>(this)),
          runs(runs_counter), index(slot_index)
    {
    }
    void on_work() { runs->fetch_add(1); }
    Mutex mutex{lock_class<"cxxrt::selftest::ArraySlot::mutex">};
    Work work;
    Atomic<int>* runs;
    u32 index;
};

bool test_array()
{
    Atomic<int> runs{0};
    s64 before = alloc_counter<ArraySlot[]>.live.load();
    {
        auto made = Array<ArraySlot>::create(Gfp::kernel(), 4, [&runs](u32 i) { return ArraySlot(&runs, i); });
        EXPECT(made.is_ok());
        Array<ArraySlot> slots = made.release_value();
        EXPECT(slots.size() == 4);
        EXPECT(alloc_counter<ArraySlot[]>.live.load() == before + 1);
        for (ArraySlot& slot : slots) {
            MutexGuard guard(slot.mutex);
            EXPECT(slot.index == u32(&slot - slots.data()));
            EXPECT(slot.work.queue());
        }
        for (ArraySlot& slot : slots)
            slot.work.flush();
        EXPECT(runs.load() == 4);
    }
    EXPECT(alloc_counter<ArraySlot[]>.live.load() == before);
    g_alloc_registry.fail_nth.set(1);
    auto failed = Array<ArraySlot>::create(Gfp::kernel(), 2, [&runs](u32 i) { return ArraySlot(&runs, i); });
    EXPECT(failed.is_error());
    EXPECT(failed.error().code() == err::kNoMem);
    return true;
}

// A reference handed through a work item's C context and taken back there
// (the shape of a kernel callback's void* context); the scope guard drops
// the waiter's hold on every exit of the check.
struct ForeignProbe : RefCounted<ForeignProbe> {
    Atomic<int> seen{0};
};
struct ForeignCarrier {
    ForeignCarrier() : work(lock_class<"cxxrt::selftest::ForeignCarrier::work">, Callback::to<&ForeignCarrier::on_work>(this)) {}
    void on_work()
    {
        RefPtr<ForeignProbe> probe = from_foreign<RefPtr<ForeignProbe>>(context);
        probe->seen.fetch_add(1);
        done.complete();
    }
    Work work;
    void* context = nullptr;
    Completion done{lock_class<"cxxrt::selftest::ForeignCarrier::done">};
};

bool test_foreign_and_scope_guard()
{
    auto probe_made = make_ref<ForeignProbe>(Gfp::kernel());
    EXPECT(probe_made.is_ok());
    RefPtr<ForeignProbe> probe = probe_made.release_value();
    auto carrier_made = make_unique<ForeignCarrier>(Gfp::kernel());
    EXPECT(carrier_made.is_ok());
    ForeignCarrier& carrier = *carrier_made.value();
    {
        RefPtr<ForeignProbe> handed = probe;
        carrier.context = into_foreign(move(handed));
    }
    EXPECT(probe->ref_count() == 2);  // the work item's
    EXPECT(borrow_foreign<RefPtr<ForeignProbe>>(carrier.context) == probe.get());
    EXPECT(carrier.work.queue());
    EXPECT(carrier.done.wait_timeout(5000));
    carrier.work.flush();
    EXPECT(probe->seen.load() == 1);
    EXPECT(probe->ref_count() == 1);  // taken back and dropped in the work item
    int left = 0;
    {
        ScopeGuard leave([&left] { ++left; });
        EXPECT(left == 0);
    }
    EXPECT(left == 1);
    return true;
}

// Users leave from a work item; the waiter sleeps on the counter's own wait
// queue (its lockdep class) until the last one is gone.
struct DrainProbe {
    DrainProbe() : work(lock_class<"cxxrt::selftest::DrainProbe::work">, Callback::to<&DrainProbe::on_work>(this)) {}
    void on_work()
    {
        for (int i = 0; i < kUsers; ++i) {
            kapi_msleep(10);
            users.leave();
        }
    }
    static constexpr int kUsers = 3;
    DrainCounter users{lock_class<"cxxrt::selftest::DrainProbe::users">};
    Work work;
};

bool test_drain_counter()
{
    auto made = make_unique<DrainProbe>(Gfp::kernel());
    EXPECT(made.is_ok());
    DrainProbe& p = *made.value();
    EXPECT(p.users.is_idle());
    EXPECT(p.users.wait_idle_timeout(10));
    for (int i = 0; i < DrainProbe::kUsers; ++i)
        p.users.enter();
    EXPECT(p.users.count() == u32(DrainProbe::kUsers));
    EXPECT(!p.users.wait_idle_timeout(50));  // nobody leaves yet
    EXPECT(p.work.queue());
    p.users.wait_idle();
    EXPECT(p.users.is_idle());
    p.work.flush();
    return true;
}

struct CpuSlot {
    u64 value;
    u64 hits;
};

struct PerCpuProbe {
    explicit PerCpuProbe(PerCpu<CpuSlot>* slots)
        : work(lock_class<"cxxrt::selftest::PerCpuProbe::work">, Callback::to<&PerCpuProbe::on_work>(this)),
          slots(slots)
    {
    }
    void on_work()
    {
        // Runs on the CPU it was queued on (per-CPU system_wq).
        slots->with_this_cpu([](CpuSlot& s) { ++s.hits; });
    }
    Work work;
    PerCpu<CpuSlot>* slots;
};

bool test_percpu()
{
    unsigned int ids = nr_cpu_ids();
    unsigned int online = num_online_cpus();
    log::info("#   nr_cpu_ids=%u online=%u possible=%u", ids, online, num_possible_cpus());
    EXPECT(online >= 1 && online <= ids);
    unsigned int counted = 0;
    unsigned int last = 0;
    bool ordered = true;
    for_each_online_cpu([&](unsigned int cpu) {
        if (counted && cpu <= last)
            ordered = false;
        last = cpu;
        ++counted;
    });
    EXPECT(ordered);
    EXPECT(counted == online);
    EXPECT(cpu_online(last));
    EXPECT(!cpu_online(ids));

    auto made = PerCpu<CpuSlot>::create(Gfp::kernel());
    EXPECT(made.is_ok());
    PerCpu<CpuSlot>& slots = made.value();
    // Zeroed, distinct per CPU.
    bool zero = true;
    slots.for_each_possible([&](unsigned int, CpuSlot& s) { zero = zero && s.value == 0 && s.hits == 0; });
    EXPECT(zero);
    for_each_online_cpu([&](unsigned int cpu) { slots.on(cpu).value = cpu + 1; });
    u64 sum = 0;
    u64 expected = 0;
    for_each_online_cpu([&](unsigned int cpu) {
        sum += slots.on(cpu).value;
        expected += cpu + 1;
    });
    EXPECT(sum == expected);
    // A snapshot: one copy per CPU number, in CPU order, apart from the live copies.
    bool copied = true;
    unsigned int entries = 0;
    auto snapshot = slots.with_snapshot([&](Span<CpuSlot> copy) {
        entries = unsigned(copy.size());
        for_each_online_cpu([&](unsigned int cpu) {
            copied = copied && copy[cpu].value == cpu + 1 && &copy[cpu] != &slots.on(cpu);
            copy[cpu].value = 0;
        });
    });
    EXPECT(snapshot.is_ok());
    EXPECT(entries == ids);
    EXPECT(copied);
    EXPECT(slots.on(last).value == last + 1);
    if (online > 1)
        EXPECT(&slots.on(0) != &slots.on(last));
    {
        CpuGuard guard;
        EXPECT(kapi_in_atomic_context());
        EXPECT(&slots.this_cpu(guard) == &slots.on(guard.cpu()));
        EXPECT(slots.this_cpu(guard).value == guard.cpu() + 1);
    }
    // One work item per online CPU bumps that CPU's own copy.
    unsigned int queued = 0;
    for_each_online_cpu([&](unsigned int cpu) {
        auto probe = make_unique<PerCpuProbe>(Gfp::kernel(), &slots);
        if (probe.is_error())
            return;
        probe.value()->work.queue_on_cpu(cpu);
        probe.value()->work.flush();
        ++queued;
    });
    EXPECT(queued == online);
    bool each_once = true;
    for_each_online_cpu([&](unsigned int cpu) { each_once = each_once && slots.on(cpu).hits == 1; });
    EXPECT(each_once);
    return true;
}

bool test_no_live_allocations_left()
{
    // Everything above freed what it allocated; exit would WARN otherwise.
    EXPECT(live_allocations() == 0);
    return true;
}

struct TestCase {
    const char* name;
    bool (*run)();
};

constexpr TestCase kTests[] = {
    {"allocation_accounting", test_allocation_accounting},
    {"allocation_failure_path", test_allocation_failure_path},
    {"atomic_allocation_under_spinlock", test_atomic_allocation_under_spinlock},
    {"lock_guards", test_lock_guards},
    {"intrusive_list", test_intrusive_list},
    {"refcount_release", test_refcount_release},
    {"result_propagation", test_result_propagation},
    {"sysfs_tokenizer", test_sysfs_tokenizer},
    {"work_runs", test_work_runs},
    {"delayed_work_runs_after_delay", test_delayed_work_runs_after_delay},
    {"cancel_prevents_work", test_cancel_prevents_work},
    {"mod_delayed_work", test_mod_delayed_work},
    {"own_workqueue", test_own_workqueue},
    {"completion", test_completion},
    {"lock_classes", test_lock_classes},
    {"wait_queue", test_wait_queue},
    {"percpu", test_percpu},
    {"array", test_array},
    {"foreign_and_scope_guard", test_foreign_and_scope_guard},
    {"drain_counter", test_drain_counter},
    {"no_live_allocations_left", test_no_live_allocations_left},
};

}  // namespace

extern "C" int cxxrt_selftest_run(bool leak_on_exit) noexcept
{
    int rc = cxxrt_module_init();
    if (rc)
        return rc;
    constexpr int kCount = int(sizeof(kTests) / sizeof(kTests[0]));
    int failed = 0;
    log::info("KTAP version 1");
    log::info("1..%d", kCount);
    for (int i = 0; i < kCount; ++i) {
        bool ok = kTests[i].run();
        if (!ok)
            ++failed;
        log::info("%s %d %s", ok ? "ok" : "not ok", i + 1, kTests[i].name);
    }
    log::info("# cxxrt selftest: %d passed, %d failed", kCount - failed, failed);
    if (failed) {
        (void)cxxrt_module_exit();
        return -err::kInval;
    }
    if (leak_on_exit) {
        // Never freed: module exit must name it and WARN.
        log::info("leaking one Element on purpose (leak_on_exit=1)");
        (void)allocate<Element>(Gfp::kernel(), -1);
    }
    return 0;
}

// The negative lockdep test (selftests/negative/lockdep.sh, lock_inversion=1):
// two C++ mutexes taken A->B, then B->A, in this one thread. Nothing
// deadlocks, but a lockdep kernel must report "possible circular locking
// dependency" naming both classes, and the VM runner must fail the run.
extern "C" void cxxrt_selftest_lock_inversion(void) noexcept;  // called from selftest-mod.c
extern "C" void cxxrt_selftest_lock_inversion(void) noexcept
{
    Mutex a{lock_class<"cxxrt::selftest::Inversion::a_">};
    Mutex b{lock_class<"cxxrt::selftest::Inversion::b_">};
    log::info("lock_inversion=1: taking two mutexes A->B, then B->A (lockdep must report it)");
    {
        MutexGuard first(a);
        MutexGuard second(b);
    }
    {
        MutexGuard first(b);
        MutexGuard second(a);
    }
}
