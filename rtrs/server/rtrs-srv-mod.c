// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-server: module entry points, parameters, and the exports of the C
 * API, which the C++ implements (rtrs-srv*.cpp).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include "rtrs-srv-upcalls.h"

static int max_chunk_size = 128 << 10;
module_param(max_chunk_size, int, 0444);
MODULE_PARM_DESC(max_chunk_size, "Bytes of one server chunk: the largest IO plus 4096 of headers (default 131072; a power of two >= 8192)");

static int sess_queue_depth = 512;
module_param(sess_queue_depth, int, 0444);
MODULE_PARM_DESC(sess_queue_depth, "Chunks (IOs in flight) per session and path (default 512, 1..65535)");

static bool always_invalidate = true;
module_param(always_invalidate, bool, 0444);
MODULE_PARM_DESC(always_invalidate, "Invalidate a chunk's registration before its IO is used and register it anew after (default Y)");

static int max_sessions = 64;
module_param(max_sessions, int, 0444);
MODULE_PARM_DESC(max_sessions, "Client sessions kept at once; each pins sess_queue_depth * max_chunk_size bytes of chunks, further sessions are refused with ECONNREFUSED (default 64, 1..65535)");

static int info_timeout_ms = 10000;
module_param(info_timeout_ms, int, 0444);
MODULE_PARM_DESC(info_timeout_ms, "A path that has not finished its INFO exchange this many milliseconds after its first connect request is closed (default 10000, 1000..300000)");

static int max_sessions_per_client = 8;
module_param(max_sessions_per_client, int, 0444);
MODULE_PARM_DESC(max_sessions_per_client, "Sessions one client (an IPv4 address, an IPv6 /64, a GID) may hold, so that one client cannot take every slot of max_sessions; further sessions of that client are refused with EBUSY (default 8: a client opens one session per session name it maps under; 1..65535)");

static int max_connections_per_path = 512;
module_param(max_connections_per_path, int, 0444);
MODULE_PARM_DESC(max_connections_per_path, "Connections one path may announce (its cid_num); a path asking more is refused with EINVAL (default 512: a client opens one per possible CPU + 1, plus its poll queues, so 512 serves 511 CPUs, or 255 with as many poll queues; 1..4096)");

static int max_connections_per_client = 1024;
module_param(max_connections_per_client, int, 0444);
MODULE_PARM_DESC(max_connections_per_client, "Connections of all the sessions of one client; further ones are refused with EBUSY (default 1024, two paths of max_connections_per_path; 1..1048576)");

static int max_connections = 8192;
module_param(max_connections, int, 0444);
MODULE_PARM_DESC(max_connections, "Connections the server holds at once, each a CQ and a QP sized by sess_queue_depth (about 1 MiB at the defaults); further ones are refused with ENOSPC (default 8192: 8 clients at max_connections_per_client; 1..1048576)");

static int __init rtrs_srv_module_init(void)
{
	const struct rtrs_srv_client_limits limits = {
		.sessions_per_client = max_sessions_per_client,
		.connections_per_path = max_connections_per_path,
		.connections_per_client = max_connections_per_client,
		.connections = max_connections,
	};

	return rtrs_srv_cxx_init(max_chunk_size, sess_queue_depth, always_invalidate, max_sessions, info_timeout_ms,
				 &limits);
}

static void __exit rtrs_srv_module_exit(void)
{
	rtrs_srv_cxx_exit();
}

/*
 * Defined in C++ (rtrs-srv.cpp) under their API names; exported here, where
 * genksyms sees their rtrs-api.h declarations for modversions.
 */
EXPORT_SYMBOL_GPL(rtrs_server_open);
EXPORT_SYMBOL_GPL(rtrs_server_close);
EXPORT_SYMBOL_GPL(rtrs_server_set_session_context);
EXPORT_SYMBOL_GPL(rtrs_server_session_name);
EXPORT_SYMBOL_GPL(rtrs_server_queue_depth);
EXPORT_SYMBOL_GPL(rtrs_server_chunk_size);
EXPORT_SYMBOL_GPL(rtrs_server_close_session);
EXPORT_SYMBOL_GPL(rtrs_server_session_client_addresses);
EXPORT_SYMBOL_GPL(rtrs_server_respond);
EXPORT_SYMBOL_GPL(rtrs_server_io_chunk);

module_init(rtrs_srv_module_init);
module_exit(rtrs_srv_module_exit);

MODULE_DESCRIPTION("RTRS server: RDMA transport, server side (C++)");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.1");
