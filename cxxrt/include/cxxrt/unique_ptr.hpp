// UniquePtr<T>: sole ownership of an object made by allocate<T>().
#pragma once

#include <cxxrt/new.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

template <typename T>
class UniquePtr {
public:
    constexpr UniquePtr() = default;
    constexpr UniquePtr(nullptr_t) {}
    explicit UniquePtr(T* object) : object_(object) {}
    UniquePtr(const UniquePtr&) = delete;
    UniquePtr& operator=(const UniquePtr&) = delete;
    UniquePtr(UniquePtr&& other) : object_(other.release()) {}
    UniquePtr& operator=(UniquePtr&& other)
    {
        if (this != &other)
            reset(other.release());
        return *this;
    }
    ~UniquePtr() { reset(); }

    void reset(T* object = nullptr) { destroy(exchange(object_, object)); }
    [[nodiscard]] T* release() { return exchange(object_, nullptr); }

    T* get() const { return object_; }
    T* operator->() const { return object_; }
    T& operator*() const { return *object_; }
    explicit operator bool() const { return object_ != nullptr; }

private:
    T* object_ = nullptr;
};

template <typename T, typename... Args>
Result<UniquePtr<T>> make_unique(Gfp gfp, Args&&... args)
{
    T* object = allocate<T>(gfp, forward<Args>(args)...);
    if (!object)
        return Error(err::kNoMem);
    return UniquePtr<T>(object);
}

}  // namespace cxxrt
