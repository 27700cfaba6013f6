/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Contract between rtrs-clt-mod.c (C) and rtrs-clt.cpp (C++). */
#ifndef RTRS_CLT_KAPI_H
#define RTRS_CLT_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rtrs_clt_cxx_init(void) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_clt_cxx_exit(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
