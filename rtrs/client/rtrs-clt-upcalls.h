/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contract between the C files of rtrs-client (rtrs-clt-mod.c,
 * rtrs-clt-export.c) and its C++ (rtrs-clt*.cpp).
 */
#ifndef RTRS_CLT_UPCALLS_H
#define RTRS_CLT_UPCALLS_H

#include <cxxrt/kapi.h>
#include <rtrs/rtrs-api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* KAPI: module_init, process context. 0 or a negative errno. */
int rtrs_clt_cxx_init(void) KAPI_NOEXCEPT;
/* KAPI: module_exit, process context. */
void rtrs_clt_cxx_exit(void) KAPI_NOEXCEPT;

/*
 * Upcalls behind the exported C API (include/rtrs/rtrs-api.h); each has the
 * context rules of the function it serves. open returns 0 and the session
 * in *session, or a negative errno.
 */
int rtrs_clt_cxx_open(const struct rtrs_client_callbacks *callbacks, const struct rtrs_client_open_params *params,
		      struct rtrs_client_session **session) KAPI_NOEXCEPT;
void rtrs_clt_cxx_close(struct rtrs_client_session *session) KAPI_NOEXCEPT;
int rtrs_clt_cxx_query(struct rtrs_client_session *session, struct rtrs_client_attributes *attributes) KAPI_NOEXCEPT;
struct rtrs_client_permit *rtrs_clt_cxx_get_permit(struct rtrs_client_session *session,
						   enum rtrs_wait wait) KAPI_NOEXCEPT;
void rtrs_clt_cxx_put_permit(struct rtrs_client_session *session, struct rtrs_client_permit *permit) KAPI_NOEXCEPT;
void *rtrs_clt_cxx_permit_header(struct rtrs_client_permit *permit) KAPI_NOEXCEPT;
int rtrs_clt_cxx_request(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			 enum rtrs_direction direction, unsigned int header_length, struct scatterlist *sg,
			 unsigned int sg_count, unsigned int data_length, rtrs_client_done_fn done,
			 void *done_context) KAPI_NOEXCEPT;
int rtrs_clt_cxx_request_polled(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
				unsigned int poll_queue, enum rtrs_direction direction, unsigned int header_length,
				struct scatterlist *sg, unsigned int sg_count, unsigned int data_length,
				rtrs_client_done_fn done, void *done_context) KAPI_NOEXCEPT;
int rtrs_clt_cxx_poll(struct rtrs_client_session *session, unsigned int poll_queue) KAPI_NOEXCEPT;
int rtrs_clt_cxx_set_io_hold_timeout(struct rtrs_client_session *session, unsigned int timeout_ms) KAPI_NOEXCEPT;
void rtrs_clt_cxx_abort(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			int final) KAPI_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif
