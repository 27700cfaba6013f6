// NativeOwner<Release>: sole ownership of one kernel object that a boundary
// function handed out as a `void*` (a workqueue, a per-CPU area, a sysfs
// class, device or attribute group); reset() or the destructor gives it back
// through Release (the boundary function that frees it). Move-only; an
// empty owner is constexpr, so a constinit global may hold one.
//
//     class Workqueue : public NativeOwner<kapi_destroy_workqueue> { ... };
//
// The owning types derive from it and keep their constructor from a raw
// pointer private (only their create() makes one).
#pragma once

#include <cxxrt/utility.hpp>

namespace cxxrt {

template <void (*Release)(void*)>
class NativeOwner {
public:
    constexpr NativeOwner() = default;
    NativeOwner(NativeOwner&& other) : native_(exchange(other.native_, nullptr)) {}
    NativeOwner& operator=(NativeOwner&& other)
    {
        if (this != &other) {
            reset();
            native_ = exchange(other.native_, nullptr);
        }
        return *this;
    }
    NativeOwner(const NativeOwner&) = delete;
    NativeOwner& operator=(const NativeOwner&) = delete;
    ~NativeOwner() { reset(); }

    // Gives the object back now; nothing if there is none.
    void reset()
    {
        if (void* native = exchange(native_, nullptr))
            Release(native);
    }
    explicit operator bool() const { return native_ != nullptr; }
    void* native() const { return native_; }

protected:
    explicit NativeOwner(void* native) : native_(native) {}

private:
    void* native_ = nullptr;
};

}  // namespace cxxrt
