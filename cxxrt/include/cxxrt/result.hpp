// Result<T>: a value or a negative errno. Errors are values in this code base
// (no exceptions); [[nodiscard]] makes an ignored error a compile warning,
// and the kernel build turns warnings into failures.
#pragma once

#include <cxxrt/assert.hpp>
#include <cxxrt/errno.hpp>
#include <cxxrt/utility.hpp>

namespace cxxrt {

// A negative errno. Constructed from the positive constant: Error(err::kInval).
class [[nodiscard]] Error {
public:
    constexpr explicit Error(int positive_errno) : errno_(-positive_errno) {}
    static constexpr Error from_errno(int negative_errno) { return Error(-negative_errno); }

    constexpr int to_errno() const { return errno_; }  // negative, for the kernel
    constexpr int code() const { return -errno_; }     // positive, for comparisons
    constexpr bool operator==(const Error& other) const { return errno_ == other.errno_; }

private:
    int errno_;
};

template <typename T>
class [[nodiscard]] Result {
public:
    Result(const T& value) : has_value_(true) { new (&storage_) T(value); }
    Result(T&& value) : has_value_(true) { new (&storage_) T(move(value)); }
    constexpr Result(Error error) : has_value_(false), error_(error) {}

    Result(Result&& other) : has_value_(other.has_value_), error_(other.error_)
    {
        if (has_value_)
            new (&storage_) T(move(other.value_ref()));
    }
    Result(const Result&) = delete;
    Result& operator=(const Result&) = delete;
    Result& operator=(Result&&) = delete;

    ~Result()
    {
        if (has_value_)
            value_ref().~T();
    }

    constexpr bool is_ok() const { return has_value_; }
    constexpr bool is_error() const { return !has_value_; }
    constexpr explicit operator bool() const { return has_value_; }

    constexpr Error error() const { return error_; }

    // Only on a success: an error's value is a bug (asserted in debug builds).
    T& value() & { return value_ref(); }
    const T& value() const& { return value_ref(); }
    T release_value() { return move(value_ref()); }

    T value_or(T fallback) const { return has_value_ ? value_ref() : fallback; }

    // Collapses to the kernel convention: 0 or a negative errno.
    constexpr int to_errno() const { return has_value_ ? 0 : error_.to_errno(); }

private:
    T& value_ref()
    {
        CXXRT_DEBUG_ASSERT(has_value_);
        return *reinterpret_cast<T*>(&storage_);
    }
    const T& value_ref() const
    {
        CXXRT_DEBUG_ASSERT(has_value_);
        return *reinterpret_cast<const T*>(&storage_);
    }

    alignas(T) unsigned char storage_[sizeof(T)];
    bool has_value_;
    Error error_ = Error(0);
};

template <>
class [[nodiscard]] Result<void> {
public:
    constexpr Result() = default;
    constexpr Result(Error error) : error_(error) {}

    constexpr bool is_ok() const { return error_.to_errno() == 0; }
    constexpr bool is_error() const { return !is_ok(); }
    constexpr explicit operator bool() const { return is_ok(); }
    constexpr Error error() const { return error_; }
    constexpr int to_errno() const { return error_.to_errno(); }

private:
    Error error_ = Error(0);
};

// Converts a kernel return value (0 or negative errno) into a Result.
constexpr Result<void> to_result(int rc)
{
    if (rc < 0)
        return Error::from_errno(rc);
    return {};
}

}  // namespace cxxrt

// Placement new is needed by Result; declare it here without <new>.
#ifndef CXXRT_PLACEMENT_NEW_DECLARED
#define CXXRT_PLACEMENT_NEW_DECLARED
#if __has_include(<new>) && defined(CXXRT_HOST)
#include <new>
#else
inline void* operator new(cxxrt::size_t, void* where) noexcept { return where; }
inline void operator delete(void*, void*) noexcept {}
#endif
#endif

// Evaluates a Result-returning expression; on error returns the error from
// the enclosing function, otherwise yields the value (statement expression,
// a GNU extension that both g++ and clang++ support).
#define CXXRT_TRY(expression)                              \
    ({                                                     \
        auto _cxxrt_result = (expression);                 \
        if (_cxxrt_result.is_error())                      \
            return _cxxrt_result.error();                  \
        ::cxxrt::ResultValue<decltype(_cxxrt_result)>::take(_cxxrt_result); \
    })

namespace cxxrt {
template <typename R> struct ResultValue;
template <typename T> struct ResultValue<Result<T>> {
    static T take(Result<T>& r) { return r.release_value(); }
};
template <> struct ResultValue<Result<void>> {
    static void take(Result<void>&) {}
};
}  // namespace cxxrt

namespace cxxrt {

// A Result whose error may carry a static text saying why, for the caller's
// log line ("" when the error has none): a refusal travels with its errno.
//
//     if (writable && read_only)
//         return ResultWithReason<Backend*>(Error(err::kAccess), "read-write open of a read-only device");
//     auto opened = open(...);
//     if (!opened) log::err("cannot open: %s", opened.reason());
//
// CXXRT_TRY passes the error on and drops the reason.
template <typename T>
class [[nodiscard]] ResultWithReason : public Result<T> {
public:
    ResultWithReason(T&& value) : Result<T>(move(value)) {}
    ResultWithReason(const T& value) : Result<T>(value) {}
    ResultWithReason(Error error, const char* reason = "") : Result<T>(error), reason_(reason) {}

    const char* reason() const { return reason_; }

private:
    const char* reason_ = "";
};

template <typename T> struct ResultValue<ResultWithReason<T>> {
    static T take(ResultWithReason<T>& r) { return r.release_value(); }
};

}  // namespace cxxrt
