/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Contract between the C files of rtrs-server and its C++ (rtrs-srv*.cpp). */
#ifndef RTRS_SRV_UPCALLS_H
#define RTRS_SRV_UPCALLS_H

#include <cxxrt/kapi.h>
#include <rtrs/rtrs-api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. Validates the parameters. */
int rtrs_srv_cxx_init(int max_chunk_size, int sess_queue_depth, bool always_invalidate, int max_sessions,
		      int info_timeout_ms) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_srv_cxx_exit(void) KAPI_NOEXCEPT;

/* The rtrs_server_* API (include/rtrs/rtrs-api.h); contexts documented there. */
struct rtrs_server_context *rtrs_srv_cxx_open(const struct rtrs_server_callbacks *callbacks,
					      unsigned short port) KAPI_NOEXCEPT;
void rtrs_srv_cxx_close(struct rtrs_server_context *context) KAPI_NOEXCEPT;
void rtrs_srv_cxx_set_session_context(struct rtrs_server_session *session, void *context) KAPI_NOEXCEPT;
int rtrs_srv_cxx_session_name(struct rtrs_server_session *session, char *buffer, unsigned int size) KAPI_NOEXCEPT;
unsigned int rtrs_srv_cxx_queue_depth(struct rtrs_server_session *session) KAPI_NOEXCEPT;
void rtrs_srv_cxx_respond(struct rtrs_server_io *io, int error) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
