// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block driver C boundary: scatterlists (see kapi-blk.h). One kernel call
 * each.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "kapi-blk.h"

unsigned int kapi_sizeof_scatterlist(void)
{
	return sizeof(struct scatterlist);
}

unsigned int kapi_alignof_scatterlist(void)
{
	return __alignof__(struct scatterlist);
}

/* KAPI: any context. */
void kapi_block_sg_init_table(struct scatterlist *sg, unsigned int entries)
{
	sg_init_table(sg, entries);
}

/* KAPI: as gfp allows; `buffer` must be kmalloc'd (DMA-able), not on the stack. */
struct scatterlist *kapi_sg_alloc_one(void *buffer, unsigned int length, unsigned int gfp)
{
	struct scatterlist *sg = kmalloc(sizeof(*sg), gfp);

	if (sg)
		sg_init_one(sg, buffer, length);
	return sg;
}

/* KAPI: any context. What kapi_sg_alloc_one() returned, or NULL. */
void kapi_sg_free_one(struct scatterlist *sg)
{
	kfree(sg);
}
