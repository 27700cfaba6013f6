// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Block driver C boundary: scatterlists (see kapi-blk.h). One kernel call
 * each.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "kapi-blk.h"

unsigned int rnbd_kapi_sizeof_scatterlist(void)
{
	return sizeof(struct scatterlist);
}

unsigned int rnbd_kapi_alignof_scatterlist(void)
{
	return __alignof__(struct scatterlist);
}

/* KAPI: any context. */
void rnbd_kapi_sg_init_table(struct scatterlist *sg, unsigned int entries)
{
	sg_init_table(sg, entries);
}

/* KAPI: as gfp allows; `buffer` must be kmalloc'd (DMA-able), not on the stack. */
struct scatterlist *rnbd_kapi_sg_alloc_one(void *buffer, unsigned int length, unsigned int gfp)
{
	struct scatterlist *sg = kmalloc(sizeof(*sg), gfp);

	if (sg)
		sg_init_one(sg, buffer, length);
	return sg;
}
