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
//
// The same file holds the other crossing: a C API's opaque handle (a struct
// the API declares and never defines, e.g. `struct rtrs_client_session`)
// that stands for one C++ object, and the kernel's ERR_PTR answer of a
// function that returns such a handle. Each pair is declared once, at global
// scope, after both types are declared:
//
//     CXXRT_FOREIGN_HANDLE(rtrs_client_session, rtrs::clt::Session);
//     rtrs_client_session* handle = cxxrt::to_handle(session);   // Session* -> handle
//     Session* session = cxxrt::from_handle(handle);             // and back
//     return cxxrt::to_handle_or_err_ptr(Session::open(...));    // Result<Session*> -> handle or ERR_PTR
//
// Both directions are checked against the declaration, so a permit's handle
// never becomes a session. The handle is the object's address: nothing is
// allocated or counted (ownership is what the C API's documentation says).
#pragma once

#include <cxxrt/result.hpp>
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

// The C handle type of a C++ type, and the C++ type of a C handle type;
// CXXRT_FOREIGN_HANDLE specialises both.
template <typename Object>
struct HandleOf;
template <typename Handle>
struct ObjectOf;

template <typename Object>
using HandleOfT = typename HandleOf<Object>::Type;
template <typename Handle>
using ObjectOfT = typename ObjectOf<Handle>::Type;

// The handle C is given for object (null for null).
template <typename Object>
HandleOfT<Object>* to_handle(Object* object)
{
    return reinterpret_cast<HandleOfT<Object>*>(object);
}

// The object a handle from to_handle stands for (null for null).
template <typename Handle>
ObjectOfT<Handle>* from_handle(Handle* handle)
{
    return reinterpret_cast<ObjectOfT<Handle>*>(handle);
}

// The kernel's ERR_PTR(error): the negative errno as a pointer value, in the
// top page that no object occupies (the caller tells it apart with IS_ERR).
template <typename T>
T* err_ptr(Error error)
{
    return reinterpret_cast<T*>(static_cast<long>(error.to_errno()));
}

// A C API's answer for a function that returns a handle: the object's
// handle, or ERR_PTR of the error.
template <typename Object>
HandleOfT<Object>* to_handle_or_err_ptr(const Result<Object*>& result)
{
    if (result.is_error())
        return err_ptr<HandleOfT<Object>>(result.error());
    return to_handle(result.value());
}

}  // namespace cxxrt

// Declares that the C API handle type HandleType (a struct tag, declared by
// the C header) stands for the C++ type ObjectType. At global scope.
#define CXXRT_FOREIGN_HANDLE(HandleType, ObjectType) \
    template <>                                       \
    struct cxxrt::HandleOf<ObjectType> {              \
        using Type = HandleType;                      \
    };                                                \
    template <>                                       \
    struct cxxrt::ObjectOf<HandleType> {              \
        using Type = ObjectType;                      \
    }
