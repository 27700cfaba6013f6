// Checks for the in-kernel test modules (cxxrt, rtrs): a test case is a
// `bool f()` that returns false on the first failed check, after logging
// what failed and where ("#   " prefixes a KTAP diagnostic line).
//
//     EXPECT(slots.size() == 4);          // a condition
//     EXPECT_OK(session.open(...));       // a Result<...> that must not be an error
#pragma once

#include <cxxrt/log.hpp>

#define EXPECT(condition)                                                                       \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            ::cxxrt::log::err("#   check failed: %s (%s:%d)", #condition, __FILE__, __LINE__);  \
            return false;                                                                       \
        }                                                                                       \
    } while (0)

#define EXPECT_OK(expression)                                                                              \
    do {                                                                                                   \
        auto&& _r = (expression);                                                                          \
        if (_r.is_error()) {                                                                               \
            ::cxxrt::log::err("#   %s failed: %d (%s:%d)", #expression, _r.to_errno(), __FILE__, __LINE__); \
            return false;                                                                                  \
        }                                                                                                  \
    } while (0)
