// Allocation. There is no plain `operator new(size_t)`: every allocation
// names its GFP context, and an accidental `new T` fails at modpost with an
// undefined `_Znwm` (pitfall P9). Allocation returns null (or an -ENOMEM
// Result); nothing throws.
//
// Every typed allocation is accounted per type: live objects, total
// allocations and failures, listed in debugfs (<module>/allocations), and a
// module refuses to leave quietly if anything is still live (see
// cxxrt::module_exit). `fail_nth` makes the Nth allocation fail on purpose,
// so tests can walk the error paths on a kernel without fault injection.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/debugfs.hpp>
#include <cxxrt/result.hpp>
#include <cxxrt/types.hpp>
#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt {

// GFP flags with names; values come from the generated kabi header.
class Gfp {
public:
    static constexpr Gfp kernel() { return Gfp(KABI_GFP_KERNEL); }  // may sleep
    static constexpr Gfp atomic() { return Gfp(KABI_GFP_ATOMIC); }  // softirq, under spinlocks
    static constexpr Gfp noio() { return Gfp(KABI_GFP_NOIO); }      // in the IO path
    static constexpr Gfp nowait() { return Gfp(KABI_GFP_NOWAIT); }
    constexpr Gfp zeroed() const { return Gfp(flags_ | KABI___GFP_ZERO); }
    constexpr unsigned int flags() const { return flags_; }

private:
    constexpr explicit Gfp(unsigned int flags) : flags_(flags) {}
    unsigned int flags_;
};

// One per allocated type (a template variable, constant-initialised: no
// constructor runs). Linked into the module's registry on first use.
struct AllocCounter {
    const char* type_name;
    Atomic<s64> live;
    Atomic<u64> total;
    Atomic<u64> failed;
    Atomic<bool> registered;
    AllocCounter* next;
};

namespace detail {
template <typename T>
constexpr const char* type_name()
{
    return __PRETTY_FUNCTION__;  // trimmed to the type when printed
}
void* counted_alloc(AllocCounter& counter, size_t size, Gfp gfp);
void counted_free(AllocCounter& counter, const void* pointer);
void* counted_alloc_pages(AllocCounter& counter, size_t size, Gfp gfp);
void counted_free_pages(AllocCounter& counter, void* pointer, size_t size);
}  // namespace detail

template <typename T>
inline constinit AllocCounter alloc_counter{detail::type_name<T>(), Atomic<s64>(0), Atomic<u64>(0),
                                            Atomic<u64>(0), Atomic<bool>(false), nullptr};

// Untyped buffers (message buffers, arrays) are accounted together.
struct RawBytes;

// Constructs a T; null when memory (or the constructor's preconditions) fail.
template <typename T, typename... Args>
T* allocate(Gfp gfp, Args&&... args)
{
    void* memory = detail::counted_alloc(alloc_counter<T>, sizeof(T), gfp);
    if (!memory)
        return nullptr;
    return new (memory) T(forward<Args>(args)...);
}

// Destroys an object made by allocate<T>() with the same T.
template <typename T>
void destroy(T* object)
{
    if (!object)
        return;
    object->~T();
    detail::counted_free(alloc_counter<T>, object);
}

// A zeroed array of n trivially constructible Ts, with an overflow check.
template <typename T>
T* allocate_array(Gfp gfp, size_t count)
{
    size_t bytes = 0;
    if (__builtin_mul_overflow(count, sizeof(T), &bytes))
        return nullptr;
    return static_cast<T*>(detail::counted_alloc(alloc_counter<T[]>, bytes, gfp.zeroed()));
}
template <typename T>
void free_array(T* array)
{
    if (array)
        detail::counted_free(alloc_counter<T[]>, array);
}

// The module's allocation registry and the failure-injection knob.
struct AllocRegistry {
    Atomic<AllocCounter*> head;
    debugfs::Number fail_nth;  // 0: off; N: the Nth allocation from now fails (debugfs)
};
extern constinit AllocRegistry g_alloc_registry;

// Visits every counter that has been used; fn(const AllocCounter&).
template <typename Fn>
void for_each_alloc_counter(Fn&& fn)
{
    for (AllocCounter* c = g_alloc_registry.head.load(MemoryOrder::kAcquire); c; c = c->next)
        fn(*c);
}
// Live objects over all types.
s64 live_allocations();
// Copies the printable type out of a counter's name into buf.
void format_type_name(const AllocCounter& counter, char* buf, size_t size);

}  // namespace cxxrt

// Untracked allocation for code that cannot name a type (rare); still GFP.
void* operator new(cxxrt::size_t size, cxxrt::Gfp gfp) noexcept;
void* operator new[](cxxrt::size_t size, cxxrt::Gfp gfp) noexcept;
