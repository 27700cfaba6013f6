// Host stand-in for the generated kernel ABI header: host unit tests back
// cxxrt's lock wrappers with pthread objects, so the sizes are theirs (taken
// from the host's own headers, not hand-written).
#pragma once
#include <pthread.h>

#define KABI_SIZEOF_SPINLOCK sizeof(pthread_mutex_t)
#define KABI_ALIGNOF_SPINLOCK alignof(pthread_mutex_t)
#define KABI_SIZEOF_MUTEX sizeof(pthread_mutex_t)
#define KABI_ALIGNOF_MUTEX alignof(pthread_mutex_t)
// Lockdep keys: the host has no lockdep (like a kernel without it: empty).
#define KABI_SIZEOF_LOCK_CLASS_KEY 0
#define KABI_ALIGNOF_LOCK_CLASS_KEY 1

// GFP values only need to be distinct on the host.
#define KABI_GFP_KERNEL 0x1u
#define KABI_GFP_ATOMIC 0x2u
#define KABI_GFP_NOIO 0x4u
#define KABI_GFP_NOWAIT 0x8u
#define KABI___GFP_ZERO 0x100u
#define KABI_PAGE_SIZE 4096

// Wait queues on the host (kapi-host.cpp): a wake-up counter the waiting
// thread polls; completions are not backed on the host.
#define KABI_SIZEOF_WAIT_QUEUE_HEAD 8
#define KABI_ALIGNOF_WAIT_QUEUE_HEAD 8
#define KABI_SIZEOF_WAIT_QUEUE_ENTRY 8
#define KABI_ALIGNOF_WAIT_QUEUE_ENTRY 8
#define KABI_SIZEOF_COMPLETION 8
#define KABI_ALIGNOF_COMPLETION 8
