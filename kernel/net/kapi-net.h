/* SPDX-License-Identifier: GPL-2.0-or-later */
/* C boundary of the network stack (kapi-net.c): one kernel call each. */
#ifndef KAPI_NET_H
#define KAPI_NET_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Interface index of a network device name in the initial namespace, or -ENODEV. KAPI: process context. */
int kapi_net_ifindex(const char *name) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
