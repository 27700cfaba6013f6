// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rnbd-client C boundary: scatterlists and the transport handle
 * (see kapi-blk.h). One kernel call each.
 */
#include <linux/err.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
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

/* KAPI: process context, sleeps while the paths connect. */
int rnbd_kapi_rtrs_open(const struct rtrs_client_callbacks *callbacks, const struct rtrs_client_open_params *params,
			struct rtrs_client_session **out)
{
	struct rtrs_client_session *session = rtrs_client_open(callbacks, params);

	if (IS_ERR(session))
		return PTR_ERR(session);
	*out = session;
	return 0;
}

/* KAPI: process context. */
int rnbd_kapi_ifindex(const char *name)
{
	struct net_device *dev = dev_get_by_name(&init_net, name);
	int index;

	if (!dev)
		return -ENODEV;
	index = dev->ifindex;
	dev_put(dev);
	return index;
}
