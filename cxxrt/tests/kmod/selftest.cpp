// In-kernel tests of cxxrt: the pieces host tests cannot vouch for, because
// they depend on the real kernel (locks, GFP, debugfs, RCU) or because the
// code must behave the same once compiled with the kernel's flags.
#include <cxxrt/list.hpp>
#include <cxxrt/log.hpp>
#include <cxxrt/module-api.h>
#include <cxxrt/new.hpp>
#include <cxxrt/parse.hpp>
#include <cxxrt/ref_counted.hpp>
#include <cxxrt/sync.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/enforce.hpp>

extern "C" int cxxrt_selftest_run(bool leak_on_exit) noexcept;

namespace {

using namespace cxxrt;

#define EXPECT(condition)                                                          \
    do {                                                                           \
        if (!(condition)) {                                                        \
            log::err("#   check failed: %s (%s:%d)", #condition, __FILE__, __LINE__); \
            return false;                                                          \
        }                                                                          \
    } while (0)

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
    g_alloc_registry.fail_nth = 1;
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

bool test_atomic_allocation_under_spinlock()
{
    SpinLock lock;
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
    SpinLock lock;
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

    auto mutex = make_unique<Mutex>(Gfp::kernel());
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
