/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kernel API of our RTRS transport, between rtrs-client/rtrs-server and
 * their users (rnbd-client/rnbd-server). Plain C: it crosses module
 * boundaries (EXPORT_SYMBOL_GPL from the C boundary files, checked by
 * modversions), so no C++ type appears here; sessions, paths and permits
 * are opaque handles.
 *
 * Names are rtrs_client_* / rtrs_server_*: none collides with a symbol of
 * Linux's own rtrs-core, rtrs-client or rtrs-server, so our client loads
 * beside the upstream server and the upstream client beside our server.
 */
#ifndef RTRS_API_H
#define RTRS_API_H

#ifdef __cplusplus
extern "C" {
#define RTRS_API_NOEXCEPT noexcept
#else
#define RTRS_API_NOEXCEPT
#endif

struct scatterlist;

/* An address as parsed from "ip:<v4>", "ip:<v6>" or "gid:<gid>". */
enum rtrs_address_family {
	RTRS_ADDRESS_NONE = 0,
	RTRS_ADDRESS_IPV4 = 1,
	RTRS_ADDRESS_IPV6 = 2,
	RTRS_ADDRESS_GID = 3,
};

struct rtrs_address {
	unsigned int family;           /* enum rtrs_address_family */
	unsigned char bytes[16];       /* IPv4 in the first 4 bytes, network order */
	unsigned short port;           /* host order */
	unsigned int scope_id;         /* IPv6 link-local scope, else 0 */
};

/* One path: an optional source and a destination. */
struct rtrs_path_address {
	struct rtrs_address source;    /* family NONE: let the CM choose */
	struct rtrs_address destination;
};

/* ---- client ---- */

struct rtrs_client_session;
struct rtrs_client_permit;

enum rtrs_link_event {
	/* No path left: new IO fails with -ENOTCONN; the user holds its IO
	 * (io_hold_timeout_ms) until RECONNECTED or HOLD_EXPIRED. */
	RTRS_LINK_DISCONNECTED = 0,
	RTRS_LINK_RECONNECTED = 1,     /* a path is back after a disconnect */
	/* io_hold_timeout_ms passed with no path back (at once if it is 0):
	 * the user fails what it holds. Only between DISCONNECTED and the
	 * next RECONNECTED, at most once per outage. */
	RTRS_LINK_HOLD_EXPIRED = 2,
};

struct rtrs_client_callbacks {
	void *context;
	/* KAPI: process context (a work item); may sleep, but is called under
	 * the session's setup lock (events arrive in order): it must not call
	 * back into the session. */
	void (*link_event)(void *context, enum rtrs_link_event event);
};

struct rtrs_client_open_params {
	const char *session_name;              /* <= 255 bytes, NUL-terminated */
	const struct rtrs_path_address *paths; /* 1..RTRS_MAX_PATHS */
	unsigned int path_count;
	unsigned int reconnect_delay_seconds;
	int max_reconnect_attempts;            /* -1: forever */
	unsigned int user_header_size;         /* bytes of user header space per permit */
	/* Polled connections per path, 0 .. RTRS_MAX_POLL_QUEUES: IO sent with
	 * rtrs_client_request_polled(), whose completions only
	 * rtrs_client_poll() reaps (no interrupts). */
	unsigned int poll_queues;
	/* How long the user holds IO with no path connected before
	 * RTRS_LINK_HOLD_EXPIRED; 0 = at once. 0 ... 3600000, else -EINVAL.
	 * Also /sys/class/rtrs-client/<session>/io_hold_timeout_ms. */
	unsigned int io_hold_timeout_ms;
};

#define RTRS_MAX_PATHS 128
#define RTRS_MAX_POLL_QUEUES 1024

struct rtrs_client_attributes {
	unsigned int queue_depth;              /* permits (server chunks) */
	unsigned int max_io_size;              /* bytes of data per IO */
	unsigned int max_segments;             /* scatterlist entries per IO */
	unsigned int poll_queues;              /* as opened */
	char session_name[256];
};

enum rtrs_direction { RTRS_READ = 0, RTRS_WRITE = 1 };
enum rtrs_wait { RTRS_NO_WAIT = 0, RTRS_WAIT = 1 };

/* IO completion. KAPI: softirq or process context; must not sleep. */
typedef void (*rtrs_client_done_fn)(void *context, int error);

/*
 * Opens a session: connects every path, returns when at least one is
 * connected (or all failed). KAPI: process context, sleeps.
 * Returns a session or an ERR_PTR-style negative errno cast (see IS_ERR).
 */
struct rtrs_client_session *rtrs_client_open(const struct rtrs_client_callbacks *callbacks,
					     const struct rtrs_client_open_params *params) RTRS_API_NOEXCEPT;
/* Closes every path, fails nothing silently: IO must be drained first. */
void rtrs_client_close(struct rtrs_client_session *session) RTRS_API_NOEXCEPT;
int rtrs_client_query(struct rtrs_client_session *session,
		      struct rtrs_client_attributes *attributes) RTRS_API_NOEXCEPT;

/* A permit owns one server chunk. With RTRS_WAIT it may sleep. */
struct rtrs_client_permit *rtrs_client_get_permit(struct rtrs_client_session *session,
						  enum rtrs_wait wait) RTRS_API_NOEXCEPT;
/*
 * Waits for a permit at most `timeout_ms`, and not past a signal: 0 with
 * *permit set, -ETIMEDOUT, or -ERESTARTSYS (a signal; a sysfs write
 * returns EINTR). For callers that must not hang on a server that keeps
 * every permit (a control message that is never answered holds its
 * permit until rtrs_client_abort() ends it). KAPI: process context, sleeps.
 */
int rtrs_client_get_permit_timeout(struct rtrs_client_session *session, unsigned int timeout_ms,
				   struct rtrs_client_permit **permit) RTRS_API_NOEXCEPT;
void rtrs_client_put_permit(struct rtrs_client_session *session,
			    struct rtrs_client_permit *permit) RTRS_API_NOEXCEPT;
/* Where the user writes its header (user_header_size bytes). */
void *rtrs_client_permit_header(struct rtrs_client_permit *permit) RTRS_API_NOEXCEPT;

/*
 * Submits one IO on a permit: `header_length` bytes of the permit's user
 * header travel with it; data is `data_length` bytes in `sg` (WRITE: sent,
 * READ: filled). `done` runs exactly once, with 0 or a negative errno;
 * in-flight IO on a failed path is re-issued on another path.
 * KAPI: any context that may not sleep.
 */
int rtrs_client_request(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			enum rtrs_direction direction, unsigned int header_length,
			struct scatterlist *sg, unsigned int sg_count, unsigned int data_length,
			rtrs_client_done_fn done, void *done_context) RTRS_API_NOEXCEPT;

/*
 * As rtrs_client_request, on the polled connection `poll_queue` (below the
 * session's poll_queues, else -EINVAL) of whichever path carries it (also
 * after a fail-over): `done` runs from rtrs_client_poll(session,
 * poll_queue), or from the path's teardown. KAPI: as rtrs_client_request.
 */
int rtrs_client_request_polled(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
			       unsigned int poll_queue, enum rtrs_direction direction, unsigned int header_length,
			       struct scatterlist *sg, unsigned int sg_count, unsigned int data_length,
			       rtrs_client_done_fn done, void *done_context) RTRS_API_NOEXCEPT;
/*
 * Reaps the completions of polled connection `poll_queue` on every
 * connected path, running the `done` of the IO they finish here; returns
 * how many completions it reaped (0: none yet), or -EINVAL for a
 * `poll_queue` the session does not have. Two callers on one queue do not
 * wait for each other: the second reaps nothing. KAPI: any context that
 * may not sleep (bottom halves are turned off while it reaps).
 */
int rtrs_client_poll(struct rtrs_client_session *session, unsigned int poll_queue) RTRS_API_NOEXCEPT;

/*
 * The session's io_hold_timeout_ms (as its sysfs file): 0 or -EINVAL
 * above 3600000. During an outage the deadline moves with it (counted
 * from the outage's start). KAPI: process context.
 */
int rtrs_client_set_io_hold_timeout(struct rtrs_client_session *session, unsigned int timeout_ms) RTRS_API_NOEXCEPT;

/*
 * The user stopped waiting for the IO it submitted on `permit` (e.g. the
 * block layer's request timeout): the path carrying it is failed, which
 * drains its queue pairs (no RDMA touches the IO's memory afterwards) and
 * reconnects it. The IO's `done` then still runs exactly once: with the
 * server's answer if one arrived first; else, with `final` set, with
 * -ETIMEDOUT; without it, the IO fails over like any IO of a failed path.
 * Only for a permit whose IO is in flight (the caller makes sure `done`
 * has not run). KAPI: any context, no sleep.
 */
void rtrs_client_abort(struct rtrs_client_session *session, struct rtrs_client_permit *permit,
		       int final) RTRS_API_NOEXCEPT;

/* ---- server ---- */

struct rtrs_server_context;
struct rtrs_server_session;
struct rtrs_server_io;

enum rtrs_server_link_event {
	RTRS_SERVER_LINK_CONNECTED = 0,        /* first path of a session is up */
	RTRS_SERVER_LINK_DISCONNECTED = 1,     /* last path gone: session closed */
};

struct rtrs_server_callbacks {
	/*
	 * One incoming IO. `data` is the chunk (WRITE: `data_length` bytes from
	 * the client; READ: room for `data_length` bytes to send back), `header`
	 * the user header. Answer with rtrs_server_respond(), now or later.
	 * KAPI: softirq context; must not sleep.
	 */
	int (*io)(void *session_context, struct rtrs_server_io *io, enum rtrs_direction direction,
		  void *data, unsigned int data_length, const void *header, unsigned int header_length);
	/* KAPI: process context. */
	void (*link_event)(struct rtrs_server_session *session, enum rtrs_server_link_event event,
			   void *session_context);
	/*
	 * Optional: may a new path from `client` join a session the user
	 * already knows (announced, `session_context` set)? 0 admits it, a
	 * negative errno refuses the connect with it. Called with the
	 * server's session list locked, before the path is listed, so that
	 * rtrs_server_session_client_addresses() either lists the path or
	 * runs before this call. KAPI: process context; must not take a lock
	 * held around rtrs_server_session_client_addresses().
	 */
	int (*admit_path)(void *session_context, const struct rtrs_address *client);
};

/* Starts listening on `port` (all addresses). KAPI: process context. */
struct rtrs_server_context *rtrs_server_open(const struct rtrs_server_callbacks *callbacks,
					     unsigned short port) RTRS_API_NOEXCEPT;
void rtrs_server_close(struct rtrs_server_context *context) RTRS_API_NOEXCEPT;
void rtrs_server_set_session_context(struct rtrs_server_session *session, void *context) RTRS_API_NOEXCEPT;
int rtrs_server_session_name(struct rtrs_server_session *session, char *buffer, unsigned int size) RTRS_API_NOEXCEPT;
unsigned int rtrs_server_queue_depth(struct rtrs_server_session *session) RTRS_API_NOEXCEPT;
/*
 * Bytes of one chunk of the session: the most `data_length` an IO callback
 * can be handed (READ data fills the chunk from its start). The user
 * should refuse an IO that asks to move more. KAPI: any context.
 */
unsigned int rtrs_server_chunk_size(struct rtrs_server_session *session) RTRS_API_NOEXCEPT;
/*
 * Starts closing every path of the session (asynchronously: the user's
 * DISCONNECTED event follows once the last path is gone, as after a
 * client's close). Idempotent. KAPI: process context.
 */
void rtrs_server_close_session(struct rtrs_server_session *session) RTRS_API_NOEXCEPT;
/*
 * The client address of each path of the session (connecting, connected or
 * closing), at most `max` of them into `out` (port 0, no scope). Returns the
 * number of paths, which may exceed `max`. KAPI: process context, sleeps.
 */
int rtrs_server_session_client_addresses(struct rtrs_server_session *session, struct rtrs_address *out,
					 unsigned int max) RTRS_API_NOEXCEPT;
/* Completes an IO with 0 or a negative errno. KAPI: any context, no sleep. */
void rtrs_server_respond(struct rtrs_server_io *io, int error) RTRS_API_NOEXCEPT;
/*
 * The chunk `io` holds, below rtrs_server_queue_depth(). A session hands its
 * user at most one IO per chunk at a time, from the io() callback until
 * rtrs_server_respond() (a chunk another path of the session still holds is
 * refused without calling the user), so per-IO state can live in an array
 * indexed by it instead of an allocation per IO. KAPI: any context.
 */
unsigned int rtrs_server_io_chunk(struct rtrs_server_io *io) RTRS_API_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* RTRS_API_H */
