// CXXRT_ASSERT: an invariant that must hold. On failure it logs the place
// through a normal (returning) kapi call and then executes a trap (ud2), which
// oopses with an ORC backtrace. A [[noreturn]] external call would confuse
// objtool (pitfall P10); a trap does not. Host builds abort the test instead.
#pragma once

#include <cxxrt/kapi.h>

namespace cxxrt::detail {
[[gnu::cold]] void assertion_failed(const char* expression, const char* file, int line);
}

#define CXXRT_ASSERT(expression)                                                  \
    do {                                                                          \
        if (__builtin_expect(!(expression), 0)) {                                 \
            ::cxxrt::detail::assertion_failed(#expression, __FILE__, __LINE__);    \
            __builtin_trap();                                                     \
        }                                                                         \
    } while (0)

// CXXRT_DEBUG_ASSERT: checked in debug builds only (CXXRT_DEBUG: the host
// tests and fuzzers, and modules built for a KASAN kernel), for checks on
// paths whose cost a release build does not pay. The expression is not
// evaluated otherwise.
#ifdef CXXRT_DEBUG
#define CXXRT_DEBUG_ASSERT(expression) CXXRT_ASSERT(expression)
#else
#define CXXRT_DEBUG_ASSERT(expression) \
    do {                               \
    } while (0)
#endif
