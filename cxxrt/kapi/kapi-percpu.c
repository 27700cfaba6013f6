// SPDX-License-Identifier: GPL-2.0-or-later
/* C boundary: CPU numbers and per-CPU memory. One kernel call or macro each. */
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <cxxrt/kapi-percpu.h>

/* KAPI: any context. */
unsigned int kapi_nr_cpu_ids(void)
{
	return nr_cpu_ids;
}

unsigned int kapi_num_online_cpus(void)
{
	return num_online_cpus();
}

unsigned int kapi_num_possible_cpus(void)
{
	return num_possible_cpus();
}

int kapi_cpu_online(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu);
}

/* KAPI: any context; the for_each_online_cpu() step. */
unsigned int kapi_next_online_cpu(int cpu)
{
	return cpumask_next(cpu, cpu_online_mask);
}

unsigned int kapi_next_possible_cpu(int cpu)
{
	return cpumask_next(cpu, cpu_possible_mask);
}

/* KAPI: any context; disables preemption until kapi_put_cpu(). */
unsigned int kapi_get_cpu(void)
{
	return get_cpu();
}

void kapi_put_cpu(void)
{
	put_cpu();
}

/* KAPI: process context unless gfp is atomic. The memory is zeroed. */
void *kapi_alloc_percpu(unsigned long size, unsigned long align, unsigned int gfp)
{
	return (void __force *)__alloc_percpu_gfp(size, align, (gfp_t)gfp);
}

/* KAPI: process context. */
void kapi_free_percpu(void *pcpu)
{
	free_percpu((void __percpu __force *)pcpu);
}

/* KAPI: any context. */
void *kapi_per_cpu_ptr(void *pcpu, unsigned int cpu)
{
	return per_cpu_ptr((void __percpu __force *)pcpu, cpu);
}

/* KAPI: preemption disabled by the caller. */
void *kapi_this_cpu_ptr(void *pcpu)
{
	return this_cpu_ptr((void __percpu __force *)pcpu);
}
