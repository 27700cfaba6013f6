/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Contract between rnbd-clt-mod.c (C) and rnbd-clt.cpp (C++). */
#ifndef RNBD_CLT_KAPI_H
#define RNBD_CLT_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rnbd_clt_cxx_init(void) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rnbd_clt_cxx_exit(void) KAPI_NOEXCEPT;
/* KAPI: try_module_get(THIS_MODULE): nonzero if the module is not going away. */
int rnbd_clt_module_get(void) KAPI_NOEXCEPT;
/* KAPI: module_put(THIS_MODULE). */
void rnbd_clt_module_put(void) KAPI_NOEXCEPT;
/* The control_timeout_ms parameter. KAPI: any context. */
unsigned int rnbd_clt_control_timeout_ms(void) KAPI_NOEXCEPT;
/*
 * Its setter (C++): parses `value` (milliseconds) and, when it is within
 * the documented range, stores it in *storage; else -EINVAL and the old
 * value stays. KAPI: process context, the parameter lock held.
 */
int rnbd_clt_cxx_set_control_timeout(const char *value, unsigned int *storage) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
