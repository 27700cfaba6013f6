// printf-style log entry points; each forwards its va_list to the C boundary.
#include <cxxrt/assert.hpp>
#include <cxxrt/log.hpp>

namespace cxxrt::log {

#define CXXRT_DEFINE_LOG(name, level, sink)         \
    void name(const char* format, ...)              \
    {                                               \
        __builtin_va_list args;                     \
        __builtin_va_start(args, format);           \
        sink(level, format, args);                  \
        __builtin_va_end(args);                     \
    }
// A macro because va_start must be expanded inside each variadic function.
CXXRT_DEFINE_LOG(err, kErr, kapi_vlog)
CXXRT_DEFINE_LOG(warn, kWarning, kapi_vlog)
CXXRT_DEFINE_LOG(notice, kNotice, kapi_vlog)
CXXRT_DEFINE_LOG(info, kInfo, kapi_vlog)
CXXRT_DEFINE_LOG(debug, kDebug, kapi_vlog)
CXXRT_DEFINE_LOG(err_ratelimited, kErr, kapi_vlog_ratelimited)
CXXRT_DEFINE_LOG(warn_ratelimited, kWarning, kapi_vlog_ratelimited)
#undef CXXRT_DEFINE_LOG

}  // namespace cxxrt::log

namespace cxxrt::detail {

void assertion_failed(const char* expression, const char* file, int line)
{
    log::err("cxxrt: assertion failed: %s at %s:%d", expression, file, line);
}

}  // namespace cxxrt::detail
