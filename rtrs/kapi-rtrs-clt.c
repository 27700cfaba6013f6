// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The small kernel calls rtrs-client's C++ needs beyond cxxrt and the RDMA
 * layer: random uuids, reading the caller's scatterlist, and a QP moved to
 * the error state for fault injection. One kernel call each.
 */
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
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

/*
 * KAPI: any context (the verbs allow it for a state change to ERR); @qp is a
 * struct ib_qp * the caller keeps alive. Fault injection only.
 */
int kapi_rtrs_clt_qp_to_error(void *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}
