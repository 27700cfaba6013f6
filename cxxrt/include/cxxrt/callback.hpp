// Callback: a function pointer plus a context pointer, the C way of naming
// "call this member on that object" without virtual or heap allocation.
// Used by Work/DelayedWork (work.hpp) and sysfs::Kobject (sysfs.hpp).
// CallbackWith<Args...> is the same with arguments (the RDMA layer's
// completion handlers and batch observers).
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

// fn(context, args...): a Callback whose function takes arguments.
template <typename... Args>
class CallbackWith {
public:
    using Fn = void (*)(void* context, Args... args);

    constexpr CallbackWith() = default;
    constexpr CallbackWith(Fn fn, void* context) : fn_(fn), context_(context) {}

    // A non-static member function void T::m(Args...) on `object`.
    template <auto Method, typename T>
    static constexpr CallbackWith to(T* object)
    {
        return CallbackWith(&invoke_member<T, Method>, object);
    }

    constexpr explicit operator bool() const { return fn_ != nullptr; }
    void operator()(Args... args) const
    {
        if (fn_)
            fn_(context_, args...);
    }
    // For a callback known to be set (no test on a completion path).
    void call(Args... args) const { fn_(context_, args...); }
    void* context() const { return context_; }

private:
    template <typename T, auto Method>
    static void invoke_member(void* context, Args... args)
    {
        (static_cast<T*>(context)->*Method)(args...);
    }

    Fn fn_ = nullptr;
    void* context_ = nullptr;
};

}  // namespace cxxrt
