/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Contract between rtrs-srv-mod.c (C) and rtrs-srv.cpp (C++). */
#ifndef RTRS_SRV_KAPI_H
#define RTRS_SRV_KAPI_H

#include <cxxrt/kapi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rtrs_srv_cxx_init(void) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_srv_cxx_exit(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
