// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * C boundary: RDMA-CM (connection manager) and socket addresses, for the
 * C++ wrappers in kernel/ib/. One kernel call per function; the event handler
 * forwards every CM event to kernel_ib_cm_event(). See kapi-rdma.h.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include "cxxrt-kabi.h"
#include "kapi-rdma.h"

static_assert(KABI_SIZEOF_SOCKADDR_STORAGE == sizeof(struct sockaddr_storage));
static_assert(sizeof(struct sockaddr_ib) <= sizeof(struct sockaddr_storage));

/*
 * KAPI: called by the CM in process context with the id's handler mutex
 * held. A consumer-defined reject carries its data out of band.
 */
static int kapi_rdma_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const void *data = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;

	if (ev->event == RDMA_CM_EVENT_REJECTED)
		data = rdma_consumer_reject_data(id, ev, &len);
	return kernel_ib_cm_event(id->context, id, ev->event, ev->status, data, data ? len : 0);
}

static int kapi_rdma_to_sockaddr_in(const struct kapi_rdma_addr *a, struct sockaddr_in *sin)
{
	*sin = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(a->port) };
	memcpy(&sin->sin_addr, a->bytes, 4);
	return 0;
}

static int kapi_rdma_to_sockaddr_in6(const struct kapi_rdma_addr *a, struct sockaddr_in6 *sin6)
{
	*sin6 = (struct sockaddr_in6){ .sin6_family = AF_INET6, .sin6_port = htons(a->port),
				       .sin6_scope_id = a->scope_id };
	memcpy(&sin6->sin6_addr, a->bytes, 16);
	return 0;
}

/* AF_IB as upstream RTRS uses it: IB port space service id, all-ones mask. */
static int kapi_rdma_to_sockaddr_ib(const struct kapi_rdma_addr *a, struct sockaddr_ib *sib)
{
	*sib = (struct sockaddr_ib){ .sib_family = AF_IB, .sib_pkey = htons(0xffff),
				     .sib_sid = cpu_to_be64(RDMA_IB_IP_PS_IB | a->port),
				     .sib_sid_mask = cpu_to_be64(0xffffffffffffffffULL) };
	memcpy(&sib->sib_addr, a->bytes, 16);
	return 0;
}

int kapi_rdma_addr_to_sockaddr(const struct kapi_rdma_addr *addr, struct sockaddr *sockaddr)
{
	memset(sockaddr, 0, sizeof(struct sockaddr_storage));
	switch (addr->family) {
	case KAPI_RDMA_AF_INET: return kapi_rdma_to_sockaddr_in(addr, (struct sockaddr_in *)sockaddr);
	case KAPI_RDMA_AF_INET6: return kapi_rdma_to_sockaddr_in6(addr, (struct sockaddr_in6 *)sockaddr);
	case KAPI_RDMA_AF_IB: return kapi_rdma_to_sockaddr_ib(addr, (struct sockaddr_ib *)sockaddr);
	default: return -EAFNOSUPPORT;
	}
}

static int kapi_rdma_from_sockaddr_in(struct kapi_rdma_addr *a, const struct sockaddr_in *sin)
{
	*a = (struct kapi_rdma_addr){ .family = KAPI_RDMA_AF_INET, .port = ntohs(sin->sin_port) };
	memcpy(a->bytes, &sin->sin_addr, 4);
	return 0;
}

static int kapi_rdma_from_sockaddr_in6(struct kapi_rdma_addr *a, const struct sockaddr_in6 *sin6)
{
	*a = (struct kapi_rdma_addr){ .family = KAPI_RDMA_AF_INET6, .port = ntohs(sin6->sin6_port),
				      .scope_id = sin6->sin6_scope_id };
	memcpy(a->bytes, &sin6->sin6_addr, 16);
	return 0;
}

/* The port of an AF_IB address is the low 16 bits of its service id. */
static int kapi_rdma_from_sockaddr_ib(struct kapi_rdma_addr *a, const struct sockaddr_ib *sib)
{
	*a = (struct kapi_rdma_addr){ .family = KAPI_RDMA_AF_IB, .port = (u16)be64_to_cpu(sib->sib_sid) };
	memcpy(a->bytes, &sib->sib_addr, 16);
	return 0;
}

int kapi_rdma_sockaddr_to_addr(const struct sockaddr *sockaddr, struct kapi_rdma_addr *addr)
{
	switch (sockaddr->sa_family) {
	case AF_INET: return kapi_rdma_from_sockaddr_in(addr, (const struct sockaddr_in *)sockaddr);
	case AF_INET6: return kapi_rdma_from_sockaddr_in6(addr, (const struct sockaddr_in6 *)sockaddr);
	case AF_IB: return kapi_rdma_from_sockaddr_ib(addr, (const struct sockaddr_ib *)sockaddr);
	default: return -EAFNOSUPPORT;
	}
}

const struct sockaddr *kapi_rdma_cm_id_src_sockaddr(struct rdma_cm_id *cm_id)
{
	return (const struct sockaddr *)&cm_id->route.addr.src_addr;
}

const struct sockaddr *kapi_rdma_cm_id_dst_sockaddr(struct rdma_cm_id *cm_id)
{
	return (const struct sockaddr *)&cm_id->route.addr.dst_addr;
}

/* KAPI: process context, may sleep. */
struct rdma_cm_id *kapi_rdma_create_id(void *context, int port_space, int *err)
{
	struct rdma_cm_id *id = rdma_create_id(&init_net, kapi_rdma_cm_handler, context, port_space, IB_QPT_RC);

	*err = PTR_ERR_OR_ZERO(id);
	return IS_ERR(id) ? NULL : id;
}

/* KAPI: process context; waits for the id's running handler: never from it. */
void kapi_rdma_destroy_id(struct rdma_cm_id *cm_id)
{
	rdma_destroy_id(cm_id);
}

void kapi_rdma_set_context(struct rdma_cm_id *cm_id, void *context)
{
	cm_id->context = context;
}

void *kapi_rdma_get_context(struct rdma_cm_id *cm_id)
{
	return cm_id->context;
}

int kapi_rdma_bind_addr(struct rdma_cm_id *cm_id, struct sockaddr *sockaddr)
{
	return rdma_bind_addr(cm_id, sockaddr);
}

int kapi_rdma_listen(struct rdma_cm_id *cm_id, int backlog)
{
	return rdma_listen(cm_id, backlog);
}

int kapi_rdma_resolve_addr(struct rdma_cm_id *cm_id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)
{
	return rdma_resolve_addr(cm_id, src, dst, timeout_ms);
}

int kapi_rdma_resolve_route(struct rdma_cm_id *cm_id, unsigned long timeout_ms)
{
	return rdma_resolve_route(cm_id, timeout_ms);
}

/* KAPI: process context, not inside this id's handler (takes its mutex). */
int kapi_rdma_connect(struct rdma_cm_id *cm_id, const void *data, unsigned char len, unsigned char retry_count,
		      unsigned char rnr_retry_count)
{
	struct rdma_conn_param param = { .private_data = data, .private_data_len = len,
					 .retry_count = retry_count, .rnr_retry_count = rnr_retry_count };

	return rdma_connect(cm_id, &param);
}

/* KAPI: inside this id's handler (handler mutex held by the CM). */
int kapi_rdma_connect_locked(struct rdma_cm_id *cm_id, const void *data, unsigned char len, unsigned char retry_count,
			     unsigned char rnr_retry_count)
{
	struct rdma_conn_param param = { .private_data = data, .private_data_len = len,
					 .retry_count = retry_count, .rnr_retry_count = rnr_retry_count };

	return rdma_connect_locked(cm_id, &param);
}

/* KAPI: before the QP reaches RTS (accept/connect); any context that may sleep. */
int kapi_rdma_set_ack_timeout(struct rdma_cm_id *cm_id, unsigned char timeout)
{
	return rdma_set_ack_timeout(cm_id, timeout);
}

/* KAPI: handler mutex held (the CONNECT_REQUEST handler, or lock_handler). */
int kapi_rdma_accept(struct rdma_cm_id *cm_id, const void *data, unsigned char len, unsigned char rnr_retry_count)
{
	struct rdma_conn_param param = { .private_data = data, .private_data_len = len,
					 .rnr_retry_count = rnr_retry_count };

	return rdma_accept(cm_id, &param);
}

int kapi_rdma_reject(struct rdma_cm_id *cm_id, const void *data, unsigned char len)
{
	return rdma_reject(cm_id, data, len, IB_CM_REJ_CONSUMER_DEFINED);
}

int kapi_rdma_disconnect(struct rdma_cm_id *cm_id)
{
	return rdma_disconnect(cm_id);
}

void kapi_rdma_lock_handler(struct rdma_cm_id *cm_id)
{
	rdma_lock_handler(cm_id);
}

void kapi_rdma_unlock_handler(struct rdma_cm_id *cm_id)
{
	rdma_unlock_handler(cm_id);
}

struct ib_device *kapi_rdma_cm_id_device(struct rdma_cm_id *cm_id)
{
	return cm_id->device;
}

unsigned int kapi_rdma_cm_id_port(struct rdma_cm_id *cm_id)
{
	return cm_id->port_num;
}

struct ib_qp *kapi_rdma_cm_id_qp(struct rdma_cm_id *cm_id)
{
	return cm_id->qp;
}

const char *kapi_rdma_event_msg(int event)
{
	return rdma_event_msg(event);
}

const char *kapi_rdma_reject_msg(struct rdma_cm_id *cm_id, int reason)
{
	return rdma_reject_msg(cm_id, reason);
}
