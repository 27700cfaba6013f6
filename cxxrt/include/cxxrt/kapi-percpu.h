/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * C boundary: CPUs and per-CPU memory (cxxrt/kapi/kapi-percpu.c), used by
 * cxxrt/percpu.hpp. A per-CPU area is an opaque `void __percpu *` cookie:
 * never dereference it, turn it into a CPU's address with kapi_per_cpu_ptr.
 */
#ifndef CXXRT_KAPI_PERCPU_H
#define CXXRT_KAPI_PERCPU_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CPU numbers. Any context; online CPUs can change unless hotplug is held off. */
unsigned int kapi_nr_cpu_ids(void) KAPI_NOEXCEPT;
unsigned int kapi_num_online_cpus(void) KAPI_NOEXCEPT;
unsigned int kapi_num_possible_cpus(void) KAPI_NOEXCEPT;
int kapi_cpu_online(unsigned int cpu) KAPI_NOEXCEPT;
/* Iteration: next CPU after `cpu` (start with -1); >= nr_cpu_ids at the end. */
unsigned int kapi_next_online_cpu(int cpu) KAPI_NOEXCEPT;
unsigned int kapi_next_possible_cpu(int cpu) KAPI_NOEXCEPT;
/* get_cpu(): disables preemption, returns this CPU. Pair with kapi_put_cpu. */
unsigned int kapi_get_cpu(void) KAPI_NOEXCEPT;
void kapi_put_cpu(void) KAPI_NOEXCEPT;

/* Per-CPU memory, zeroed. Process context if gfp may sleep. NULL on failure. */
void *kapi_alloc_percpu(unsigned long size, unsigned long align, unsigned int gfp) KAPI_NOEXCEPT;
/* Process context (may sleep). NULL is accepted. */
void kapi_free_percpu(void *pcpu) KAPI_NOEXCEPT;
/* Any context: the address of `cpu`'s copy (cpu < nr_cpu_ids, possible). */
void *kapi_per_cpu_ptr(void *pcpu, unsigned int cpu) KAPI_NOEXCEPT;
/* Preemption disabled by the caller (kapi_get_cpu): this CPU's copy. */
void *kapi_this_cpu_ptr(void *pcpu) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* CXXRT_KAPI_PERCPU_H */
