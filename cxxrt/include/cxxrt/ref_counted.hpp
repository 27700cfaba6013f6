// Reference counting with a release callback, and RefPtr to hold references.
// The count saturates instead of wrapping (like refcount_t): an overflow or
// an unref of a dead object is logged and the object is leaked, never freed
// twice.
#pragma once

#include <cxxrt/atomic.hpp>
#include <cxxrt/kapi.h>
#include <cxxrt/new.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

class RefCount {
public:
    constexpr RefCount() = default;
    RefCount(const RefCount&) = delete;
    RefCount& operator=(const RefCount&) = delete;

    void ref()
    {
        u32 old = count_.fetch_add(1, MemoryOrder::kRelaxed);
        if (__builtin_expect(old == 0 || old >= kSaturated, 0))
            saturate("ref of a released or saturated object");
    }
    // Takes a reference unless the count already dropped to zero (lookups
    // that race with the final unref).
    bool try_ref()
    {
        u32 old = count_.load(MemoryOrder::kRelaxed);
        do {
            if (old == 0 || old >= kSaturated)
                return false;
        } while (!count_.compare_exchange(old, old + 1, MemoryOrder::kRelaxed));
        return true;
    }
    // True when this was the last reference and the owner must release.
    [[nodiscard]] bool unref()
    {
        u32 old = count_.fetch_sub(1, MemoryOrder::kAcqRel);
        if (__builtin_expect(old == 0 || old >= kSaturated, 0)) {
            saturate("unref of a released or saturated object");
            return false;
        }
        return old == 1;
    }
    u32 count() const { return count_.load(MemoryOrder::kRelaxed); }

private:
    static constexpr u32 kSaturated = 0xc0000000u;
    void saturate(const char* what)
    {
        count_.store(kSaturated, MemoryOrder::kRelaxed);
        kapi_warn(what);
    }
    Atomic<u32> count_{1};
};

// CRTP base: T gets ref()/unref(). On the last unref, T::release_last_reference()
// runs if T declares it (to defer freeing, e.g. to a work item or RCU), and
// otherwise the object is destroyed with destroy<T>().
template <typename T>
class RefCounted {
public:
    void ref() const { refs_.ref(); }
    bool try_ref() const { return refs_.try_ref(); }
    void unref() const
    {
        if (!refs_.unref())
            return;
        T* self = const_cast<T*>(static_cast<const T*>(this));
        if constexpr (requires { self->release_last_reference(); })
            self->release_last_reference();
        else
            destroy(self);
    }
    u32 ref_count() const { return refs_.count(); }

protected:
    RefCounted() = default;
    ~RefCounted() = default;

private:
    mutable RefCount refs_;
};

enum class Adopt { kAdopt };

// Holds one reference. Never null-dereferenced silently: check first.
template <typename T>
class RefPtr {
public:
    constexpr RefPtr() = default;
    constexpr RefPtr(nullptr_t) {}
    // Takes over a reference the caller already owns (a fresh object has one).
    RefPtr(Adopt, T* object) : object_(object) {}
    explicit RefPtr(T* object) : object_(object)
    {
        if (object_)
            object_->ref();
    }
    RefPtr(const RefPtr& other) : RefPtr(other.object_) {}
    RefPtr(RefPtr&& other) : object_(exchange(other.object_, nullptr)) {}
    RefPtr& operator=(RefPtr other)
    {
        swap(object_, other.object_);
        return *this;
    }
    ~RefPtr() { reset(); }

    void reset()
    {
        if (T* old = exchange(object_, nullptr))
            old->unref();
    }
    // Gives the reference to the caller (for handing to C as a void*).
    [[nodiscard]] T* leak_ref() { return exchange(object_, nullptr); }

    T* get() const { return object_; }
    T* operator->() const { return object_; }
    T& operator*() const { return *object_; }
    explicit operator bool() const { return object_ != nullptr; }
    bool operator==(const RefPtr& other) const { return object_ == other.object_; }

private:
    T* object_ = nullptr;
};

// Allocates a T with one reference owned by the returned RefPtr.
template <typename T, typename... Args>
Result<RefPtr<T>> make_ref(Gfp gfp, Args&&... args)
{
    auto object = CXXRT_TRY(make_unique<T>(gfp, forward<Args>(args)...));
    return RefPtr<T>(Adopt::kAdopt, object.release());
}

}  // namespace cxxrt
