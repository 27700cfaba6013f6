// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-client's exported C API (include/rtrs/rtrs-api.h). Each function
 * forwards to its C++ upcall; open and close also hold a reference on this
 * module for as long as the session lives, so rmmod is refused meanwhile.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/module.h>
#include "rtrs-clt-upcalls.h"

struct rtrs_client_session *rtrs_client_open(const struct rtrs_client_callbacks *callbacks,
					     const struct rtrs_client_open_params *params)
{
	struct rtrs_client_session *session = NULL;
	int rc;

	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	rc = rtrs_clt_cxx_open(callbacks, params, &session);
	if (rc) {
		module_put(THIS_MODULE);
		return ERR_PTR(rc);
	}
	return session;
}
EXPORT_SYMBOL_GPL(rtrs_client_open);

void rtrs_client_close(struct rtrs_client_session *session)
{
	rtrs_clt_cxx_close(session);
	module_put(THIS_MODULE);
}
EXPORT_SYMBOL_GPL(rtrs_client_close);

int rtrs_client_query(struct rtrs_client_session *session, struct rtrs_client_attributes *attributes)
{
	return rtrs_clt_cxx_query(session, attributes);
}
EXPORT_SYMBOL_GPL(rtrs_client_query);

struct rtrs_client_permit *rtrs_client_get_permit(struct rtrs_client_session *session, enum rtrs_wait wait)
{
	return rtrs_clt_cxx_get_permit(session, wait);
}
EXPORT_SYMBOL_GPL(rtrs_client_get_permit);

void rtrs_client_put_permit(struct rtrs_client_session *session, struct rtrs_client_permit *permit)
{
	rtrs_clt_cxx_put_permit(session, permit);
}
EXPORT_SYMBOL_GPL(rtrs_client_put_permit);

void *rtrs_client_permit_header(struct rtrs_client_permit *permit)
{
	return rtrs_clt_cxx_permit_header(permit);
}
EXPORT_SYMBOL_GPL(rtrs_client_permit_header);

int rtrs_client_request(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			enum rtrs_direction direction, unsigned int header_length, struct scatterlist *sg,
			unsigned int sg_count, unsigned int data_length, rtrs_client_done_fn done, void *done_context)
{
	return rtrs_clt_cxx_request(session, permit, direction, header_length, sg, sg_count, data_length, done,
				    done_context);
}
EXPORT_SYMBOL_GPL(rtrs_client_request);

int rtrs_client_request_polled(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			       unsigned int poll_queue, enum rtrs_direction direction, unsigned int header_length,
			       struct scatterlist *sg, unsigned int sg_count, unsigned int data_length,
			       rtrs_client_done_fn done, void *done_context)
{
	return rtrs_clt_cxx_request_polled(session, permit, poll_queue, direction, header_length, sg, sg_count,
					   data_length, done, done_context);
}
EXPORT_SYMBOL_GPL(rtrs_client_request_polled);

int rtrs_client_poll(struct rtrs_client_session *session, unsigned int poll_queue)
{
	return rtrs_clt_cxx_poll(session, poll_queue);
}
EXPORT_SYMBOL_GPL(rtrs_client_poll);

int rtrs_client_set_io_hold_timeout(struct rtrs_client_session *session, unsigned int timeout_ms)
{
	return rtrs_clt_cxx_set_io_hold_timeout(session, timeout_ms);
}
EXPORT_SYMBOL_GPL(rtrs_client_set_io_hold_timeout);

void rtrs_client_abort(struct rtrs_client_session *session, struct rtrs_client_permit *permit, int final)
{
	rtrs_clt_cxx_abort(session, permit, final);
}
EXPORT_SYMBOL_GPL(rtrs_client_abort);
