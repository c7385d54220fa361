// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-conn.c - one RC connection of a path: cm_id, CQ, QP and receives.
 *
 * Connecting is done step by step by the thread that connects the path:
 * resolve the address, build CQ and QP on the device the address resolved
 * to, resolve the route, send the conn_req. The CM handler only reports
 * each step's outcome (cm_done/cm_err) and, once the connection is up,
 * turns CM trouble into path error recovery.
 *
 * Teardown is rtrs_con_disconnect() (stop traffic, flush everything posted)
 * then rtrs_con_destroy(); both accept a connection in any partial state.
 *
 * A polled connection's CQ raises no interrupts: its user reaps it through
 * rtrs_clt_rdma_cq_direct(). Requests nobody polls for (non-polled I/O, a
 * CPU that stopped polling, a request failed over from another path) still
 * complete: while requests are in flight, a sweeper reaps the CQ whenever
 * nobody polled it for RTRS_POLL_SWEEP_MS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/dma-mapping.h>
#include <linux/moduleparam.h>

#include "rtrs-pri.h"

/*
 * The local ACK timeout is 4.096 us * 2^ack_timeout; the RDMA CM picks one
 * from the packet lifetime of the route (about half a second on RoCE). A
 * peer slower than that to acknowledge (a guest under emulation, an
 * overloaded host) triggers retransmissions; on soft-RoCE those can fail
 * the QP (see rtrs_path_wc_failed()).
 */
static int rtrs_ack_timeout_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 31);
}

static const struct kernel_param_ops rtrs_ack_timeout_ops = {
	.set = rtrs_ack_timeout_set,
	.get = param_get_uint,
};

static unsigned int ack_timeout;
module_param_cb(ack_timeout, &rtrs_ack_timeout_ops, &ack_timeout, 0644);
MODULE_PARM_DESC(ack_timeout,
		 "Local ACK timeout of new connections: 4.096 us * 2^N, N 1-31; 0 (default): the RDMA CM's");

/* Receives the service connection keeps posted: as many as upstream */
#define RTRS_SERVICE_RX_NUM	(2 * RTRS_SERVICE_QUEUE_DEPTH)

static void rtrs_con_step_done(struct rtrs_con *con, int err)
{
	con->cm_err = err;
	complete(&con->cm_done);
}

static int rtrs_con_rejected(struct rtrs_con *con, struct rdma_cm_event *ev)
{
	const void *data;
	u8 len = 0;
	int err;

	/* NULL unless the server rejected with its own private data */
	data = rdma_consumer_reject_data(con->cm_id, ev, &len);
	if (data)
		err = rtrs_conn_rej_errno(data, len);
	else
		err = -ECONNRESET;
	rtrs_path_err_rl(con->path, "connection %u rejected: %s, errno %d\n",
			 con->cid, rdma_reject_msg(con->cm_id, ev->status), err);
	return err;
}

static int rtrs_con_established(struct rtrs_con *con,
				struct rdma_cm_event *ev)
{
	int err;

	err = rtrs_conn_rsp_parse(ev->param.conn.private_data,
				  ev->param.conn.private_data_len, &con->rsp);
	if (err)
		rtrs_path_err_rl(con->path,
				 "connection %u: bad accept data (%u bytes): %d\n",
				 con->cid, ev->param.conn.private_data_len, err);
	else
		con->established = true;
	return err;
}

/*
 * An error event fails the connect step waiting for it; on a connection
 * already up it fails the whole path: 6.12's CM reports UNREACHABLE on an
 * established connection when its peer's neighbour entry changes (a link
 * cut), often before the port event and the flushes, which then find the
 * path down already and say nothing. So say it here.
 */
static void rtrs_con_failed(struct rtrs_con *con, struct rdma_cm_event *ev,
			    int err)
{
	bool was_up = con->established;

	con->established = false;
	rtrs_con_step_done(con, err);
	if (!was_up)
		return;
	if (rtrs_path_state(con->path) == RTRS_PATH_CONNECTED)
		rtrs_path_err_rl(con->path, "connection %u: %s, status %d\n",
				 con->cid, rdma_event_msg(ev->event),
				 ev->status);
	rtrs_path_error(con->path);
}

static int rtrs_cm_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	struct rtrs_con *con = cm_id->context;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rtrs_con_step_done(con, 0);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rtrs_con_step_done(con, rtrs_con_established(con, ev));
		break;
	case RDMA_CM_EVENT_REJECTED:
		rtrs_con_step_done(con, rtrs_con_rejected(con, ev));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		rtrs_con_failed(con, ev, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rtrs_con_failed(con, ev, -ECONNRESET);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The device removal itself is handled by our ib_client,
		 * which tears every path on the device down before the CM
		 * waits for the cm_ids to go. On a working path, say why it
		 * fails: nothing else will.
		 */
		if (rtrs_path_state(con->path) == RTRS_PATH_CONNECTED)
			rtrs_path_err_rl(con->path, "connection %u: %s\n",
					 con->cid, rdma_event_msg(ev->event));
		con->established = false;
		rtrs_con_step_done(con, -ECONNRESET);
		if (con->cid == 0)
			rtrs_path_info_abort(con->path, -ECONNRESET);
		rtrs_path_error(con->path);
		break;
	default:
		rtrs_path_info(con->path, "connection %u: CM event %s (%d)\n",
			       con->cid, rdma_event_msg(ev->event), ev->event);
		break;
	}
	/* Never non-zero: the cm_id is ours to destroy */
	return 0;
}

/*
 * @step names the CM step waited for in the log line of a timeout: a step
 * the CM never answers leaves nothing else behind (no event; on a soft-RoCE
 * device whose CM queue pair is in error, not even a packet on the wire:
 * tests/README.md, Known issues), and "reconnect attempt failed: -110"
 * alone cannot tell a silent server from a local stall.
 */
static int rtrs_con_wait_step(struct rtrs_con *con, const char *step)
{
	unsigned long tmo = msecs_to_jiffies(RTRS_CONNECT_TIMEOUT_MS);

	if (!wait_for_completion_timeout(&con->cm_done, tmo)) {
		rtrs_path_err_rl(con->path,
				 "connection %u: no CM event for %s in %u ms\n",
				 con->cid, step, RTRS_CONNECT_TIMEOUT_MS);
		return -ETIMEDOUT;
	}
	reinit_completion(&con->cm_done);
	if (con->cm_err)
		return con->cm_err;
	/* The path may have failed or been closed meanwhile */
	if (rtrs_path_state(con->path) != RTRS_PATH_CONNECTING)
		return -ECONNABORTED;
	return 0;
}

static void rtrs_qp_event(struct ib_event *ev, void *ctx)
{
	struct rtrs_con *con = ctx;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		rdma_notify(con->cm_id, ev->event);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		rtrs_path_err_rl(con->path, "connection %u: QP event %s\n",
				 con->cid, ib_event_msg(ev->event));
		rtrs_path_error(con->path);
		break;
	default:
		break;
	}
}

/*
 * Send queue: per request a REG_MR, the RDMA WRITE and a LOCAL_INV; with
 * one send in signal_interval signalled, up to a queue depth more may sit
 * retired-but-unreaped; +1 for ib_drain_qp(). The service connection
 * carries heartbeats and the few control requests of the user.
 */
static void rtrs_con_queue_sizes(struct rtrs_con *con, u32 *send_wr,
				 u32 *recv_wr)
{
	struct rtrs_path *path = con->path;
	u32 limit = path->ep->ib_dev->attrs.max_qp_wr;

	if (con->cid == 0) {
		*send_wr = min_t(u32, limit, RTRS_SERVICE_RX_NUM + 2);
		*recv_wr = min_t(u32, limit, RTRS_SERVICE_RX_NUM + 1);
	} else {
		*send_wr = min_t(u32, limit, 4 * path->ep->queue_depth + 2);
		/* two receives per request: SEND_WITH_INV and the response */
		*recv_wr = min_t(u32, limit, 2 * path->ep->queue_depth + 1);
	}
}

static int rtrs_con_alloc_rx(struct rtrs_con *con, u32 num)
{
	struct ib_device *dev = con->path->ep->ib_dev;
	u32 i;

	con->rx = kcalloc(num, sizeof(*con->rx), GFP_KERNEL);
	con->rx_buf = kcalloc(num, RTRS_RX_SIZE, GFP_KERNEL);
	if (!con->rx || !con->rx_buf)
		return -ENOMEM;
	con->rx_dma = ib_dma_map_single(dev, con->rx_buf, num * RTRS_RX_SIZE,
					DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, con->rx_dma)) {
		con->rx_dma = 0;
		return -ENOMEM;
	}
	con->rx_sync = rtrs_dma_need_sync(dev, con->rx_dma);
	for (i = 0; i < num; i++) {
		struct rtrs_rx *rx = &con->rx[i];

		rx->cqe.done = rtrs_rx_done;
		rx->con = con;
		rx->idx = i;
		rx->sge.addr = con->rx_dma + i * RTRS_RX_SIZE;
		rx->sge.length = RTRS_RX_SIZE;
		rx->sge.lkey = con->path->ep->pd->local_dma_lkey;
		rx->wr.wr_cqe = &rx->cqe;
		rx->wr.sg_list = &rx->sge;
		rx->wr.num_sge = 1;
	}
	con->rx_num = num;
	return 0;
}

static void rtrs_con_free_rx(struct rtrs_con *con)
{
	if (con->rx_dma)
		ib_dma_unmap_single(con->path->ep->ib_dev, con->rx_dma,
				    con->rx_num * RTRS_RX_SIZE, DMA_FROM_DEVICE);
	con->rx_dma = 0;
	kfree(con->rx_buf);
	con->rx_buf = NULL;
	kfree(con->rx);
	con->rx = NULL;
	con->rx_num = 0;
}

static int rtrs_con_create_qp(struct rtrs_con *con)
{
	struct rtrs_path *path = con->path;
	struct ib_qp_init_attr attr = {};
	u32 send_wr, recv_wr;
	int vector, err;

	rtrs_con_queue_sizes(con, &send_wr, &recv_wr);
	con->nr_cqe = send_wr + recv_wr;
	vector = con->cpu % path->ep->ib_dev->num_comp_vectors;
	if (con->polled)
		con->cq = ib_alloc_cq(path->ep->ib_dev, con, con->nr_cqe, vector,
				      IB_POLL_DIRECT);
	else
		con->cq = ib_cq_pool_get(path->ep->ib_dev, con->nr_cqe, vector,
					 IB_POLL_SOFTIRQ);
	if (IS_ERR(con->cq)) {
		err = PTR_ERR(con->cq);
		con->cq = NULL;
		return err;
	}

	attr.event_handler = rtrs_qp_event;
	attr.qp_context = con;
	attr.send_cq = con->cq;
	attr.recv_cq = con->cq;
	attr.cap.max_send_wr = send_wr;
	attr.cap.max_recv_wr = recv_wr;
	attr.cap.max_send_sge = path->ep->max_send_sge;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	err = rdma_create_qp(con->cm_id, path->ep->pd, &attr);
	if (err)
		return err;
	con->qp = con->cm_id->qp;

	/* keep one receive slot free for ib_drain_qp() */
	return rtrs_con_alloc_rx(con, recv_wr - 1);
}

/*
 * Reap a polled CQ unless another thread is at it; at most a budget, so a
 * server flooding the queue cannot keep the caller here (the sweeper and
 * the user's poll loop come back for the rest)
 */
static int rtrs_con_reap(struct rtrs_con *con)
{
	int cnt;

	if (!spin_trylock(&con->poll_lock))
		return 0;
	cnt = ib_process_cq_direct(con->cq, RTRS_POLL_BUDGET);
	spin_unlock(&con->poll_lock);
	return cnt;
}

/**
 * rtrs_con_poll() - reap a polled connection's CQ, unless someone else is
 * @con: the connection
 *
 * Context: process; does not sleep.
 * Return: completions reaped; 0 for an interrupt-driven connection.
 */
int rtrs_con_poll(struct rtrs_con *con)
{
	if (!con->polled)
		return 0;
	WRITE_ONCE(con->last_poll, jiffies);
	return rtrs_con_reap(con);
}

static void rtrs_con_sweep(struct work_struct *work)
{
	struct rtrs_con *con = container_of(to_delayed_work(work),
					    struct rtrs_con, sweep_dwork);
	unsigned long period = msecs_to_jiffies(RTRS_POLL_SWEEP_MS);
	int cnt;

	/*
	 * Someone polls: leave the completions to the poller. Else reap them
	 * here, in process context as a poller would: not under
	 * local_bh_disable(), which would look like interrupt context to the
	 * block layer.
	 */
	if (time_after_eq(jiffies, READ_ONCE(con->last_poll) + period)) {
		cnt = rtrs_con_reap(con);
		if (cnt > 0)
			atomic64_add(cnt, &con->path->clt->poll_swept);
	}
	if (atomic_read(&con->polled_inflight))
		queue_delayed_work(rtrs_wq, &con->sweep_dwork, period);
}

/**
 * rtrs_con_polled_get() - a request was posted on a polled connection
 * @con: the connection
 *
 * Starts the sweeper if it is not running, so the request completes even
 * if nobody polls for it.
 */
void rtrs_con_polled_get(struct rtrs_con *con)
{
	atomic_inc(&con->polled_inflight);
	queue_delayed_work(rtrs_wq, &con->sweep_dwork,
			   msecs_to_jiffies(RTRS_POLL_SWEEP_MS));
}

/**
 * rtrs_con_polled_put() - a request of a polled connection is done
 * @con: the connection
 */
void rtrs_con_polled_put(struct rtrs_con *con)
{
	atomic_dec(&con->polled_inflight);
}

/**
 * rtrs_con_create() - allocate a connection; nothing is set up yet
 * @path: the path
 * @cid: its index in the path
 *
 * Context: process.
 * Return: the connection or NULL.
 */
struct rtrs_con *rtrs_con_create(struct rtrs_path *path, unsigned int cid)
{
	struct rtrs_con *con;

	con = kzalloc(sizeof(*con), GFP_KERNEL);
	if (!con)
		return NULL;
	con->path = path;
	con->cid = cid;
	con->cpu = cid ? (cid - 1) % nr_cpu_ids : 0;
	con->polled = cid >= path->irq_con_num;
	/* connection 0 comes before the queue depth: take_params updates it */
	con->signal_interval = path->ep->signal_interval ?: 1;
	spin_lock_init(&con->poll_lock);
	INIT_DELAYED_WORK(&con->sweep_dwork, rtrs_con_sweep);
	init_completion(&con->cm_done);
	return con;
}

/* Connection 0 decides the device of the whole path */
static int rtrs_con_bind_device(struct rtrs_con *con)
{
	struct rtrs_path *path = con->path;
	struct rtrs_ep *ep = path->ep;
	struct ib_device *dev = con->cm_id->device;

	if (con->cid)
		return dev == ep->ib_dev ? 0 : -EXDEV;
	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return -EOPNOTSUPP;
	ep->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ep->pd)) {
		int err = PTR_ERR(ep->pd);

		ep->pd = NULL;
		return err;
	}
	ep->ib_dev = dev;
	strscpy(path->hca_name, dev_name(&dev->dev), sizeof(path->hca_name));
	path->hca_port = con->cm_id->port_num;
	ep->max_pages_per_mr = min3(RTRS_MAX_SEGMENTS,
				    dev->attrs.max_fast_reg_page_list_len,
				    (u32)(dev->attrs.max_mr_size >>
					  ilog2(RTRS_MR_PAGE_SIZE)));
	/* one SGE for the header, the rest for unregistered write data */
	ep->max_send_sge = min_t(u32, dev->attrs.max_send_sge,
				 RTRS_MAX_SEND_SGE);
	if (ep->max_send_sge < 2 || !ep->max_pages_per_mr)
		return -EOPNOTSUPP;
	return 0;
}

/**
 * rtrs_con_connect() - resolve, build and connect one connection
 * @con: a connection from rtrs_con_create()
 *
 * Connection 0 must be connected first: it binds the path to its device
 * and brings the server's queue depth, which sizes the other connections.
 * On failure the caller tears down with rtrs_con_destroy().
 *
 * Context: process, sleeps up to RTRS_CONNECT_TIMEOUT_MS per CM step.
 * Return: 0, the server's reject errno, -ETIMEDOUT, -EHOSTUNREACH,
 * -ECONNRESET, -ECONNABORTED when the path was failed or closed meanwhile,
 * or an allocation error.
 */
int rtrs_con_connect(struct rtrs_con *con)
{
	struct rtrs_path *path = con->path;
	struct sockaddr *dst = (struct sockaddr *)&path->dst_addr;
	struct sockaddr *src = path->has_src ?
		(struct sockaddr *)&path->src_addr : NULL;
	struct rtrs_msg_conn_req req;
	struct rdma_conn_param param = {
		.private_data	  = &req,
		.private_data_len = sizeof(req),
		.retry_count	  = 7,
		.rnr_retry_count  = 7,
	};
	unsigned int ack = READ_ONCE(ack_timeout);
	struct rdma_cm_id *cm_id;
	int err;

	cm_id = rdma_create_id(&init_net, rtrs_cm_handler, con,
			       dst->sa_family == AF_IB ? RDMA_PS_IB : RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(cm_id))
		return PTR_ERR(cm_id);
	con->cm_id = cm_id;
	err = rdma_set_reuseaddr(cm_id, 1);
	if (!err && ack)
		err = rdma_set_ack_timeout(cm_id, ack);
	if (err)
		return err;

	err = rdma_resolve_addr(cm_id, src, dst, RTRS_CONNECT_TIMEOUT_MS);
	if (!err)
		err = rtrs_con_wait_step(con, "address resolution");
	if (!err)
		err = rtrs_con_bind_device(con);
	if (!err)
		err = rtrs_con_create_qp(con);
	if (!err)
		err = rdma_resolve_route(cm_id, RTRS_CONNECT_TIMEOUT_MS);
	if (!err)
		err = rtrs_con_wait_step(con, "route resolution");
	if (err)
		return err;

	rtrs_conn_req_init(&req, con->cid, path->con_num, path->recon_cnt,
			   &path->uuid, &path->clt->uuid, path->first_conn);
	err = rdma_connect(cm_id, &param);
	if (!err)
		err = rtrs_con_wait_step(con, "the server's reply");
	return err;
}

/**
 * rtrs_con_disconnect() - stop a connection and flush what it has posted
 * @con: the connection, in any state
 *
 * After this every work request posted on @con has completed (flushed),
 * so the objects they name may be reused or freed.
 *
 * Context: process, may sleep.
 */
void rtrs_con_disconnect(struct rtrs_con *con)
{
	/* ib_drain_qp() reaps a polled CQ itself; the sweeper must not */
	cancel_delayed_work_sync(&con->sweep_dwork);
	if (con->cm_id)
		rdma_disconnect(con->cm_id);
	if (con->qp)
		ib_drain_qp(con->qp);
	con->established = false;
}

/**
 * rtrs_con_destroy() - free a connection in any state; drains it first
 * @con: the connection, or NULL
 *
 * Context: process, may sleep.
 */
void rtrs_con_destroy(struct rtrs_con *con)
{
	if (!con)
		return;
	rtrs_con_disconnect(con);
	if (con->qp) {
		rdma_destroy_qp(con->cm_id);
		con->qp = NULL;
	}
	rtrs_con_free_rx(con);
	if (con->cq) {
		if (con->polled)
			ib_free_cq(con->cq);
		else
			ib_cq_pool_put(con->cq, con->nr_cqe);
		con->cq = NULL;
	}
	if (con->cm_id) {
		rdma_destroy_id(con->cm_id);
		con->cm_id = NULL;
	}
	kfree(con);
}
