/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrs.h - the API of the RTRS (RDMA transport) client for in-kernel users.
 *
 * Names, types and enum values match the upstream header of the same name, so
 * an unchanged upstream rnbd-client builds against this file and runs on this
 * module. The server half is declared too, so that code which includes <rtrs.h>
 * for both halves still compiles; this module implements only the client.
 */
#ifndef RTRS_H
#define RTRS_H

#include <linux/socket.h>
#include <linux/scatterlist.h>
#include <linux/uio.h>

struct rtrs_permit;
struct rtrs_clt_sess;
struct rtrs_srv_ctx;
struct rtrs_srv_sess;
struct rtrs_srv_op;

/* ---------------------------------------------------------------- client */

/**
 * enum rtrs_clt_link_ev - session connectivity events for the user
 * @RTRS_CLT_LINK_EV_RECONNECTED: the first path of a session without any
 *	connected path is up again
 * @RTRS_CLT_LINK_EV_DISCONNECTED: the last connected path went down
 */
enum rtrs_clt_link_ev {
	RTRS_CLT_LINK_EV_RECONNECTED,
	RTRS_CLT_LINK_EV_DISCONNECTED,
};

/**
 * struct rtrs_addr - the two ends of one path
 * @src: local address, or NULL to let the routing table choose
 * @dst: the server's address
 */
struct rtrs_addr {
	struct sockaddr_storage *src;
	struct sockaddr_storage *dst;
};

/**
 * struct rtrs_clt_ops - callbacks of a session's user
 * @priv: passed back to @link_ev
 * @link_ev: connectivity events, one at a time and in order; called in
 *	process context (a workqueue, or the thread that opens, adds or
 *	reconnects a path through sysfs) with the session's link mutex held,
 *	and for a path going up or down its connect mutex too. The callback
 *	may send requests but must not wait for their completion (a failing
 *	path completes its requests from this very context), and must not
 *	close the session or add or remove its paths.
 */
struct rtrs_clt_ops {
	void	*priv;
	void	(*link_ev)(void *priv, enum rtrs_clt_link_ev ev);
};

struct rtrs_clt_sess *rtrs_clt_open(struct rtrs_clt_ops *ops,
				    const char *pathname,
				    const struct rtrs_addr *paths,
				    size_t path_cnt, u16 port,
				    size_t pdu_sz, u8 reconnect_delay_sec,
				    s16 max_reconnect_attempts, u32 nr_poll_queues);

void rtrs_clt_close(struct rtrs_clt_sess *clt);

/**
 * enum wait_type - what rtrs_clt_get_permit() does when none is free
 * @RTRS_PERMIT_NOWAIT: return NULL
 * @RTRS_PERMIT_WAIT: sleep until one is returned
 */
enum wait_type {
	RTRS_PERMIT_NOWAIT = 0,
	RTRS_PERMIT_WAIT   = 1
};

/**
 * enum rtrs_clt_con_type - which connection a permit's requests travel on
 * @RTRS_ADMIN_CON: the service connection of a path (control messages)
 * @RTRS_IO_CON: the I/O connection of the submitting CPU
 */
enum rtrs_clt_con_type {
	RTRS_ADMIN_CON,
	RTRS_IO_CON
};

struct rtrs_permit *rtrs_clt_get_permit(struct rtrs_clt_sess *sess,
					enum rtrs_clt_con_type con_type,
					enum wait_type wait);

void rtrs_clt_put_permit(struct rtrs_clt_sess *sess,
			 struct rtrs_permit *permit);

/**
 * struct rtrs_clt_req_ops - completion of one request
 * @priv: passed back to @conf_fn
 * @conf_fn: called once per request with 0 or a negative errno, from softirq,
 *	polling or workqueue context; it must not sleep
 */
struct rtrs_clt_req_ops {
	void	*priv;
	void	(*conf_fn)(void *priv, int errno);
};

int rtrs_clt_request(int dir, struct rtrs_clt_req_ops *ops,
		     struct rtrs_clt_sess *sess, struct rtrs_permit *permit,
		     const struct kvec *vec, size_t nr, size_t len,
		     struct scatterlist *sg, unsigned int sg_cnt);
int rtrs_clt_rdma_cq_direct(struct rtrs_clt_sess *clt, unsigned int index);

/**
 * struct rtrs_attrs - limits of a connected session
 * @queue_depth: number of permits (requests in flight at once)
 * @max_io_size: largest data length of one request, in bytes
 * @max_segments: largest scatterlist of one request
 */
struct rtrs_attrs {
	u32		queue_depth;
	u32		max_io_size;
	u32		max_segments;
};

int rtrs_clt_query(struct rtrs_clt_sess *sess, struct rtrs_attrs *attr);

/*
 * Address helpers. Upstream exports these from rtrs-core; this module exports
 * them under its own names so that it can be loaded next to upstream's
 * rtrs-core and rtrs-server, and keeps upstream's names as inline wrappers.
 */
int rtrs_clt_addr_to_sockaddr(const char *str, size_t len, u16 port,
			      struct rtrs_addr *addr);
int rtrs_clt_sockaddr_to_str(const struct sockaddr *addr, char *buf,
			     size_t len);
int rtrs_clt_addr_to_str(const struct rtrs_addr *addr, char *buf, size_t len);

#ifndef RTRS_NO_UPSTREAM_HELPER_NAMES
static inline int rtrs_addr_to_sockaddr(const char *str, size_t len, u16 port,
					struct rtrs_addr *addr)
{
	return rtrs_clt_addr_to_sockaddr(str, len, port, addr);
}

static inline int sockaddr_to_str(const struct sockaddr *addr, char *buf,
				  size_t len)
{
	return rtrs_clt_sockaddr_to_str(addr, buf, len);
}

static inline int rtrs_addr_to_str(const struct rtrs_addr *addr, char *buf,
				   size_t len)
{
	return rtrs_clt_addr_to_str(addr, buf, len);
}
#endif

/* ---------------------------------------------------------------- server */

/*
 * Declarations only: the server is upstream's rtrs-server. They are here so
 * that a user written against upstream's header builds against this one.
 */
enum rtrs_srv_link_ev {
	RTRS_SRV_LINK_EV_CONNECTED,
	RTRS_SRV_LINK_EV_DISCONNECTED,
};

struct rtrs_srv_ops {
	int (*rdma_ev)(void *priv, struct rtrs_srv_op *id, void *data,
		       size_t datalen, const void *usr, size_t usrlen);
	int (*link_ev)(struct rtrs_srv_sess *sess, enum rtrs_srv_link_ev ev,
		       void *priv);
};

struct rtrs_srv_ctx *rtrs_srv_open(struct rtrs_srv_ops *ops, u16 port);
void rtrs_srv_close(struct rtrs_srv_ctx *ctx);
bool rtrs_srv_resp_rdma(struct rtrs_srv_op *id, int errno);
void rtrs_srv_set_sess_priv(struct rtrs_srv_sess *sess, void *priv);
int rtrs_srv_get_path_name(struct rtrs_srv_sess *sess, char *pathname,
			   size_t len);
int rtrs_srv_get_queue_depth(struct rtrs_srv_sess *sess);

#endif /* RTRS_H */
