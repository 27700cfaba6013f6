/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contract between the C files of rtrs-server and its C++ (rtrs-srv*.cpp),
 * beyond the C API of include/rtrs/rtrs-api.h that the C++ defines itself.
 */
#ifndef RTRS_SRV_UPCALLS_H
#define RTRS_SRV_UPCALLS_H

#include <cxxrt/kapi.h>
#include <rtrs/rtrs-api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The per-client limits and the connection budget (module parameters). */
struct rtrs_srv_client_limits {
	int sessions_per_client;
	int connections_per_path;
	int connections_per_client;
	int connections;
};

/* KAPI: module_init, process context. Validates the parameters. */
int rtrs_srv_cxx_init(int max_chunk_size, int sess_queue_depth, bool always_invalidate, int max_sessions,
		      int info_timeout_ms, const struct rtrs_srv_client_limits *limits) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_srv_cxx_exit(void) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
