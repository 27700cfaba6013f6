// ScopeGuard: runs a callable when the scope ends, unless dismissed
// (Zircon's fbl::AutoCall, SerenityOS's ScopeGuard). For the exits of a
// function that must all undo one step, so no return path can forget it:
//
//     submitters_.enter();
//     cxxrt::ScopeGuard leave([this] { submitters_.leave(); });
//     if (!connected())
//         return Error(err::kNotConn);   // leaves
//     ...
//
// dismiss() keeps the step (the success path hands it on); call() runs it
// now, once. Not copyable, not movable: the guard lives where it is made.
#pragma once

#include <cxxrt/utility.hpp>

namespace cxxrt {

template <typename Fn>
class [[nodiscard]] ScopeGuard : Pinned {
public:
    explicit ScopeGuard(Fn&& fn) : fn_(move(fn)) {}
    ~ScopeGuard() { call(); }

    // The scope end does nothing any more.
    void dismiss() { armed_ = false; }
    // Runs the callable now (if still armed); the scope end then does nothing.
    void call()
    {
        if (exchange(armed_, false))
            fn_();
    }
    bool armed() const { return armed_; }

private:
    Fn fn_;
    bool armed_ = true;
};

template <typename Fn>
ScopeGuard(Fn&&) -> ScopeGuard<RemoveReferenceT<Fn>>;

}  // namespace cxxrt
