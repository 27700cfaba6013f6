/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contract between the C files of rtrs-client (rtrs-clt-mod.c,
 * rtrs-clt-export.c) and its C++ (rtrs-clt*.cpp), beyond the C API of
 * include/rtrs/rtrs-api.h that the C++ defines itself.
 */
#ifndef RTRS_CLT_UPCALLS_H
#define RTRS_CLT_UPCALLS_H

#include <cxxrt/kapi.h>
#include <rtrs/rtrs-api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * KAPI: module_init, process context. 0 or a negative errno (-EINVAL:
 * @read_slots outside 0..4096).
 */
int rtrs_clt_cxx_init(int read_slots) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_clt_cxx_exit(void) KAPI_NOEXCEPT;

/*
 * Behind rtrs_client_open/close (include/rtrs/rtrs-api.h), whose C side
 * holds the module reference: open returns the session or an ERR_PTR, as
 * rtrs_client_open does. The rest of that API is defined in C++ directly.
 */
struct rtrs_client_session *rtrs_clt_cxx_open(const struct rtrs_client_callbacks *callbacks,
					      const struct rtrs_client_open_params *params) KAPI_NOEXCEPT;
void rtrs_clt_cxx_close(struct rtrs_client_session *session) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
