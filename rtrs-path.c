// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-path.c - the life of a path: connect, handshake, heartbeat, failure
 * and reconnect.
 *
 * Connecting (rtrs_path_connect()) is the same for the first connect, a
 * reconnect and an added path: connection 0, whose accept tells the queue
 * depth, then every I/O connection, the request slots, and the info
 * exchange on connection 0 that brings the server's chunk table. The
 * server trusts the info request to come last, after every connection.
 *
 * Every failure, whatever reports it (a completion error, the CM, a missed
 * heartbeat, a protocol violation), goes through rtrs_path_error(): only
 * the CONNECTED -> RECONNECTING transition queues the recovery work, so a
 * burst of errors recovers once. The recovery tears the path down
 * (rtrs_path_teardown(), which accepts any partial state) and schedules a
 * reconnect; the reconnect work either succeeds or schedules itself again,
 * until max_reconnect_attempts says stop.
 *
 * ORDER of the teardown: stop the heartbeat; wait out RCU readers, which
 * post requests and poll CQs only on CONNECTED paths; flush every QP, after
 * which no completion can run; hand back the requests; tell the session;
 * free what the connect built, in reverse.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/random.h>
#include <linux/dma-mapping.h>

#include "rtrs-pri.h"
#include "rtrs-trace.h"

struct workqueue_struct *rtrs_wq;

/* ------------------------------------------------------------- state */

static bool rtrs_state_allowed(enum rtrs_path_state old,
			       enum rtrs_path_state new)
{
	switch (new) {
	case RTRS_PATH_CONNECTING:
		return old == RTRS_PATH_RECONNECTING;
	case RTRS_PATH_RECONNECTING:
		return old == RTRS_PATH_CONNECTED ||
		       old == RTRS_PATH_CONNECTING_ERR ||
		       old == RTRS_PATH_CLOSED;
	case RTRS_PATH_CONNECTED:
	case RTRS_PATH_CONNECTING_ERR:
		return old == RTRS_PATH_CONNECTING;
	case RTRS_PATH_CLOSING:
		return old == RTRS_PATH_CONNECTING ||
		       old == RTRS_PATH_CONNECTING_ERR ||
		       old == RTRS_PATH_RECONNECTING ||
		       old == RTRS_PATH_CONNECTED;
	case RTRS_PATH_CLOSED:
		return old == RTRS_PATH_CLOSING;
	case RTRS_PATH_DEAD:
		return old == RTRS_PATH_CLOSED;
	}
	return false;
}

/* one step of the state table; @caller names who asked, for the trace */
static bool rtrs_path_move(struct rtrs_path *path,
			   enum rtrs_path_state new_state, unsigned long caller)
{
	bool changed = rtrs_state_allowed(path->state, new_state);

	lockdep_assert_held(&path->state_lock);
	trace_rtrs_path_state(path, new_state, changed, caller);
	if (changed)
		smp_store_release(&path->state, new_state); /* rtrs_path_state() */
	return changed;
}

/**
 * rtrs_path_change_state() - move a path to @new_state if allowed from the
 * current one (the upstream state table)
 * @path: the path
 * @new_state: where to go
 *
 * Context: any.
 * Return: true if the state changed.
 */
bool rtrs_path_change_state(struct rtrs_path *path,
			    enum rtrs_path_state new_state)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&path->state_lock, flags);
	changed = rtrs_path_move(path, new_state, _RET_IP_);
	spin_unlock_irqrestore(&path->state_lock, flags);
	return changed;
}

/**
 * rtrs_path_error() - a path failed: start recovery once
 * @path: the path
 *
 * A connected path goes to RECONNECTING and the recovery work is queued; a
 * path being connected goes to CONNECTING_ERR, which makes the connecting
 * thread give up. Anything else is already being handled.
 *
 * Context: any (completion handlers, CM handler, work items).
 */
void rtrs_path_error(struct rtrs_path *path)
{
	if (rtrs_path_change_state(path, RTRS_PATH_RECONNECTING))
		queue_work(rtrs_wq, &path->err_work);
	else
		rtrs_path_change_state(path, RTRS_PATH_CONNECTING_ERR);
}

/**
 * rtrs_path_wc_failed() - a work request of @path completed in error
 * @path: the path
 * @wc: its completion
 * @what: the work request, for the log
 *
 * Flushes follow the failure that put the QP in error, which is logged
 * where it happened. Except when the device reports none: soft-RoCE fails
 * a QP on a local error of its own (it re-executes a registration after a
 * retransmission) and flushes everything, the failing request included.
 * The first flush on a working path says so, or the path would go down
 * without a word.
 *
 * Context: completion handlers.
 */
void rtrs_path_wc_failed(struct rtrs_path *path, struct ib_wc *wc,
			 const char *what)
{
	trace_rtrs_wc_err(path, wc, what);
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		rtrs_path_err_rl(path, "%s failed: %s\n", what,
				 ib_wc_status_msg(wc->status));
	else if (rtrs_path_state(path) == RTRS_PATH_CONNECTED)
		rtrs_path_err_rl(path, "%s flushed: QP failed with no error completion\n",
				 what);
	rtrs_path_error(path);
}

/* --------------------------------------------------------- heartbeat */

/*
 * The oldest request in flight on @path is older than the session's I/O
 * timeout (io_timeout_sec, see rtrs-clt.c): checked on the heartbeat tick
 */
static bool rtrs_path_io_timed_out(struct rtrs_path *path)
{
	unsigned int tmo = READ_ONCE(path->clt->io_timeout_sec);
	unsigned long now = jiffies;
	u32 i;

	if (!tmo || !atomic_read(&path->inflight))
		return false;
	for (i = 0; i < path->ep->queue_depth; i++) {
		struct rtrs_req *req = &path->ep->reqs[i];

		if (READ_ONCE(req->state) == RTRS_REQ_POSTED &&
		    time_after(now, READ_ONCE(req->posted_at) +
				    (unsigned long)tmo * HZ)) {
			rtrs_path_err(path, "request on chunk %u unanswered for %u s\n",
				      i, tmo);
			atomic64_inc(&path->clt->reqs[RTRS_REQS_TIMED_OUT]);
			return true;
		}
	}
	return false;
}

static void rtrs_path_hb_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_path *path = container_of(wc->wr_cqe, struct rtrs_path,
					      hb_cqe);

	if (wc->status != IB_WC_SUCCESS)
		rtrs_path_wc_failed(path, wc, "heartbeat send");
}

static void rtrs_path_hb_ack_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_path *path = container_of(wc->wr_cqe, struct rtrs_path,
					      hb_ack_cqe);

	atomic_set(&path->hb_ack_busy, 0);
	if (wc->status != IB_WC_SUCCESS)
		rtrs_path_wc_failed(path, wc, "heartbeat ack");
}

/* Post a heartbeat (@type) with completion @cqe; false if the post failed */
static bool rtrs_path_hb_send(struct rtrs_path *path, u32 type,
			      struct ib_cqe *cqe, int flags)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode	     = IB_WR_RDMA_WRITE_WITH_IMM,
			.wr_cqe	     = cqe,
			.send_flags  = flags,
			.ex.imm_data = cpu_to_be32(rtrs_imm(type, 0)),
		},
	};
	const struct ib_send_wr *bad;

	if (rtrs_con_post_send(path->ep->cons[0], &wr.wr, &wr.wr, &bad)) {
		rtrs_path_err_rl(path, "heartbeat post failed\n");
		rtrs_path_error(path);
		return false;
	}
	return true;
}

static void rtrs_path_hb_work(struct work_struct *work)
{
	struct rtrs_path *path = container_of(to_delayed_work(work),
					      struct rtrs_path, hb_dwork);
	int missed = atomic_inc_return(&path->hb_missed);

	trace_rtrs_hb_missed(path, missed);
	if (rtrs_path_io_timed_out(path)) {
		rtrs_path_error(path);
		return;
	}
	if (missed > RTRS_HB_MISSED_MAX + 1) {
		rtrs_path_err(path, "no heartbeat from the server for %d s\n",
			      RTRS_HB_MISSED_MAX * RTRS_HB_INTERVAL_MS / 1000);
		rtrs_path_error(path);
		return;
	}
	/* One heartbeat out at a time; the ack (or any traffic) resets */
	if (missed == 1) {
		path->hb_last_sent = ktime_get();
		rtrs_path_hb_send(path, RTRS_HB_MSG_IMM, &path->hb_cqe, 0);
	}
	queue_delayed_work(rtrs_wq, &path->hb_dwork,
			   msecs_to_jiffies(RTRS_HB_INTERVAL_MS));
}

/**
 * rtrs_path_hb_rx() - the server sent a heartbeat: acknowledge it
 * @path: the path
 *
 * At most one ack is in flight; a heartbeat that comes while it is, is
 * answered by it (see &rtrs_path.hb_ack_busy).
 *
 * Context: completion handler.
 */
void rtrs_path_hb_rx(struct rtrs_path *path)
{
	/* the server only learns we are alive: one ack at a time says it */
	if (atomic_xchg(&path->hb_ack_busy, 1))
		return;
	if (!rtrs_path_hb_send(path, RTRS_HB_ACK_IMM, &path->hb_ack_cqe,
			       IB_SEND_SIGNALED))
		atomic_set(&path->hb_ack_busy, 0);
}

/**
 * rtrs_path_hb_ack() - our heartbeat came back: record the round trip
 * @path: the path
 *
 * Context: completion handler.
 */
void rtrs_path_hb_ack(struct rtrs_path *path)
{
	WRITE_ONCE(path->hb_cur_latency,
		   ktime_to_ns(ktime_sub(ktime_get(), path->hb_last_sent)));
}

/* ------------------------------------------------------------ connect */

/* Free what rtrs_ep_alloc_reqs() allocated, from any point of it */
static void rtrs_ep_free_reqs(struct rtrs_ep *ep)
{
	u32 i;

	kvfree(ep->rbufs);
	if (!ep->reqs)
		return;
	for (i = 0; i < ep->queue_depth; i++) {
		struct rtrs_req *req = &ep->reqs[i];

		rtrs_frwr_release(req);
		if (req->hdr_dma)
			ib_dma_unmap_single(ep->ib_dev, req->hdr_dma,
					    ep->hdr_size, DMA_TO_DEVICE);
		kfree(req->hdr);
	}
	kvfree(ep->reqs);
}

static int rtrs_ep_alloc_reqs(struct rtrs_ep *ep)
{
	u32 i, qd = ep->queue_depth;
	int err;

	ep->rbufs = kvcalloc(qd, sizeof(*ep->rbufs), GFP_KERNEL);
	ep->reqs = kvcalloc(qd, sizeof(*ep->reqs), GFP_KERNEL);
	if (!ep->reqs || !ep->rbufs)
		return -ENOMEM;
	for (i = 0; i < qd; i++) {
		struct rtrs_req *req = &ep->reqs[i];
		u64 dma;

		req->path = ep->path;
		rtrs_req_init_io_wr(req);
		req->hdr = kmalloc(ep->hdr_size, GFP_KERNEL);
		if (!req->hdr)
			return -ENOMEM;
		dma = ib_dma_map_single(ep->ib_dev, req->hdr, ep->hdr_size,
					DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ep->ib_dev, dma))
			return -ENOMEM;
		req->hdr_dma = dma;
		req->hdr_sync = rtrs_dma_need_sync(ep->ib_dev, dma);
		err = rtrs_frwr_init(req, ep->pd, ep->max_pages_per_mr);
		if (err)
			return err;
		err = xa_insert(&ep->mr_slots, req->mr->rkey >> 8, req,
				GFP_KERNEL);
		if (err)
			return err;
	}
	return 0;
}

/*
 * What connection 0's accept told us, within what we are willing to use;
 * all connects of a session agree on the queue depth: the permits are made
 * from it.
 */
static int rtrs_path_take_params(struct rtrs_path *path)
{
	struct rtrs_ep *ep = path->ep;
	struct rtrs_con *con = ep->cons[0];
	struct rtrs_conn_params *p = &con->rsp;
	struct rtrs_clt_sess *clt = path->clt;
	u32 qd = min_t(u32, p->queue_depth, RTRS_CLT_MAX_QUEUE_DEPTH);

	if (clt->queue_depth && qd != clt->queue_depth) {
		rtrs_path_err(path, "server queue depth %u, session has %u\n",
			      p->queue_depth, clt->queue_depth);
		return -EINVAL;
	}
	ep->params = *p;
	ep->queue_depth = qd;
	ep->hdr_size = min_t(u32, p->max_hdr_size, RTRS_CLT_MAX_HDR_SIZE);
	ep->max_io = min_t(u32, p->max_io_size,
			   ep->max_pages_per_mr * RTRS_MR_PAGE_SIZE);
	ep->signal_interval = min_t(u32, qd, RTRS_SERVICE_QUEUE_DEPTH);
	/* the connections after it are created with it */
	con->signal_interval = ep->signal_interval;
	/* the real source address, for sysfs and for the server's checks */
	memcpy(&path->src_addr, &con->cm_id->route.addr.src_addr,
	       sizeof(path->src_addr));
	/* from now on this path may re-create the session on the server */
	path->first_conn = true;
	return 0;
}

static void rtrs_path_info_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_ep *ep = container_of(wc->wr_cqe, struct rtrs_ep,
					  info_cqe);
	struct rtrs_path *path = ep->path;

	if (wc->status != IB_WC_SUCCESS) {
		ep->info_err = -ECONNRESET;
	} else if (wc->opcode != IB_WC_RECV ||
		   (wc->wc_flags & (IB_WC_WITH_IMM | IB_WC_WITH_INVALIDATE))) {
		/* the first receive on connection 0 must be a plain SEND */
		rtrs_path_err(path, "info response expected, got opcode %d flags %#x\n",
			      wc->opcode, wc->wc_flags);
		ep->info_err = -EPROTO;
	} else {
		ib_dma_sync_single_for_cpu(ep->ib_dev, ep->info_rsp_dma,
					   ep->info_rsp_len, DMA_FROM_DEVICE);
		atomic_set(&path->hb_missed, 0);
		ep->info_err = rtrs_info_rsp_parse(ep->info_rsp,
						   min_t(u32, wc->byte_len,
							 ep->info_rsp_len),
						   &ep->params, ep->rbufs,
						   ep->queue_depth);
		if (ep->info_err)
			rtrs_path_err(path, "bad info response (%u bytes)\n",
				      wc->byte_len);
	}
	complete(&ep->info_done);
}

static void rtrs_path_info_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_ep *ep = container_of(wc->wr_cqe, struct rtrs_ep,
					  info_tx_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		ep->info_err = -ECONNRESET;
		complete(&ep->info_done);
	}
}

/**
 * rtrs_path_info_abort() - connection 0 is gone: stop waiting for the info
 * @path: the path
 * @err: the errno the connect fails with
 *
 * A server that disconnects instead of answering the info request would
 * otherwise keep the connect waiting for the whole info timeout. Harmless
 * outside an info exchange: the next connect has an endpoint of its own.
 *
 * Context: the CM event handler of connection 0, which runs only while
 * @path's endpoint holds that connection.
 */
void rtrs_path_info_abort(struct rtrs_path *path, int err)
{
	path->ep->info_err = err;
	complete(&path->ep->info_done);
}

static void rtrs_ep_free_info(struct rtrs_ep *ep)
{
	if (ep->info_rsp_dma)
		ib_dma_unmap_single(ep->ib_dev, ep->info_rsp_dma,
				    ep->info_rsp_len, DMA_FROM_DEVICE);
	kfree(ep->info_rsp);
	if (ep->info_req_dma)
		ib_dma_unmap_single(ep->ib_dev, ep->info_req_dma,
				    sizeof(struct rtrs_msg_info_req),
				    DMA_TO_DEVICE);
	kfree(ep->info_req);
}

static int rtrs_ep_map_info(struct rtrs_ep *ep)
{
	struct ib_device *dev = ep->ib_dev;
	u64 dma;

	ep->info_rsp_len = sizeof(struct rtrs_msg_info_rsp) +
		ep->params.queue_depth * sizeof(struct rtrs_sg_desc);
	ep->info_rsp = kmalloc(ep->info_rsp_len, GFP_KERNEL);
	ep->info_req = kmalloc(sizeof(*ep->info_req), GFP_KERNEL);
	if (!ep->info_rsp || !ep->info_req)
		return -ENOMEM;
	if (rtrs_info_req_init(ep->info_req, ep->path->clt->sessname))
		return -EINVAL;

	dma = ib_dma_map_single(dev, ep->info_rsp, ep->info_rsp_len,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	ep->info_rsp_dma = dma;
	dma = ib_dma_map_single(dev, ep->info_req,
				sizeof(struct rtrs_msg_info_req), DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	ep->info_req_dma = dma;
	return 0;
}

/* The info exchange on connection 0: our name, the server's chunk table */
static int rtrs_ep_info_exchange(struct rtrs_ep *ep)
{
	struct rtrs_con *con = ep->cons[0];
	struct ib_sge rx_sge, tx_sge;
	struct ib_recv_wr rx = {
		.wr_cqe	 = &ep->info_cqe,
		.sg_list = &rx_sge,
		.num_sge = 1,
	};
	struct ib_send_wr tx = {
		.opcode	    = IB_WR_SEND,
		.wr_cqe	    = &ep->info_tx_cqe,
		.sg_list    = &tx_sge,
		.num_sge    = 1,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long tmo = msecs_to_jiffies(RTRS_CONNECT_TIMEOUT_MS);
	int err;

	err = rtrs_ep_map_info(ep);
	if (err)
		return err;
	rx_sge = (struct ib_sge) {
		.addr	= ep->info_rsp_dma,
		.length	= ep->info_rsp_len,
		.lkey	= ep->pd->local_dma_lkey,
	};
	tx_sge = (struct ib_sge) {
		.addr	= ep->info_req_dma,
		.length	= sizeof(struct rtrs_msg_info_req),
		.lkey	= ep->pd->local_dma_lkey,
	};
	ep->info_cqe.done = rtrs_path_info_rx_done;
	ep->info_tx_cqe.done = rtrs_path_info_tx_done;

	err = ib_post_recv(con->qp, &rx, NULL);
	if (err)
		return err;
	ib_dma_sync_single_for_device(ep->ib_dev, ep->info_req_dma,
				      sizeof(struct rtrs_msg_info_req),
				      DMA_TO_DEVICE);
	err = ib_post_send(con->qp, &tx, NULL);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&ep->info_done, tmo))
		return -ETIMEDOUT;
	return ep->info_err;
}

static int rtrs_path_post_rx(struct rtrs_path *path)
{
	unsigned int cid;
	u32 i;
	int err;

	for (cid = 0; cid < path->con_num; cid++) {
		struct rtrs_con *con = path->ep->cons[cid];

		for (i = 0; i < con->rx_num; i++) {
			err = rtrs_con_post_recv(&con->rx[i]);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Free an endpoint whole, from any point of its connect. Every QP is
 * drained (rtrs_con_disconnect()) and every request handed back first.
 */
static void rtrs_ep_free(struct rtrs_ep *ep, unsigned int con_num)
{
	unsigned int cid;

	rtrs_ep_free_reqs(ep);
	xa_destroy(&ep->mr_slots);
	rtrs_ep_free_info(ep);
	if (ep->cons) {
		for (cid = 0; cid < con_num; cid++)
			rtrs_con_destroy(ep->cons[cid]);
		kfree(ep->cons);
	}
	kfree(ep->cpu_con);
	if (ep->pd)
		ib_dealloc_pd(ep->pd);
	kfree(ep);
}

/*
 * Each CPU's I/O connection, looked up by every post: the CPUs share the
 * interrupt-driven I/O connections (1 .. irq_con_num - 1) round robin
 */
static int rtrs_ep_map_cpus(struct rtrs_ep *ep)
{
	struct rtrs_path *path = ep->path;
	unsigned int cpu;

	ep->cpu_con = kcalloc(nr_cpu_ids, sizeof(*ep->cpu_con), GFP_KERNEL);
	if (!ep->cpu_con)
		return -ENOMEM;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		ep->cpu_con[cpu] = ep->cons[cpu % (path->irq_con_num - 1) + 1];
	return 0;
}

/*
 * Build and connect everything; on error the caller tears down. Called
 * with init_mutex held, the path CONNECTING and without an endpoint.
 */
static int rtrs_path_connect(struct rtrs_path *path)
{
	struct rtrs_ep *ep;
	unsigned int cid;
	int err;

	lockdep_assert_held(&path->init_mutex);
	path->recon_cnt++;
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return -ENOMEM;
	ep->path = path;
	xa_init(&ep->mr_slots);
	init_completion(&ep->info_done);
	/* from here the teardown frees it, whatever the connect got to */
	path->ep = ep;
	ep->cons = kcalloc(path->con_num, sizeof(*ep->cons), GFP_KERNEL);
	if (!ep->cons)
		return -ENOMEM;
	for (cid = 0; cid < path->con_num; cid++) {
		ep->cons[cid] = rtrs_con_create(path, cid);
		if (!ep->cons[cid])
			return -ENOMEM;
		err = rtrs_con_connect(ep->cons[cid]);
		if (!err && cid == 0)
			err = rtrs_path_take_params(path);
		if (err)
			return err;
	}
	err = rtrs_ep_map_cpus(ep);
	if (!err)
		err = rtrs_ep_alloc_reqs(ep);
	if (!err)
		err = rtrs_ep_info_exchange(ep);
	if (!err)
		err = rtrs_path_post_rx(path);
	if (!err)
		err = rtrs_clt_set_limits(path);
	return err;
}

/* Undo rtrs_path_connect(), from any point; init_mutex held */
static void rtrs_path_teardown(struct rtrs_path *path)
{
	struct rtrs_ep *ep = path->ep;
	unsigned int cid;

	lockdep_assert_held(&path->init_mutex);
	cancel_delayed_work_sync(&path->hb_dwork);
	synchronize_rcu();
	if (ep && ep->cons)
		for (cid = 0; cid < path->con_num; cid++)
			if (ep->cons[cid])
				rtrs_con_disconnect(ep->cons[cid]);
	rtrs_path_fail_reqs(path);
	if (path->up) {
		path->up = false;
		rtrs_clt_path_down(path);
	}
	if (ep) {
		/* not before: the CM handlers may run until each cm_id is gone */
		rtrs_ep_free(ep, path->con_num);
		path->ep = NULL;
	}
	atomic_set(&path->hb_missed, 0);
	/* the drain completed (flushed) any ack in flight */
	atomic_set(&path->hb_ack_busy, 0);
}

/* Connect under init_mutex; on success the path is CONNECTED and beating */
static int rtrs_path_try_connect(struct rtrs_path *path)
{
	int err;

	mutex_lock(&path->init_mutex);
	err = rtrs_path_connect(path);
	if (!err && !rtrs_path_change_state(path, RTRS_PATH_CONNECTED))
		err = -ECONNABORTED;
	trace_rtrs_path_connect(path, err);
	if (err) {
		rtrs_path_teardown(path);
	} else {
		WRITE_ONCE(path->last_rx, jiffies);
		path->up = true;
		rtrs_clt_path_up(path);
		queue_delayed_work(rtrs_wq, &path->hb_dwork,
				   msecs_to_jiffies(RTRS_HB_INTERVAL_MS));
	}
	mutex_unlock(&path->init_mutex);
	return err;
}

/**
 * rtrs_path_open() - the first connect of a new path
 * @path: a path from rtrs_path_alloc(), CONNECTING
 *
 * A failed first connect is not retried: the caller (rtrs_clt_open() or
 * add_path) reports it.
 *
 * Context: process, sleeps up to RTRS_CONNECT_TIMEOUT_MS per step of every
 * connection.
 * Return: 0 or the error of the step that failed.
 */
int rtrs_path_open(struct rtrs_path *path)
{
	int err = rtrs_path_try_connect(path);

	if (err) {
		rtrs_path_change_state(path, RTRS_PATH_CONNECTING_ERR);
		rtrs_path_change_state(path, RTRS_PATH_CLOSING);
		rtrs_path_change_state(path, RTRS_PATH_CLOSED);
	}
	return err;
}

/*
 * A manual reconnect of a connected path waits this long after its
 * teardown, and between attempts the server rejects: it rejects the path
 * (-ECONNRESET) until it has closed the old instance, which it does soon
 * after our disconnect reaches it, but not at once on a slow host (seen:
 * over 2 s on a sanitizer kernel under emulation). Only that rejection is
 * retried, for RTRS_RECONNECT_SETTLE_MS at most.
 */
#define RTRS_RECONNECT_BACKOFF_MS	1000
#define RTRS_RECONNECT_SETTLE_MS	10000

/*
 * The server drops a silent path after RTRS_HB_MISSED_MAX + 1 heartbeat
 * intervals and until then rejects a reconnect of it. The first attempt
 * of an outage noticed early (a port that went down) is therefore made no
 * sooner than one more interval after the server was last heard from:
 * otherwise it is all but sure to fail, and the path stays down for
 * another whole reconnect delay.
 */
#define RTRS_SRV_DROP_MS	((RTRS_HB_MISSED_MAX + 2) * RTRS_HB_INTERVAL_MS)

static void rtrs_path_schedule_reconnect(struct rtrs_path *path, bool first)
{
	unsigned long delay = path->clt->reconnect_delay_sec * 1000UL;
	unsigned long quiet;

	if (first) {
		quiet = jiffies_to_msecs(jiffies - READ_ONCE(path->last_rx));
		if (quiet < RTRS_SRV_DROP_MS)
			delay = max(delay, RTRS_SRV_DROP_MS - quiet);
	}
	delay += get_random_u32() % 1000;
	queue_delayed_work(rtrs_wq, &path->reconnect_dwork,
			   msecs_to_jiffies(delay));
}

static void rtrs_path_err_work(struct work_struct *work)
{
	struct rtrs_path *path = container_of(work, struct rtrs_path,
					      err_work);

	mutex_lock(&path->init_mutex);
	rtrs_path_teardown(path);
	mutex_unlock(&path->init_mutex);
	if (rtrs_path_state(path) == RTRS_PATH_RECONNECTING)
		rtrs_path_schedule_reconnect(path, true);
}

/*
 * After a failed attempt, the path waits for the next one (RECONNECTING).
 * It may be CONNECTING still, or CONNECTING_ERR already: an error reported
 * while the attempt ran (the CM's disconnect of a connection that the
 * attempt's own cleanup closed) moves it there first, and the next attempt
 * must be scheduled all the same, or the path is stranded. Both steps under
 * state_lock, because a path closed meanwhile is CLOSED, from which
 * RECONNECTING is allowed too, and must stay closed.
 * Return: true if the path is RECONNECTING now and needs its next attempt.
 */
static bool rtrs_path_attempt_failed(struct rtrs_path *path)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&path->state_lock, flags);
	if (path->state == RTRS_PATH_CONNECTING)
		rtrs_path_move(path, RTRS_PATH_CONNECTING_ERR, _THIS_IP_);
	changed = path->state == RTRS_PATH_CONNECTING_ERR &&
		  rtrs_path_move(path, RTRS_PATH_RECONNECTING, _THIS_IP_);
	spin_unlock_irqrestore(&path->state_lock, flags);
	return changed;
}

/*
 * One attempt to connect a RECONNECTING path again; a failed one schedules
 * the next. Runs in the reconnect work, or in the writer of a manual
 * reconnect: there the connect's allocations are the writer's, which is
 * what per-task fault injection (fail-nth) needs to reach them.
 * max_reconnect_attempts limits only the attempts a path makes by itself:
 * a manual reconnect is how a path that gave up (or never tries, at 0) is
 * revived, so its own attempts are made whatever the count.
 * Return: 0 if the path is connected now, else why not.
 */
static int rtrs_path_reconnect_attempt(struct rtrs_path *path, bool manual)
{
	int max = READ_ONCE(path->clt->max_reconnect_attempts);
	int err;

	if (rtrs_path_state(path) != RTRS_PATH_RECONNECTING)
		return -EBUSY;
	if (!manual && max >= 0 && path->reconnect_attempts >= max) {
		rtrs_path_info(path, "giving up after %u reconnect attempts\n",
			       path->reconnect_attempts);
		rtrs_path_change_state(path, RTRS_PATH_CLOSING);
		rtrs_path_change_state(path, RTRS_PATH_CLOSED);
		return -ENOTCONN;
	}
	path->reconnect_attempts++;
	if (!rtrs_path_change_state(path, RTRS_PATH_CONNECTING))
		return -EBUSY;
	err = rtrs_path_try_connect(path);
	if (!err) {
		path->reconnect_attempts = 0;
		path->stats.reconnect_ok++;
		rtrs_path_info(path, "reconnected\n");
		return 0;
	}
	/* a server that does not answer fails here with nothing else logged */
	rtrs_path_err_rl(path, "reconnect attempt %u failed: %d\n",
			 path->reconnect_attempts, err);
	path->stats.reconnect_fail++;
	if (rtrs_path_attempt_failed(path))
		rtrs_path_schedule_reconnect(path, false);
	return err;
}

static void rtrs_path_reconnect_work(struct work_struct *work)
{
	struct rtrs_path *path = container_of(to_delayed_work(work),
					      struct rtrs_path,
					      reconnect_dwork);

	rtrs_path_reconnect_attempt(path, false);
}

/**
 * rtrs_path_reconnect_now() - tear a path down and connect it again at once
 * @path: a path that is CONNECTED, CONNECTING_ERR, CLOSED or RECONNECTING
 *
 * A path already recovering from a failure (RECONNECTING) makes its next
 * attempt now instead of at its scheduled time, as upstream does. Unlike
 * upstream, an attempt the server rejects because it still holds the old
 * instance of the path is repeated (see RTRS_RECONNECT_BACKOFF_MS), and
 * max_reconnect_attempts does not stop it (upstream's refuses at 0, so a
 * path of a session at 0 could never be revived). The attempts run in the
 * caller's context.
 *
 * Context: process, sleeps for the whole connect.
 * Return: 0 if connected afterwards, -ENOTCONN if not, -EBUSY if the path
 * is in a state that does not allow it (connecting, closing, dead).
 */
int rtrs_path_reconnect_now(struct rtrs_path *path)
{
	unsigned long deadline;
	int err;

	if (rtrs_path_change_state(path, RTRS_PATH_RECONNECTING)) {
		mutex_lock(&path->init_mutex);
		rtrs_path_teardown(path);
		mutex_unlock(&path->init_mutex);
		path->reconnect_attempts = 0;
		msleep(RTRS_RECONNECT_BACKOFF_MS);
	} else if (rtrs_path_state(path) == RTRS_PATH_RECONNECTING) {
		/* the failure's teardown first; it schedules an attempt */
		flush_work(&path->err_work);
	} else {
		return -EBUSY;
	}
	deadline = jiffies + msecs_to_jiffies(RTRS_RECONNECT_SETTLE_MS);
	for (;;) {
		/* a scheduled attempt is the one made now */
		cancel_delayed_work_sync(&path->reconnect_dwork);
		err = rtrs_path_reconnect_attempt(path, true);
		if (err != -ECONNRESET || time_after(jiffies, deadline))
			break;
		msleep(RTRS_RECONNECT_BACKOFF_MS);
	}
	return rtrs_path_state(path) == RTRS_PATH_CONNECTED ? 0 : -ENOTCONN;
}

/**
 * rtrs_path_close() - disconnect a path and stop it reconnecting
 * @path: the path, in any state
 *
 * Afterwards the path is CLOSED (or DEAD, if it was) and holds no verbs
 * resources; every request it had was handed back. A later
 * rtrs_path_reconnect_now() may revive it.
 *
 * Context: process, may sleep.
 */
void rtrs_path_close(struct rtrs_path *path)
{
	rtrs_path_change_state(path, RTRS_PATH_CLOSING);
	cancel_work_sync(&path->err_work);
	cancel_delayed_work_sync(&path->reconnect_dwork);
	mutex_lock(&path->init_mutex);
	rtrs_path_teardown(path);
	mutex_unlock(&path->init_mutex);
	rtrs_path_change_state(path, RTRS_PATH_CLOSED);
}

/**
 * rtrs_path_device_removed() - tear a path down if it uses @dev
 * @path: the path
 * @dev: the device going away
 *
 * A connected path then reconnects after the usual delay, perhaps over
 * another device.
 *
 * Context: process (the ib_client's remove), may sleep.
 */
void rtrs_path_device_removed(struct rtrs_path *path, struct ib_device *dev)
{
	mutex_lock(&path->init_mutex);
	if (path->ep && path->ep->ib_dev == dev) {
		rtrs_path_error(path);
		rtrs_path_teardown(path);
	}
	mutex_unlock(&path->init_mutex);
}

/**
 * rtrs_path_alloc() - allocate a path; nothing is connected yet
 * @clt: the session
 * @addr: source (may be NULL) and destination
 * @nr_poll_queues: polled connections to add to the interrupt ones
 *
 * The path is freed with rtrs_path_free() whatever happens to it.
 *
 * Context: process.
 * Return: the path, or an ERR_PTR.
 */
struct rtrs_path *rtrs_path_alloc(struct rtrs_clt_sess *clt,
				  const struct rtrs_addr *addr,
				  unsigned int nr_poll_queues)
{
	struct rtrs_path *path;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return ERR_PTR(-ENOMEM);
	path->stats.pcpu = alloc_percpu(struct rtrs_path_stats_pcpu);
	if (!path->stats.pcpu) {
		kfree(path);
		return ERR_PTR(-ENOMEM);
	}
	path->clt = clt;
	INIT_LIST_HEAD(&path->entry);
	memcpy(&path->dst_addr, addr->dst, sizeof(path->dst_addr));
	if (addr->src) {
		memcpy(&path->src_addr, addr->src, sizeof(path->src_addr));
		path->has_src = true;
	}
	uuid_gen(&path->uuid);
	path->irq_con_num = nr_cpu_ids + 1;
	path->con_num = path->irq_con_num + nr_poll_queues;
	path->state = RTRS_PATH_CONNECTING;
	spin_lock_init(&path->state_lock);
	mutex_init(&path->init_mutex);
	path->hb_cqe.done = rtrs_path_hb_done;
	path->hb_ack_cqe.done = rtrs_path_hb_ack_done;
	INIT_DELAYED_WORK(&path->hb_dwork, rtrs_path_hb_work);
	INIT_WORK(&path->err_work, rtrs_path_err_work);
	INIT_DELAYED_WORK(&path->reconnect_dwork, rtrs_path_reconnect_work);
	rtrs_path_kobj_init(path);
	return path;
}

/**
 * rtrs_path_release() - free the memory of a path; its kobject's release
 * @path: a closed path
 */
void rtrs_path_release(struct rtrs_path *path)
{
	mutex_destroy(&path->init_mutex);
	free_percpu(path->stats.pcpu);
	kfree(path);
}

/**
 * rtrs_path_free() - drop the allocation reference of a path
 * @path: a closed path, off the session's list
 */
void rtrs_path_free(struct rtrs_path *path)
{
	kobject_put(&path->kobj);
}
