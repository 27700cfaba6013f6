// Host implementation of the C boundary, so kernel-independent cxxrt code
// (allocation accounting, locks, logging) runs under googletest. Logs go to
// a buffer that tests can inspect.
#include <cxxrt/kapi.h>
#include <cxxrt/kapi-wait.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "cxxrt-kabi.h"
#include "kapi-host.hpp"

namespace host {
std::string g_log;
int g_warnings = 0;
}  // namespace host

extern "C" {

void* kapi_kmalloc(unsigned long size, unsigned int gfp) noexcept
{
    void* p = malloc(size ? size : 1);
    if (p && (gfp & KABI___GFP_ZERO))
        memset(p, 0, size);
    return p;
}
void* kapi_kzalloc(unsigned long size, unsigned int) noexcept { return calloc(1, size ? size : 1); }
void kapi_kfree(const void* ptr) noexcept { free(const_cast<void*>(ptr)); }
void* kapi_vzalloc(unsigned long size) noexcept { return calloc(1, size ? size : 1); }
void kapi_vfree(const void* ptr) noexcept { free(const_cast<void*>(ptr)); }
void* kapi_alloc_pages_exact(unsigned long size, unsigned int gfp) noexcept { return kapi_kmalloc(size, gfp); }
void kapi_free_pages_exact(void* ptr, unsigned long) noexcept { free(ptr); }

void kapi_vlog(int level, const char* fmt, va_list args) noexcept
{
    char line[512];
    vsnprintf(line, sizeof(line), fmt, args);
    host::g_log += "<" + std::to_string(level) + ">" + line + "\n";
}
void kapi_vlog_ratelimited(int level, const char* fmt, va_list args) noexcept { kapi_vlog(level, fmt, args); }
void kapi_warn(const char* message) noexcept
{
    ++host::g_warnings;
    host::g_log += std::string("WARN: ") + message + "\n";
}
int kapi_scnprintf(char* buf, unsigned long size, const char* fmt, ...) noexcept
{
    if (size == 0)
        return 0;
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(buf, size, fmt, args);
    va_end(args);
    if (n < 0)
        return 0;
    return n >= int(size) ? int(size) - 1 : n;
}
const char* kapi_module_name(void) noexcept { return "host"; }

void kapi_spin_init(void* lock, const char*, void*) noexcept
{
    pthread_mutex_init(static_cast<pthread_mutex_t*>(lock), nullptr);
}
void kapi_spin_lock(void* lock) noexcept { pthread_mutex_lock(static_cast<pthread_mutex_t*>(lock)); }
void kapi_spin_lock_nested(void* lock, unsigned int) noexcept { kapi_spin_lock(lock); }
void kapi_spin_unlock(void* lock) noexcept { pthread_mutex_unlock(static_cast<pthread_mutex_t*>(lock)); }
void kapi_spin_lock_bh(void* lock) noexcept { kapi_spin_lock(lock); }
void kapi_spin_unlock_bh(void* lock) noexcept { kapi_spin_unlock(lock); }
unsigned long kapi_spin_lock_irqsave(void* lock) noexcept
{
    kapi_spin_lock(lock);
    return 0x200;
}
void kapi_spin_unlock_irqrestore(void* lock, unsigned long) noexcept { kapi_spin_unlock(lock); }
int kapi_spin_is_locked(void* lock) noexcept
{
    auto* m = static_cast<pthread_mutex_t*>(lock);
    if (pthread_mutex_trylock(m) == 0) {
        pthread_mutex_unlock(m);
        return 0;
    }
    return 1;
}
void kapi_mutex_init(void* m, const char* name, void* key) noexcept { kapi_spin_init(m, name, key); }
void kapi_mutex_destroy(void* m) noexcept { pthread_mutex_destroy(static_cast<pthread_mutex_t*>(m)); }
void kapi_mutex_lock(void* m) noexcept { kapi_spin_lock(m); }
void kapi_mutex_lock_nested(void* m, unsigned int) noexcept { kapi_spin_lock(m); }
int kapi_mutex_trylock(void* m) noexcept { return pthread_mutex_trylock(static_cast<pthread_mutex_t*>(m)) == 0; }
void kapi_mutex_unlock(void* m) noexcept { kapi_spin_unlock(m); }
int kapi_mutex_is_locked(void* m) noexcept { return kapi_spin_is_locked(m); }

void kapi_rcu_read_lock(void) noexcept {}
void kapi_rcu_read_unlock(void) noexcept {}
void kapi_synchronize_rcu(void) noexcept {}
int kapi_in_atomic_context(void) noexcept { return 0; }
void kapi_might_sleep(void) noexcept {}
unsigned int kapi_smp_processor_id(void) noexcept { return 0; }
unsigned long long kapi_ktime_ns(void) noexcept { return 0; }
unsigned long long kapi_local_clock_ns(void) noexcept { return 0; }

void* kapi_debugfs_create_dir(const char*, void*) noexcept { return nullptr; }
void kapi_debugfs_create_seq_file(const char*, void*, void*) noexcept {}
void kapi_debugfs_create_u64(const char*, void*, unsigned long long*) noexcept {}
void kapi_debugfs_remove(void*) noexcept {}
void kapi_seq_printf(void*, const char*, ...) noexcept {}

// Wait queues: the waiter re-tests its predicate after every short sleep
// (cxxrt::WaitQueue's loop), so a wake-up needs no bookkeeping here; the
// head counts wake-ups for tests that want to see them. One tick is 1 ms.
void kapi_waitqueue_init(void* head, const char*, void*) noexcept { __atomic_store_n(static_cast<long*>(head), 0, __ATOMIC_SEQ_CST); }
void kapi_wake_up(void* head) noexcept { __atomic_fetch_add(static_cast<long*>(head), 1, __ATOMIC_SEQ_CST); }
void kapi_wake_up_all(void* head) noexcept { kapi_wake_up(head); }
// Host waiters never queue themselves: say one may wait, so every wake-up is counted.
int kapi_wq_has_sleeper(void*) noexcept { return 1; }
void kapi_wait_entry_init(void*) noexcept {}
long kapi_wait_prepare(void*, void*, int) noexcept { return 0; }
void kapi_wait_finish(void*, void*) noexcept {}
void kapi_schedule(void) noexcept { usleep(1000); }
long kapi_schedule_timeout(long timeout_jiffies) noexcept
{
    usleep(1000);
    return timeout_jiffies > 0 ? timeout_jiffies - 1 : 0;
}
unsigned long kapi_msecs_to_jiffies(unsigned long ms) noexcept { return ms; }
unsigned long kapi_jiffies_to_msecs(unsigned long jiffies) noexcept { return jiffies; }

}  // extern "C"
