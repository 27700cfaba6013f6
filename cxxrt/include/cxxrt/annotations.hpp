// Clang thread-safety annotations. The modules are built with gcc, where
// these expand to nothing; tools/lint.sh runs clang -Wthread-safety over the
// same sources so lock discipline is checked at compile time.
#pragma once

#if defined(__clang__)
#define CXXRT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CXXRT_THREAD_ANNOTATION(x)
#endif

#define CXXRT_CAPABILITY(name) CXXRT_THREAD_ANNOTATION(capability(name))
#define CXXRT_SCOPED_CAPABILITY CXXRT_THREAD_ANNOTATION(scoped_lockable)
#define CXXRT_GUARDED_BY(lock) CXXRT_THREAD_ANNOTATION(guarded_by(lock))
#define CXXRT_PT_GUARDED_BY(lock) CXXRT_THREAD_ANNOTATION(pt_guarded_by(lock))
#define CXXRT_REQUIRES(...) CXXRT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define CXXRT_ACQUIRE(...) CXXRT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define CXXRT_RELEASE(...) CXXRT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define CXXRT_TRY_ACQUIRE(...) CXXRT_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define CXXRT_EXCLUDES(...) CXXRT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// On an accessor that returns a member lock: locking what it returns counts
// as locking that member (so `Guard g(obj.lock())` satisfies GUARDED_BY).
#define CXXRT_RETURN_CAPABILITY(lock) CXXRT_THREAD_ANNOTATION(lock_returned(lock))
#define CXXRT_NO_THREAD_SAFETY_ANALYSIS CXXRT_THREAD_ANNOTATION(no_thread_safety_analysis)
