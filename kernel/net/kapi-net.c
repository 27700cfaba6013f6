// SPDX-License-Identifier: GPL-2.0-or-later
/* Network stack C boundary (see kapi-net.h). One kernel call each. */
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include "kapi-net.h"

/* KAPI: process context. */
int kapi_net_ifindex(const char *name)
{
	struct net_device *dev = dev_get_by_name(&init_net, name);
	int index;

	if (!dev)
		return -ENODEV;
	index = dev->ifindex;
	dev_put(dev);
	return index;
}
