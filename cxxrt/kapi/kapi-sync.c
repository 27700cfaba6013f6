// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: locks, RCU, context queries. C++ owns the storage (sized by
 * cxxrt-kabi.h); these functions cast it back. One kernel call each.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/ktime.h>
#include <linux/sched/clock.h>
#include <linux/bottom_half.h>
#include <linux/random.h>
#include <cxxrt/kapi.h>

/*
 * KAPI: any context. spin_lock_init() has one static key per call site, so
 * the lock is then moved to the C++ declaration's own class.
 */
void kapi_spin_init(void *lock, const char *name, void *key)
{
	spin_lock_init((spinlock_t *)lock);
	lockdep_set_class_and_name((spinlock_t *)lock, (struct lock_class_key *)key, name);
}

void kapi_spin_lock(void *lock)
{
	spin_lock((spinlock_t *)lock);
}

void kapi_spin_lock_nested(void *lock, unsigned int subclass)
{
	spin_lock_nested((spinlock_t *)lock, subclass);
}

void kapi_spin_unlock(void *lock)
{
	spin_unlock((spinlock_t *)lock);
}

void kapi_spin_lock_bh(void *lock)
{
	spin_lock_bh((spinlock_t *)lock);
}

void kapi_spin_unlock_bh(void *lock)
{
	spin_unlock_bh((spinlock_t *)lock);
}

unsigned long kapi_spin_lock_irqsave(void *lock)
{
	unsigned long flags;

	spin_lock_irqsave((spinlock_t *)lock, flags);
	return flags;
}

void kapi_spin_unlock_irqrestore(void *lock, unsigned long flags)
{
	spin_unlock_irqrestore((spinlock_t *)lock, flags);
}

int kapi_spin_is_locked(void *lock)
{
	return spin_is_locked((spinlock_t *)lock);
}

/* KAPI: process context. The class (key, name) is the C++ declaration's own. */
void kapi_mutex_init(void *mutex, const char *name, void *key)
{
	__mutex_init((struct mutex *)mutex, name, (struct lock_class_key *)key);
}

void kapi_mutex_destroy(void *mutex)
{
	mutex_destroy((struct mutex *)mutex);
}

/* KAPI: process context, may sleep. */
void kapi_mutex_lock(void *mutex)
{
	mutex_lock((struct mutex *)mutex);
}

/* KAPI: process context, may sleep; an annotated nesting within one class. */
void kapi_mutex_lock_nested(void *mutex, unsigned int subclass)
{
	mutex_lock_nested((struct mutex *)mutex, subclass);
}

int kapi_mutex_trylock(void *mutex)
{
	return mutex_trylock((struct mutex *)mutex);
}

void kapi_mutex_unlock(void *mutex)
{
	mutex_unlock((struct mutex *)mutex);
}

int kapi_mutex_is_locked(void *mutex)
{
	return mutex_is_locked((struct mutex *)mutex);
}

void kapi_rcu_read_lock(void)
{
	rcu_read_lock();
}

void kapi_rcu_read_unlock(void)
{
	rcu_read_unlock();
}

/* KAPI: process context, sleeps for a grace period. */
void kapi_synchronize_rcu(void)
{
	synchronize_rcu();
}

int kapi_in_atomic_context(void)
{
	return !preemptible();
}

void kapi_might_sleep(void)
{
	might_sleep();
}

unsigned int kapi_smp_processor_id(void)
{
	return raw_smp_processor_id();
}

unsigned long long kapi_ktime_ns(void)
{
	return ktime_get_ns();
}

unsigned long long kapi_local_clock_ns(void)
{
	return local_clock();
}

void kapi_local_bh_disable(void)
{
	local_bh_disable();
}

void kapi_local_bh_enable(void)
{
	local_bh_enable();
}

void kapi_get_random_bytes(void *buffer, unsigned int length)
{
	get_random_bytes(buffer, length);
}
