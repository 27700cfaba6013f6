// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The small kernel calls rtrs-client's C++ needs beyond cxxrt and the RDMA
 * layer: random uuids and reading the
 * caller's scatterlist. One kernel call each.
 */
#include <linux/random.h>
#include <linux/scatterlist.h>
#include "rtrs-clt-kapi.h"

/* KAPI: any context. */
void kapi_rtrs_clt_random_bytes(void *buffer, unsigned int length)
{
	get_random_bytes(buffer, length);
}

/* KAPI: any context; NULL after the last entry (chained tables are followed). */
struct scatterlist *kapi_rtrs_clt_sg_next(struct scatterlist *sg)
{
	return sg_next(sg);
}

/* KAPI: any context; the entry's data in the kernel's linear map. */
void *kapi_rtrs_clt_sg_virt(struct scatterlist *sg)
{
	return sg_virt(sg);
}

/* KAPI: any context. */
unsigned int kapi_rtrs_clt_sg_length(struct scatterlist *sg)
{
	return sg->length;
}
