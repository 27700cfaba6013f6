// Callback: a function pointer plus a context pointer, the C way of naming
// "call this member on that object" without virtual or heap allocation.
// Used by Work/DelayedWork (work.hpp) and sysfs::Kobject (sysfs.hpp).
//
//   Work work_{Callback::to<&Path::reconnect>(this)};
#pragma once

namespace cxxrt {

class Callback {
public:
    using Fn = void (*)(void* context);

    constexpr Callback() = default;
    constexpr Callback(Fn fn, void* context) : fn_(fn), context_(context) {}

    // A non-static member function void T::m() on `object`.
    template <auto Method, typename T>
    static constexpr Callback to(T* object)
    {
        return Callback(&invoke_member<T, Method>, object);
    }

    constexpr explicit operator bool() const { return fn_ != nullptr; }
    void operator()() const
    {
        if (fn_)
            fn_(context_);
    }

private:
    template <typename T, auto Method>
    static void invoke_member(void* context)
    {
        (static_cast<T*>(context)->*Method)();
    }

    Fn fn_ = nullptr;
    void* context_ = nullptr;
};

}  // namespace cxxrt
