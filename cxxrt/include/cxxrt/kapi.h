/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C ABI that C++ calls down into: the cxxrt part of the C boundary.
 * Includable from C and C++. No kernel types cross this line: kernel objects
 * are opaque storage owned by C++ (sizes from the generated kabi.h) and are
 * passed as void pointers; C casts them back. Each function does one kernel
 * call or macro; the implementations live in the cxxrt/kapi folder.
 */
#ifndef CXXRT_KAPI_H
#define CXXRT_KAPI_H

#ifdef __cplusplus
extern "C" {
#define KAPI_NOEXCEPT noexcept
#else
#define KAPI_NOEXCEPT
#endif

#define KAPI_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Memory. KAPI: any context if gfp allows; returns NULL on failure. */
void *kapi_kmalloc(unsigned long size, unsigned int gfp) KAPI_NOEXCEPT;
void *kapi_kzalloc(unsigned long size, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_kfree(const void *ptr) KAPI_NOEXCEPT;
/* Large buffers (vmalloc). KAPI: process context. */
void *kapi_vzalloc(unsigned long size) KAPI_NOEXCEPT;
void kapi_vfree(const void *ptr) KAPI_NOEXCEPT;
/* Whole pages (alloc_pages_exact): physically contiguous, not slab. KAPI:
 * any context if gfp allows; free with the same size. */
void *kapi_alloc_pages_exact(unsigned long size, unsigned int gfp) KAPI_NOEXCEPT;
void kapi_free_pages_exact(void *ptr, unsigned long size) KAPI_NOEXCEPT;

/* Logging. level: 0 emerg ... 7 debug (printk levels). Any context. */
void kapi_vlog(int level, const char *fmt, __builtin_va_list args) KAPI_NOEXCEPT;
void kapi_vlog_ratelimited(int level, const char *fmt, __builtin_va_list args) KAPI_NOEXCEPT;
/* WARN(1, ...): a splat with a backtrace; the VM test runner fails on it. */
void kapi_warn(const char *message) KAPI_NOEXCEPT;
/* Formats into a buffer (sysfs show), like scnprintf: returns bytes written. */
int kapi_scnprintf(char *buf, unsigned long size, const char *fmt, ...) KAPI_NOEXCEPT KAPI_PRINTF(3, 4);
const char *kapi_module_name(void) KAPI_NOEXCEPT;

/*
 * Lock init takes the lockdep class: `key` is a static struct lock_class_key
 * (storage: KABI_SIZEOF_LOCK_CLASS_KEY, in a cxxrt::LockClass) and `name` the
 * class's name as lockdep prints it. Both must outlive the module.
 */

/* Spinlocks (storage: KABI_SIZEOF_SPINLOCK). Never sleep while held. */
void kapi_spin_init(void *lock, const char *name, void *key) KAPI_NOEXCEPT;
void kapi_spin_lock(void *lock) KAPI_NOEXCEPT;
void kapi_spin_lock_nested(void *lock, unsigned int subclass) KAPI_NOEXCEPT;
void kapi_spin_unlock(void *lock) KAPI_NOEXCEPT;
void kapi_spin_lock_bh(void *lock) KAPI_NOEXCEPT;
void kapi_spin_unlock_bh(void *lock) KAPI_NOEXCEPT;
unsigned long kapi_spin_lock_irqsave(void *lock) KAPI_NOEXCEPT;
void kapi_spin_unlock_irqrestore(void *lock, unsigned long flags) KAPI_NOEXCEPT;
int kapi_spin_is_locked(void *lock) KAPI_NOEXCEPT;

/* Mutexes (storage: KABI_SIZEOF_MUTEX). Process context only; may sleep. */
void kapi_mutex_init(void *mutex, const char *name, void *key) KAPI_NOEXCEPT;
void kapi_mutex_destroy(void *mutex) KAPI_NOEXCEPT;
void kapi_mutex_lock(void *mutex) KAPI_NOEXCEPT;
void kapi_mutex_lock_nested(void *mutex, unsigned int subclass) KAPI_NOEXCEPT;
int kapi_mutex_trylock(void *mutex) KAPI_NOEXCEPT;
void kapi_mutex_unlock(void *mutex) KAPI_NOEXCEPT;
int kapi_mutex_is_locked(void *mutex) KAPI_NOEXCEPT;

/* RCU read-side sections. Any context; no sleeping inside. */
void kapi_rcu_read_lock(void) KAPI_NOEXCEPT;
void kapi_rcu_read_unlock(void) KAPI_NOEXCEPT;
void kapi_synchronize_rcu(void) KAPI_NOEXCEPT;

/* Context. */
int kapi_in_atomic_context(void) KAPI_NOEXCEPT;
void kapi_might_sleep(void) KAPI_NOEXCEPT;
unsigned int kapi_smp_processor_id(void) KAPI_NOEXCEPT;
unsigned long long kapi_ktime_ns(void) KAPI_NOEXCEPT;
/* local_clock(): this CPU's clock in ns; any context. */
unsigned long long kapi_local_clock_ns(void) KAPI_NOEXCEPT;
/* Bottom halves (softirqs) off on this CPU and back on; nest. */
void kapi_local_bh_disable(void) KAPI_NOEXCEPT;
void kapi_local_bh_enable(void) KAPI_NOEXCEPT;
/* get_random_bytes: any context. */
void kapi_get_random_bytes(void *buffer, unsigned int length) KAPI_NOEXCEPT;

/* debugfs (may sleep). A read-only seq file shows a C++ cxxrt::SeqSource. */
void *kapi_debugfs_create_dir(const char *name, void *parent) KAPI_NOEXCEPT;
void kapi_debugfs_create_seq_file(const char *name, void *parent, void *source) KAPI_NOEXCEPT;
void kapi_debugfs_create_u64(const char *name, void *parent, unsigned long long *value) KAPI_NOEXCEPT;
void kapi_debugfs_remove(void *dentry) KAPI_NOEXCEPT;
void kapi_seq_printf(void *seq, const char *fmt, ...) KAPI_NOEXCEPT KAPI_PRINTF(2, 3);

/* Upcalls: implemented in C++ (cxxrt/src), called from the C boundary. */
int cxxrt_cxx_seq_show(void *seq, void *source) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_KAPI_H */
