// Kernel log from C++: printk levels, routed through kapi (pr_* needs
// KBUILD_MODNAME, which only the C side has). printf-format checked.
// Messages anything on the network or a user can trigger must use the
// rate-limited variants.
#pragma once

#include <cxxrt/kapi.h>

namespace cxxrt::log {

enum Level : int { kErr = 3, kWarning = 4, kNotice = 5, kInfo = 6, kDebug = 7 };

void err(const char* format, ...) KAPI_PRINTF(1, 2);
void warn(const char* format, ...) KAPI_PRINTF(1, 2);
void notice(const char* format, ...) KAPI_PRINTF(1, 2);
void info(const char* format, ...) KAPI_PRINTF(1, 2);
void debug(const char* format, ...) KAPI_PRINTF(1, 2);
void err_ratelimited(const char* format, ...) KAPI_PRINTF(1, 2);
void warn_ratelimited(const char* format, ...) KAPI_PRINTF(1, 2);

}  // namespace cxxrt::log
