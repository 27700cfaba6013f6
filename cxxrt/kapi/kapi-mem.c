// SPDX-License-Identifier: GPL-2.0-or-later
/* C boundary: memory allocation. Each function is one kernel call. */
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <cxxrt/kapi.h>

/* KAPI: any context allowed by gfp; NULL on failure. */
void *kapi_kmalloc(unsigned long size, unsigned int gfp)
{
	return kmalloc(size, (gfp_t)gfp);
}

void *kapi_kzalloc(unsigned long size, unsigned int gfp)
{
	return kzalloc(size, (gfp_t)gfp);
}

/* KAPI: any context; ptr from kapi_k*alloc or NULL. */
void kapi_kfree(const void *ptr)
{
	kfree(ptr);
}

/* KAPI: any context allowed by gfp; NULL on failure. */
void *kapi_alloc_pages_exact(unsigned long size, unsigned int gfp)
{
	return alloc_pages_exact(size, (gfp_t)gfp);
}

/* KAPI: any context; ptr and size from kapi_alloc_pages_exact. */
void kapi_free_pages_exact(void *ptr, unsigned long size)
{
	free_pages_exact(ptr, size);
}

/* KAPI: process context (may sleep). Large, virtually contiguous memory. */
void *kapi_vzalloc(unsigned long size)
{
	return vzalloc(size);
}

/* KAPI: process context. */
void kapi_vfree(const void *ptr)
{
	vfree(ptr);
}
