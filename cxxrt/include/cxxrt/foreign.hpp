// Handing an owning pointer to C as a void* and taking it back (the shape of
// Rust-for-Linux's ForeignOwnable). C keeps a context pointer (a callback's
// `void* context`, a kernel object's private data); the reference or the
// object that pointer stands for is owned by C until it is taken back:
//
//     void* context = cxxrt::into_foreign(move(reply));        // C owns the reference
//     ...
//     RefPtr<Reply> reply = cxxrt::from_foreign<RefPtr<Reply>>(context);  // ours again
//     Reply* peek = cxxrt::borrow_foreign<RefPtr<Reply>>(context);      // C still owns it
//
// into_foreign of an empty pointer gives nullptr, and from_foreign(nullptr)
// an empty pointer. Each into_foreign is matched by exactly one from_foreign
// (which ends C's ownership); borrow_foreign does not change ownership and
// its result is valid only while C's ownership lasts.
#pragma once

#include <cxxrt/ref_counted.hpp>
#include <cxxrt/unique_ptr.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

// How one owning pointer type crosses to C; specialised below.
template <typename Owner>
struct ForeignOwnable;

template <typename T>
struct ForeignOwnable<RefPtr<T>> {
    using Target = T;
    static void* into(RefPtr<T>& owner) { return static_cast<void*>(owner.leak_ref()); }
    static RefPtr<T> from(void* pointer) { return RefPtr<T>(Adopt::kAdopt, static_cast<T*>(pointer)); }
};

template <typename T>
struct ForeignOwnable<UniquePtr<T>> {
    using Target = T;
    static void* into(UniquePtr<T>& owner) { return static_cast<void*>(owner.release()); }
    static UniquePtr<T> from(void* pointer) { return UniquePtr<T>(static_cast<T*>(pointer)); }
};

// Gives what owner holds to C; owner is empty afterwards.
template <typename Owner>
[[nodiscard]] void* into_foreign(Owner&& owner)
{
    static_assert(!kIsLvalueReference<Owner>, "into_foreign takes the pointer: pass move(owner)");
    return ForeignOwnable<RemoveReferenceT<Owner>>::into(owner);
}

// Takes back what into_foreign gave to C.
template <typename Owner>
[[nodiscard]] Owner from_foreign(void* pointer)
{
    return ForeignOwnable<Owner>::from(pointer);
}

// The object C owns, without taking it (null for nullptr).
template <typename Owner>
typename ForeignOwnable<Owner>::Target* borrow_foreign(void* pointer)
{
    return static_cast<typename ForeignOwnable<Owner>::Target*>(pointer);
}

}  // namespace cxxrt
