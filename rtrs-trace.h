/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrs-trace.h - trace events of the RTRS client (TRACE_SYSTEM rtrs_client).
 *
 * Every event names what it is about the same way, so that one request can
 * be followed from its post to its user's completion (the completion ID):
 *
 *   sess=<session> path=<src>@<dst> cid=<connection> id=<chunk>
 *
 * The path is named by its addresses, as in sysfs (paths/<src>@<dst>). The
 * chunk id is the permit's mem_id, which is also the request slot in every
 * path, so the events of one (path, cid, id) from an rtrs_req_post to the
 * next post of that id are one request. Events of the session alone (hold,
 * the user's completion) carry sess and id; events of a path, sess and
 * path.
 *
 * Disabled, an event costs a patched-out branch. Enable them all with
 *   echo 1 > /sys/kernel/tracing/events/rtrs_client/enable
 * (README.md, Trace events).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rtrs_client

#if !defined(RTRS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define RTRS_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>

#include "rtrs-pri.h"

#ifndef RTRS_TRACE_HELPERS
#define RTRS_TRACE_HELPERS

/* Bytes of @a worth keeping: %pISc prints AF_INET and AF_INET6 */
static inline size_t rtrs_tp_addr_len(const struct sockaddr_storage *a)
{
	switch (a->ss_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	}
	return sizeof(struct sockaddr);
}

/* Bytes of @path's session name with its NUL */
static inline size_t rtrs_tp_name_len(const struct rtrs_path *path)
{
	return strlen(path->clt->sessname) + 1;
}

/* Fill the fields sized by the two helpers above */
static inline void rtrs_tp_path(char *sess, struct sockaddr *src,
				struct sockaddr *dst,
				const struct rtrs_path *path)
{
	strscpy(sess, path->clt->sessname, rtrs_tp_name_len(path));
	memcpy(src, &path->src_addr, rtrs_tp_addr_len(&path->src_addr));
	memcpy(dst, &path->dst_addr, rtrs_tp_addr_len(&path->dst_addr));
}

#endif /* RTRS_TRACE_HELPERS */

#define RTRS_TP_PATH_FMT	"sess=%s path=%pISc@%pISc"
#define RTRS_TP_REQ_FMT		RTRS_TP_PATH_FMT " cid=%u id=%u"

#define rtrs_tp_show_dir(dir)						\
	__print_symbolic(dir, { READ, "READ" }, { WRITE, "WRITE" })

TRACE_DEFINE_ENUM(RTRS_PATH_CONNECTING);
TRACE_DEFINE_ENUM(RTRS_PATH_CONNECTING_ERR);
TRACE_DEFINE_ENUM(RTRS_PATH_RECONNECTING);
TRACE_DEFINE_ENUM(RTRS_PATH_CONNECTED);
TRACE_DEFINE_ENUM(RTRS_PATH_CLOSING);
TRACE_DEFINE_ENUM(RTRS_PATH_CLOSED);
TRACE_DEFINE_ENUM(RTRS_PATH_DEAD);

#define rtrs_tp_show_state(s)						\
	__print_symbolic(s,						\
		{ RTRS_PATH_CONNECTING, "CONNECTING" },			\
		{ RTRS_PATH_CONNECTING_ERR, "CONNECTING_ERR" },		\
		{ RTRS_PATH_RECONNECTING, "RECONNECTING" },		\
		{ RTRS_PATH_CONNECTED, "CONNECTED" },			\
		{ RTRS_PATH_CLOSING, "CLOSING" },			\
		{ RTRS_PATH_CLOSED, "CLOSED" },				\
		{ RTRS_PATH_DEAD, "DEAD" })
TRACE_DEFINE_ENUM(IB_WC_SUCCESS);
TRACE_DEFINE_ENUM(IB_WC_LOC_LEN_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_QP_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_PROT_ERR);
TRACE_DEFINE_ENUM(IB_WC_WR_FLUSH_ERR);
TRACE_DEFINE_ENUM(IB_WC_MW_BIND_ERR);
TRACE_DEFINE_ENUM(IB_WC_BAD_RESP_ERR);
TRACE_DEFINE_ENUM(IB_WC_LOC_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_INV_REQ_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ACCESS_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_OP_ERR);
TRACE_DEFINE_ENUM(IB_WC_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_RNR_RETRY_EXC_ERR);
TRACE_DEFINE_ENUM(IB_WC_REM_ABORT_ERR);
TRACE_DEFINE_ENUM(IB_WC_FATAL_ERR);
TRACE_DEFINE_ENUM(IB_WC_RESP_TIMEOUT_ERR);
TRACE_DEFINE_ENUM(IB_WC_GENERAL_ERR);

/* The statuses a RoCE or IB device reports; others print as numbers */
#define rtrs_tp_show_wc_status(s)					\
	__print_symbolic(s,						\
		{ IB_WC_SUCCESS, "SUCCESS" },				\
		{ IB_WC_LOC_LEN_ERR, "LOC_LEN_ERR" },			\
		{ IB_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR" },		\
		{ IB_WC_LOC_PROT_ERR, "LOC_PROT_ERR" },			\
		{ IB_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR" },			\
		{ IB_WC_MW_BIND_ERR, "MW_BIND_ERR" },			\
		{ IB_WC_BAD_RESP_ERR, "BAD_RESP_ERR" },			\
		{ IB_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR" },		\
		{ IB_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR" },		\
		{ IB_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR" },		\
		{ IB_WC_REM_OP_ERR, "REM_OP_ERR" },			\
		{ IB_WC_RETRY_EXC_ERR, "RETRY_EXC_ERR" },		\
		{ IB_WC_RNR_RETRY_EXC_ERR, "RNR_RETRY_EXC_ERR" },	\
		{ IB_WC_REM_ABORT_ERR, "REM_ABORT_ERR" },		\
		{ IB_WC_FATAL_ERR, "FATAL_ERR" },			\
		{ IB_WC_RESP_TIMEOUT_ERR, "RESP_TIMEOUT_ERR" },		\
		{ IB_WC_GENERAL_ERR, "GENERAL_ERR" })

TRACE_DEFINE_ENUM(IB_WC_SEND);
TRACE_DEFINE_ENUM(IB_WC_RDMA_WRITE);
TRACE_DEFINE_ENUM(IB_WC_RDMA_READ);
TRACE_DEFINE_ENUM(IB_WC_LOCAL_INV);
TRACE_DEFINE_ENUM(IB_WC_REG_MR);
TRACE_DEFINE_ENUM(IB_WC_RECV);
TRACE_DEFINE_ENUM(IB_WC_RECV_RDMA_WITH_IMM);

/* The opcodes of what we post and receive */
#define rtrs_tp_show_wc_opcode(op)					\
	__print_symbolic(op,						\
		{ IB_WC_SEND, "SEND" },					\
		{ IB_WC_RDMA_WRITE, "RDMA_WRITE" },			\
		{ IB_WC_RDMA_READ, "RDMA_READ" },			\
		{ IB_WC_LOCAL_INV, "LOCAL_INV" },			\
		{ IB_WC_REG_MR, "REG_MR" },				\
		{ IB_WC_RECV, "RECV" },					\
		{ IB_WC_RECV_RDMA_WITH_IMM, "RECV_RDMA_WITH_IMM" })

/* ------------------------------------------------------------ requests */

/*
 * rtrs_req_post: a request slot goes on the wire, traced right before
 * ib_post_send() so that it precedes its response: READ or WRITE, data
 * bytes, user message bytes, scatterlist entries and how many entries
 * their DMA mapping made
 */
TRACE_EVENT(rtrs_req_post,
	    TP_PROTO(const struct rtrs_req *req),
	    TP_ARGS(req),
	    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(req->path))
			     __sockaddr(src, rtrs_tp_addr_len(&req->path->src_addr))
			     __sockaddr(dst, rtrs_tp_addr_len(&req->path->dst_addr))
			     __field(u32, cid)
			     __field(u32, id)
			     __field(int, dir)
			     __field(u32, data_len)
			     __field(u32, usr_len)
			     __field(u32, sg_cnt)
			     __field(int, nents)),
	    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
					__get_sockaddr(dst), req->path);
			   __entry->cid = req->con->cid;
			   __entry->id = req->permit->mem_id;
			   __entry->dir = req->dir;
			   __entry->data_len = req->data_len;
			   __entry->usr_len = req->usr_len;
			   __entry->sg_cnt = req->sg_cnt;
			   __entry->nents = req->nents;),
	    TP_printk(RTRS_TP_REQ_FMT " %s len=%u usr_len=%u sg_cnt=%u nents=%d",
		      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
		      __entry->cid, __entry->id, rtrs_tp_show_dir(__entry->dir),
		      __entry->data_len, __entry->usr_len, __entry->sg_cnt,
		      __entry->nents));

/*
 * rtrs_req_done: a request slot completes, its MR out of the server's
 * reach; latency from the post in ns (0: the post was not traced)
 */
TRACE_EVENT(rtrs_req_done,
	    TP_PROTO(const struct rtrs_req *req,
		     int status),
	    TP_ARGS(req, status),
	    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(req->path))
			     __sockaddr(src, rtrs_tp_addr_len(&req->path->src_addr))
			     __sockaddr(dst, rtrs_tp_addr_len(&req->path->dst_addr))
			     __field(u32, cid)
			     __field(u32, id)
			     __field(int, status)
			     __field(u64, latency)),
	    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
					__get_sockaddr(dst), req->path);
			   __entry->cid = req->con->cid;
			   __entry->id = req->permit->mem_id;
			   __entry->status = status;
			   __entry->latency = req->posted_ns ?
					      ktime_get_ns() - req->posted_ns : 0;),
	    TP_printk(RTRS_TP_REQ_FMT " status=%d latency=%llu ns",
		      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
		      __entry->cid, __entry->id, __entry->status, __entry->latency));

DECLARE_EVENT_CLASS(rtrs_req_status_class,
		    TP_PROTO(const struct rtrs_req *req,
			     int status,
			     bool flag),
		    TP_ARGS(req, status, flag),
		    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(req->path))
				     __sockaddr(src, rtrs_tp_addr_len(&req->path->src_addr))
				     __sockaddr(dst, rtrs_tp_addr_len(&req->path->dst_addr))
				     __field(u32, cid)
				     __field(u32, id)
				     __field(int, status)
				     __field(bool, flag)),
		    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
						__get_sockaddr(dst), req->path);
				   __entry->cid = req->con->cid;
				   __entry->id = req->permit->mem_id;
				   __entry->status = status;
				   __entry->flag = flag;),
		    TP_printk(RTRS_TP_REQ_FMT " status=%d w_inv=%d",
			      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
			      __entry->cid, __entry->id, __entry->status, __entry->flag));

/*
 * rtrs_rsp: the server's response to a request, accepted: its status
 * (0 or a negative errno) and w_inv, whether it says that the server
 * invalidated the request's MR (IO_RSP_W_INV)
 */
DEFINE_EVENT(rtrs_req_status_class, rtrs_rsp,
	     TP_PROTO(const struct rtrs_req *req,
		      int status,
		      bool flag),
	     TP_ARGS(req, status, flag));

/* rtrs_req_post_err: ib_post_send() refused the request (err) */
DEFINE_EVENT_PRINT(rtrs_req_status_class, rtrs_req_post_err,
		   TP_PROTO(const struct rtrs_req *req,
			    int status,
			    bool flag),
		   TP_ARGS(req, status, flag),
		   TP_printk(RTRS_TP_REQ_FMT " err=%d",
			     __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
			     __entry->cid, __entry->id, __entry->status));

/* ----------------------------------------------------------------- MRs */

/*
 * rtrs_mr_map: a request's pages registered in its MR under a fresh rkey:
 * remote=1 for the server to write (a READ), 0 for a local send
 */
TRACE_EVENT(rtrs_mr_map,
	    TP_PROTO(const struct rtrs_req *req,
		     int access),
	    TP_ARGS(req, access),
	    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(req->path))
			     __sockaddr(src, rtrs_tp_addr_len(&req->path->src_addr))
			     __sockaddr(dst, rtrs_tp_addr_len(&req->path->dst_addr))
			     __field(u32, cid)
			     __field(u32, id)
			     __field(u32, rkey)
			     __field(u64, length)
			     __field(int, nents)
			     __field(bool, remote)),
	    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
					__get_sockaddr(dst), req->path);
			   __entry->cid = req->con->cid;
			   __entry->id = req->permit->mem_id;
			   __entry->rkey = req->mr->rkey;
			   __entry->length = req->mr->length;
			   __entry->nents = req->nents;
			   __entry->remote = access & IB_ACCESS_REMOTE_WRITE;),
	    TP_printk(RTRS_TP_REQ_FMT " rkey=%#x length=%llu nents=%d remote=%d",
		      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
		      __entry->cid, __entry->id, __entry->rkey, __entry->length,
		      __entry->nents, __entry->remote));

DECLARE_EVENT_CLASS(rtrs_mr_class,
		    TP_PROTO(const struct rtrs_req *req,
			     u32 rkey),
		    TP_ARGS(req, rkey),
		    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(req->path))
				     __sockaddr(src, rtrs_tp_addr_len(&req->path->src_addr))
				     __sockaddr(dst, rtrs_tp_addr_len(&req->path->dst_addr))
				     __field(u32, cid)
				     __field(u32, id)
				     __field(u32, rkey)),
		    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
						__get_sockaddr(dst), req->path);
				   __entry->cid = req->con->cid;
				   __entry->id = req->permit->mem_id;
				   __entry->rkey = rkey;),
		    TP_printk(RTRS_TP_REQ_FMT " rkey=%#x",
			      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
			      __entry->cid, __entry->id, __entry->rkey));

/* rtrs_mr_localinv: we post a LOCAL_INV of the MR after the response */
DEFINE_EVENT(rtrs_mr_class, rtrs_mr_localinv,
	     TP_PROTO(const struct rtrs_req *req,
		      u32 rkey),
	     TP_ARGS(req, rkey));

/* rtrs_mr_remoteinv: the server invalidated the MR (SEND_WITH_INV) */
DEFINE_EVENT(rtrs_mr_class, rtrs_mr_remoteinv,
	     TP_PROTO(const struct rtrs_req *req,
		      u32 rkey),
	     TP_ARGS(req, rkey));

/* rtrs_mr_staleinv: a LOCAL_INV of the key a failed post left valid */
DEFINE_EVENT(rtrs_mr_class, rtrs_mr_staleinv,
	     TP_PROTO(const struct rtrs_req *req,
		      u32 rkey),
	     TP_ARGS(req, rkey));

/* ------------------------------------------------- failover and holding */

/*
 * rtrs_failover: a request of a failed path (path) is offered to another
 * one (to); its rtrs_req_post on that path follows if the post works
 */
TRACE_EVENT_CONDITION(rtrs_failover,
		      TP_PROTO(const struct rtrs_path *from,
			       const struct rtrs_path *to,
			       const struct rtrs_permit *permit),
		      TP_ARGS(from, to, permit),
		      TP_CONDITION(from),
		      TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(from))
				       __sockaddr(src, rtrs_tp_addr_len(&from->src_addr))
				       __sockaddr(dst, rtrs_tp_addr_len(&from->dst_addr))
				       __sockaddr(to_src, rtrs_tp_addr_len(&to->src_addr))
				       __sockaddr(to_dst, rtrs_tp_addr_len(&to->dst_addr))
				       __field(u32, id)),
		      TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
						  __get_sockaddr(dst), from);
				     memcpy(__get_sockaddr(to_src), &to->src_addr,
					    rtrs_tp_addr_len(&to->src_addr));
				     memcpy(__get_sockaddr(to_dst), &to->dst_addr,
					    rtrs_tp_addr_len(&to->dst_addr));
				     __entry->id = permit->mem_id;),
		      TP_printk(RTRS_TP_PATH_FMT " id=%u to=%pISc@%pISc",
				__get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
				__entry->id, __get_sockaddr(to_src), __get_sockaddr(to_dst)));

/*
 * rtrs_held: no path took the request, which waits for one (io_hold_sec);
 * held: requests the session holds now
 */
TRACE_EVENT(rtrs_held,
	    TP_PROTO(const struct rtrs_clt_sess *clt,
		     const struct rtrs_permit *permit),
	    TP_ARGS(clt, permit),
	    TP_STRUCT__entry(__string(sess, clt->sessname)
			     __field(u32, id)
			     __field(u32, held)),
	    TP_fast_assign(strscpy(__get_str(sess), clt->sessname,
				   strlen(clt->sessname) + 1);
			   __entry->id = permit->mem_id;
			   __entry->held = READ_ONCE(clt->held_num);),
	    TP_printk("sess=%s id=%u held=%u", __get_str(sess), __entry->id,
		      __entry->held));

DECLARE_EVENT_CLASS(rtrs_sess_req_class,
		    TP_PROTO(const struct rtrs_clt_sess *clt,
			     const struct rtrs_permit *permit,
			     int err),
		    TP_ARGS(clt, permit, err),
		    TP_STRUCT__entry(__string(sess, clt->sessname)
				     __field(u32, id)
				     __field(int, err)),
		    TP_fast_assign(strscpy(__get_str(sess), clt->sessname,
					   strlen(clt->sessname) + 1);
				   __entry->id = permit->mem_id;
				   __entry->err = err;),
		    TP_printk("sess=%s id=%u err=%d", __get_str(sess), __entry->id,
			      __entry->err));

/*
 * rtrs_unheld: a held request is issued again: err 0 posted (its
 * rtrs_req_post precedes), -ECONNABORTED held again, else failed
 */
DEFINE_EVENT(rtrs_sess_req_class, rtrs_unheld,
	     TP_PROTO(const struct rtrs_clt_sess *clt,
		      const struct rtrs_permit *permit,
		      int err),
	     TP_ARGS(clt, permit, err));

/*
 * rtrs_clt_conf: the user's conf_fn is called with err: after the
 * request's rtrs_req_done, or alone for a request that failed without a
 * path (no path took it over, or its hold ran out)
 */
DEFINE_EVENT(rtrs_sess_req_class, rtrs_clt_conf,
	     TP_PROTO(const struct rtrs_clt_sess *clt,
		      const struct rtrs_permit *permit,
		      int err),
	     TP_ARGS(clt, permit, err));

/* ---------------------------------------------------------------- paths */

/*
 * rtrs_wc_err: a work request of the path completed in error; wr: its
 * kind (the handler knows it), opcode as the device reported it, which
 * it need not set for an error completion
 */
TRACE_EVENT(rtrs_wc_err,
	    TP_PROTO(const struct rtrs_path *path,
		     const struct ib_wc *wc,
		     const char *what),
	    TP_ARGS(path, wc, what),
	    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(path))
			     __sockaddr(src, rtrs_tp_addr_len(&path->src_addr))
			     __sockaddr(dst, rtrs_tp_addr_len(&path->dst_addr))
			     __string(wr, what)
			     __field(u32, qp_num)
			     __field(int, status)
			     __field(int, opcode)
			     __field(u32, vendor_err)),
	    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
					__get_sockaddr(dst), path);
			   strscpy(__get_str(wr), what, strlen(what) + 1);
			   __entry->qp_num = wc->qp ? wc->qp->qp_num : 0;
			   __entry->status = wc->status;
			   __entry->opcode = wc->opcode;
			   __entry->vendor_err = wc->vendor_err;),
	    TP_printk(RTRS_TP_PATH_FMT " qpn=%u %s status=%s opcode=%s vendor_err=%#x",
		      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
		      __entry->qp_num, __get_str(wr),
		      rtrs_tp_show_wc_status(__entry->status),
		      rtrs_tp_show_wc_opcode(__entry->opcode), __entry->vendor_err));

/*
 * rtrs_path_state: the path changes state; by: the function that asked
 * for the change, the reason
 */
TRACE_EVENT_CONDITION(rtrs_path_state,
		      TP_PROTO(const struct rtrs_path *path,
			       int new_state,
			       bool changed,
			       unsigned long caller),
		      TP_ARGS(path, new_state, changed, caller),
		      TP_CONDITION(changed),
		      TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(path))
				       __sockaddr(src, rtrs_tp_addr_len(&path->src_addr))
				       __sockaddr(dst, rtrs_tp_addr_len(&path->dst_addr))
				       __field(int, old_state)
				       __field(int, new_state)
				       __field(unsigned long, caller)),
		      TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
						  __get_sockaddr(dst), path);
				     __entry->old_state = path->state;
				     __entry->new_state = new_state;
				     __entry->caller = caller;),
		      TP_printk(RTRS_TP_PATH_FMT " %s -> %s by %pS",
				__get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
				rtrs_tp_show_state(__entry->old_state),
				rtrs_tp_show_state(__entry->new_state),
				(void *)__entry->caller));

/*
 * rtrs_path_connect: a connect of the path ended: err 0 or why not;
 * attempt: failed reconnect attempts before it, connects: connects of the
 * path so far, this one included
 */
TRACE_EVENT(rtrs_path_connect,
	    TP_PROTO(const struct rtrs_path *path,
		     int err),
	    TP_ARGS(path, err),
	    TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(path))
			     __sockaddr(src, rtrs_tp_addr_len(&path->src_addr))
			     __sockaddr(dst, rtrs_tp_addr_len(&path->dst_addr))
			     __field(int, err)
			     __field(u32, attempt)
			     __field(u32, connects)),
	    TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
					__get_sockaddr(dst), path);
			   __entry->err = err;
			   __entry->attempt = path->reconnect_attempts;
			   __entry->connects = path->recon_cnt;),
	    TP_printk(RTRS_TP_PATH_FMT " err=%d attempt=%u connects=%u",
		      __get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
		      __entry->err, __entry->attempt, __entry->connects));

/*
 * rtrs_hb_missed: a heartbeat tick found nothing received since the one
 * before; missed: such ticks in a row (the path fails when they are
 * more than RTRS_HB_MISSED_MAX)
 */
TRACE_EVENT_CONDITION(rtrs_hb_missed,
		      TP_PROTO(const struct rtrs_path *path,
			       int missed),
		      TP_ARGS(path, missed),
		      TP_CONDITION(missed > 1),
		      TP_STRUCT__entry(__dynamic_array(char, sess, rtrs_tp_name_len(path))
				       __sockaddr(src, rtrs_tp_addr_len(&path->src_addr))
				       __sockaddr(dst, rtrs_tp_addr_len(&path->dst_addr))
				       __field(int, missed)),
		      TP_fast_assign(rtrs_tp_path(__get_str(sess), __get_sockaddr(src),
						  __get_sockaddr(dst), path);
				     __entry->missed = missed - 1;),
		      TP_printk(RTRS_TP_PATH_FMT " missed=%d",
				__get_str(sess), __get_sockaddr(src), __get_sockaddr(dst),
				__entry->missed));

#endif /* RTRS_TRACE_H */

/*
 * define_trace.h includes this file again as TRACE_INCLUDE_PATH/
 * TRACE_INCLUDE_FILE.h: the path is relative to $(src) (Kbuild adds it to
 * the include path of rtrs-trace.o), and the file name comes from Kbuild
 * too, as checkpatch takes the '-' in it for an operator.
 */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#include <trace/define_trace.h>
