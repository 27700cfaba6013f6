// Allocation accounting and the C++ runtime entry points the compiler may
// reference (delete operators, pure virtual calls).
#include <cxxrt/assert.hpp>
#include <cxxrt/kapi.h>
#include <cxxrt/log.hpp>
#include <cxxrt/new.hpp>

namespace cxxrt {

constinit AllocRegistry g_alloc_registry{Atomic<AllocCounter*>(nullptr), debugfs::Number(0)};

namespace {

void register_counter(AllocCounter& counter)
{
    if (counter.registered.exchange(true))
        return;
    AllocCounter* head = g_alloc_registry.head.load(MemoryOrder::kRelaxed);
    do {
        counter.next = head;
    } while (!g_alloc_registry.head.compare_exchange(head, &counter, MemoryOrder::kRelease));
}

// True when the failure-injection countdown says this allocation must fail.
bool injected_failure()
{
    u64 remaining = g_alloc_registry.fail_nth.get();
    while (remaining != 0) {
        if (g_alloc_registry.fail_nth.replace(remaining, remaining - 1))
            return remaining == 1;
    }
    return false;
}

// An allocation's outcome in its type's counter; returns the memory.
void* counted(AllocCounter& counter, void* memory)
{
    if (!memory) {
        counter.failed.fetch_add(1, MemoryOrder::kRelaxed);
        return nullptr;
    }
    counter.live.fetch_add(1, MemoryOrder::kRelaxed);
    counter.total.fetch_add(1, MemoryOrder::kRelaxed);
    return memory;
}

void uncount(AllocCounter& counter)
{
    s64 before = counter.live.fetch_sub(1, MemoryOrder::kRelaxed);
    CXXRT_ASSERT(before > 0);  // freeing more than was allocated: a double free
}

}  // namespace

namespace detail {

void* counted_alloc(AllocCounter& counter, size_t size, Gfp gfp)
{
    register_counter(counter);
    return counted(counter, injected_failure() ? nullptr : kapi_kmalloc(size, gfp.flags()));
}

void* counted_alloc_pages(AllocCounter& counter, size_t size, Gfp gfp)
{
    register_counter(counter);
    return counted(counter, injected_failure() ? nullptr : kapi_alloc_pages_exact(size, gfp.flags()));
}

void counted_free(AllocCounter& counter, const void* pointer)
{
    if (!pointer)
        return;
    uncount(counter);
    kapi_kfree(pointer);
}

void counted_free_pages(AllocCounter& counter, void* pointer, size_t size)
{
    if (!pointer)
        return;
    uncount(counter);
    kapi_free_pages_exact(pointer, size);
}

}  // namespace detail

s64 live_allocations()
{
    s64 sum = 0;
    for_each_alloc_counter([&sum](const AllocCounter& c) { sum += c.live.load(MemoryOrder::kRelaxed); });
    return sum;
}

void format_type_name(const AllocCounter& counter, char* buf, size_t size)
{
    if (size == 0)
        return;
    // __PRETTY_FUNCTION__ reads "... type_name() [with T = Foo]".
    const char* name = counter.type_name;
    const char* start = name;
    for (const char* p = name; *p; ++p)
        if (p[0] == 'T' && p[1] == ' ' && p[2] == '=' && p[3] == ' ')
            start = p + 4;
    size_t n = 0;
    while (start[n] && start[n] != ']' && start[n] != ';' && n + 1 < size) {
        buf[n] = start[n];
        ++n;
    }
    buf[n] = '\0';
}

struct RawBytes {};

}  // namespace cxxrt

void* operator new(cxxrt::size_t size, cxxrt::Gfp gfp) noexcept
{
    return cxxrt::detail::counted_alloc(cxxrt::alloc_counter<cxxrt::RawBytes>, size, gfp);
}
void* operator new[](cxxrt::size_t size, cxxrt::Gfp gfp) noexcept
{
    return cxxrt::detail::counted_alloc(cxxrt::alloc_counter<cxxrt::RawBytes>, size, gfp);
}
#ifndef CXXRT_HOST
// The kernel has no other global delete; host builds keep the C++ library's,
// which also serves googletest's own allocations.
void operator delete(void* pointer) noexcept
{
    cxxrt::detail::counted_free(cxxrt::alloc_counter<cxxrt::RawBytes>, pointer);
}
void operator delete(void* pointer, cxxrt::size_t) noexcept
{
    cxxrt::detail::counted_free(cxxrt::alloc_counter<cxxrt::RawBytes>, pointer);
}
void operator delete[](void* pointer) noexcept
{
    cxxrt::detail::counted_free(cxxrt::alloc_counter<cxxrt::RawBytes>, pointer);
}
void operator delete[](void* pointer, cxxrt::size_t) noexcept
{
    cxxrt::detail::counted_free(cxxrt::alloc_counter<cxxrt::RawBytes>, pointer);
}

#endif

// The compiler calls this ABI symbol without a declaration of its own;
// one here keeps -Wmissing-declarations (in 6.12's flags) quiet.
extern "C" void __cxa_pure_virtual();
extern "C" void __cxa_pure_virtual()
{
    cxxrt::log::err("cxxrt: pure virtual function called");
    __builtin_trap();
}
