// Owned<T, Release>: sole ownership of one kernel object that a boundary
// function handed out (a gendisk, a tag set, a file, ...); reset() or the
// destructor gives it back through Release, the boundary function that
// undoes it (put_disk, del_gendisk, blk_mq_free_tag_set, fput, ...).
// Move-only; an empty owner is constexpr, so a constinit global may hold one.
//
//     cxxrt::Owned<blk_mq_tag_set, kapi_tag_set_destroy> set_;
//
// NativeOwner<Release>: the same for an object handed out as a `void*` (a
// workqueue, a per-CPU area, a sysfs class, device or attribute group).
// Owning types derive from it and keep their constructor from a raw pointer
// private (only their create() makes one).
//
//     class Workqueue : public NativeOwner<kapi_destroy_workqueue> { ... };
#pragma once

#include <cxxrt/utility.hpp>

namespace cxxrt {

template <typename T, void (*Release)(T*)>
class Owned {
public:
    constexpr Owned() = default;
    // Takes `native` over: Release runs on it when this lets it go.
    explicit Owned(T* native) : native_(native) {}
    Owned(Owned&& other) : native_(exchange(other.native_, nullptr)) {}
    Owned& operator=(Owned&& other)
    {
        if (this != &other) {
            reset();
            native_ = exchange(other.native_, nullptr);
        }
        return *this;
    }
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    ~Owned() { reset(); }

    // Gives the object back now; nothing if there is none.
    void reset()
    {
        if (T* native = exchange(native_, nullptr))
            Release(native);
    }
    explicit operator bool() const { return native_ != nullptr; }
    T* get() const { return native_; }

private:
    T* native_ = nullptr;
};

template <void (*Release)(void*)>
class NativeOwner : public Owned<void, Release> {
public:
    constexpr NativeOwner() = default;
    void* native() const { return this->get(); }

protected:
    explicit NativeOwner(void* native) : Owned<void, Release>(native) {}
};

}  // namespace cxxrt
