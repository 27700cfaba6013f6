// Lockdep classes for C++ locks, wait queues, completions and work items.
//
// Lockdep groups locks into classes by a `struct lock_class_key` that must
// live in static storage; the kernel's init macros make one per call site.
// Our init calls all go through one C boundary function each, so without
// help every C++ mutex would share one class (false "recursive locking"
// reports, real inversions hidden). So every C++ lock object names its own
// class where it is declared, by owning type and member:
//
//     cxxrt::Mutex mutex_{cxxrt::lock_class<"rnbd::srv::Session::mutex_">};
//
// `lock_class<"name">` is one zero-initialised static LockClass per name and
// module (constant-initialised: no constructor runs, nothing lands in
// .init_array), holding the key (sized from the generated kabi header: 0
// bytes without lockdep, the real size with it) and the name lockdep prints.
// The lock types have no key-less constructor, so a class cannot be
// forgotten, and a LockClass cannot be made anywhere but in static storage.
// Two declarations share a class only if they use the same name.
#pragma once

#include <cxxrt/utility.hpp>
#include "cxxrt-kabi.h"

namespace cxxrt {

// A string literal as a template argument (C++20 class-type NTTP).
template <unsigned long N>
struct LockName {
    consteval LockName(const char (&text)[N])
    {
        for (unsigned long i = 0; i < N; ++i)
            chars[i] = text[i];
    }
    char chars[N];
};

template <LockName Name>
struct LockClassOf;

// Storage of one struct lock_class_key (zeroed; lockdep needs it static).
// Without lockdep the kernel's key is an empty struct (size 0).
struct LockKeyStorage {
    static constexpr unsigned long kSize = KABI_SIZEOF_LOCK_CLASS_KEY > 0 ? KABI_SIZEOF_LOCK_CLASS_KEY : 1;
    alignas(KABI_ALIGNOF_LOCK_CLASS_KEY) unsigned char bytes[kSize] = {};
};

class LockClass : Pinned {
public:
    // The struct lock_class_key (opaque) and the class's name, for the C boundary.
    void* key() { return key_.bytes; }
    const char* name() const { return name_; }

private:
    template <LockName Name>
    friend struct LockClassOf;
    constexpr explicit LockClass(const char* name) : name_(name) {}

    LockKeyStorage key_;
    const char* name_;
};

template <LockName Name>
struct LockClassOf {
    static_assert(sizeof(Name.chars) > 1, "a lock class needs a name");
    static constinit inline LockClass value{Name.chars};
};

// The class named `Name` (one per module): pass it to the lock's constructor.
template <LockName Name>
inline constexpr LockClass& lock_class = LockClassOf<Name>::value;

// Lockdep subclass for an intended nesting of two locks of one class
// (mutex_lock_nested/spin_lock_nested); kNested is the kernel's
// SINGLE_DEPTH_NESTING.
struct LockSubclass {
    unsigned int value;
};
inline constexpr LockSubclass kNested{1};

}  // namespace cxxrt
