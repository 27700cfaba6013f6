/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Contract between rnbd-srv-mod.c (C) and the rnbd-server C++ (rnbd-srv*.cpp). */
#ifndef RNBD_SRV_KAPI_H
#define RNBD_SRV_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rnbd_srv_cxx_init(unsigned short port) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rnbd_srv_cxx_exit(void) KAPI_NOEXCEPT;

/* The dev_search_path parameter (fixed after load). KAPI: any context. */
const char *rnbd_srv_dev_search_path(void) KAPI_NOEXCEPT;
/*
 * A reference on this module, held per exported mapping so that rmmod is
 * refused while anything is exported. KAPI: any context.
 */
void rnbd_srv_module_get(void) KAPI_NOEXCEPT;
void rnbd_srv_module_put(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
