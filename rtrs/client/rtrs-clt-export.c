// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-client's exported C API (include/rtrs/rtrs-api.h). Open and close
 * wrap their C++ upcalls in a reference on this module, held for as long as
 * the session lives, so rmmod is refused meanwhile. The other functions are
 * defined in C++ (rtrs-clt.cpp) under their API names and only exported
 * here, where genksyms sees their rtrs-api.h declarations for modversions.
 */
#include <linux/err.h>
#include <linux/export.h>
#include <linux/module.h>
#include "rtrs-clt-upcalls.h"

struct rtrs_client_session *rtrs_client_open(const struct rtrs_client_callbacks *callbacks,
					     const struct rtrs_client_open_params *params)
{
	struct rtrs_client_session *session;

	if (!try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	session = rtrs_clt_cxx_open(callbacks, params);
	if (IS_ERR(session))
		module_put(THIS_MODULE);
	return session;
}
EXPORT_SYMBOL_GPL(rtrs_client_open);

void rtrs_client_close(struct rtrs_client_session *session)
{
	rtrs_clt_cxx_close(session);
	module_put(THIS_MODULE);
}
EXPORT_SYMBOL_GPL(rtrs_client_close);

EXPORT_SYMBOL_GPL(rtrs_client_query);
EXPORT_SYMBOL_GPL(rtrs_client_get_permit);
EXPORT_SYMBOL_GPL(rtrs_client_get_permit_timeout);
EXPORT_SYMBOL_GPL(rtrs_client_put_permit);
EXPORT_SYMBOL_GPL(rtrs_client_permit_header);
EXPORT_SYMBOL_GPL(rtrs_client_request);
EXPORT_SYMBOL_GPL(rtrs_client_request_polled);
EXPORT_SYMBOL_GPL(rtrs_client_poll);
EXPORT_SYMBOL_GPL(rtrs_client_set_io_hold_timeout);
EXPORT_SYMBOL_GPL(rtrs_client_abort);
