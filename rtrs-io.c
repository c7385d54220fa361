// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-io.c - requests on the wire and their completions.
 *
 * A request goes out as one RDMA WRITE WITH IMMEDIATE into the server chunk
 * of its permit; the immediate names the chunk and where in it the rtrs
 * header lies:
 *
 *   WRITE: [data][user message][rtrs_msg_rdma_write] from chunk offset 0.
 *          The data leaves from the user's pages directly, with the PD's
 *          local DMA lkey, when the pages fit the send SGEs; otherwise from
 *          an MR registered for local access.
 *   READ:  [user message][rtrs_msg_rdma_read + one desc] at chunk offset
 *          data_len; the desc names an MR over the user's pages that the
 *          server RDMA-writes the data into.
 *
 * The server answers on the same connection with an immediate carrying the
 * chunk id and an errno, either as an RDMA WRITE WITH IMM (no payload) or,
 * when it rotates chunk rkeys (RTRS_MSG_NEW_RKEY_F), as a SEND WITH IMM
 * carrying the chunk's next rkey. With remote_invalidate, a READ's answer
 * is preceded by a SEND_WITH_INV of our rkey on the same connection (not
 * always right before it: a 6.1 server's soft-RoCE may interleave the work
 * requests of two responses).
 *
 * Nothing the server sends is trusted: a response must name a slot in
 * flight on the connection it came on; an invalidation must name the live
 * MR of a request in flight on its connection (a stale, replayed or
 * guessed key is refused, so it never frees an MR the server can still
 * reach), and that request's response must say it was invalidated; a
 * response that arrives while its request is still being posted is left
 * to the poster (enum rtrs_req_posting). A violation fails the path, whose
 * teardown owns the slots from then on. Every receive is re-posted as it
 * completes.
 *
 * A slot's state (enum rtrs_req_state) changes only in the completion
 * context of its connection, in its poster for a response that came during
 * the post, or in the path teardown once every QP of the path is drained,
 * so a request completes exactly once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/moduleparam.h>
#include <linux/uio.h>

#include "rtrs-frwr.h"
#include "rtrs-pri.h"
#include "rtrs-trace.h"

/*
 * Who invalidates a READ's MR once the server has written the data. By
 * default the server does, with a SEND_WITH_INV before its response, as
 * the read message asks (RTRS_MSG_NEED_INVAL_F), like upstream's client.
 * Without it we post a LOCAL_INV when the response is in: one message
 * less on the wire, one local work request more. In the VM bed the two
 * measured within noise of each other (README, Benchmark). Either way
 * nothing completes to the user while the server can still reach its
 * pages.
 */
static bool remote_invalidate = true;
module_param(remote_invalidate, bool, 0644);
MODULE_PARM_DESC(remote_invalidate,
		 "Ask the server to invalidate READ buffers with SEND_WITH_INV (default); N: invalidate them locally");

static void rtrs_req_unmap(struct rtrs_req *req)
{
	if (req->nents) {
		ib_dma_unmap_sg(req->path->ep->ib_dev, req->sgl, req->sg_cnt,
				req->dir == READ ? DMA_FROM_DEVICE :
						   DMA_TO_DEVICE);
		req->nents = 0;
	}
}

/* A posted request is no longer in flight: the slot is free again */
static void rtrs_req_idle(struct rtrs_req *req)
{
	req->state = RTRS_REQ_IDLE;
	req->permit = NULL;
	atomic_dec(&req->path->inflight);
	if (req->con->polled)
		rtrs_con_polled_put(req->con);
}

static __always_inline void rtrs_req_account_cpu(struct rtrs_req *req)
{
	struct rtrs_path_stats_pcpu __percpu *pcpu = req->path->stats.pcpu;
	unsigned int cpu = raw_smp_processor_id();

	if (req->con->cid == 0 || cpu == req->con->cpu)
		return;
	atomic64_inc(&per_cpu_ptr(pcpu, req->con->cpu)->cpu_migr_from);
	this_cpu_inc(pcpu->cpu_migr_to);
}

/*
 * rtrs_clt_conf(), always inlined into the response handler, which
 * completes nearly every request (bench/insn)
 */
static __always_inline void __rtrs_clt_conf(struct rtrs_clt_sess *clt,
					    struct rtrs_permit *permit,
					    const struct rtrs_clt_req_ops *ops,
					    int err)
{
	if (WARN_ONCE(atomic_xchg(&permit->in_flight, 0) != 1,
		      "%s: a second completion of the request on permit %u\n",
		      clt->sessname, permit->mem_id)) {
		atomic64_inc(&clt->reqs[RTRS_REQS_STRAY]);
		return;
	}
	atomic64_inc(&clt->reqs[RTRS_REQS_COMPLETED]);
	trace_rtrs_clt_conf(clt, permit, err);
	ops->conf_fn(ops->priv, err);
}

/**
 * rtrs_clt_conf() - give a request's result to its user, once
 * @clt: the session
 * @permit: the request's permit
 * @ops: the user's completion
 * @err: 0 or a negative errno for the user
 *
 * Every completion of a user request goes through here. A permit carries
 * one request at a time, so a second completion for it (a bug of ours: no
 * server message may cause one) is refused with a warning instead of
 * handing the user a request it may already have reused.
 *
 * Context: any; does not sleep (conf_fn must not).
 */
void rtrs_clt_conf(struct rtrs_clt_sess *clt, struct rtrs_permit *permit,
		   const struct rtrs_clt_req_ops *ops, int err)
{
	__rtrs_clt_conf(clt, permit, ops, err);
}

/*
 * rtrs_req_complete(), always inlined into the response handler, which
 * completes nearly every request (bench/insn: a call of its own cost some
 * 20 instructions per I/O)
 */
static __always_inline void rtrs_req_finish(struct rtrs_req *req, int status)
{
	struct rtrs_clt_req_ops ops = req->ops;
	struct rtrs_permit *permit = req->permit;

	trace_rtrs_req_done(req, status);
	rtrs_req_unmap(req);
	rtrs_req_account_cpu(req);
	rtrs_req_idle(req);
	__rtrs_clt_conf(req->path->clt, permit, &ops, status);
}

/**
 * rtrs_req_complete() - give a request back to its user
 * @req: a slot in RTRS_REQ_POSTED or RTRS_REQ_INVALIDATING whose MR is no
 *	longer reachable by the server
 * @status: 0 or a negative errno for the user
 *
 * Context: the completion context of @req's connection, or the path
 * teardown after the drain. Calls the user's conf_fn, which must not sleep.
 */
void rtrs_req_complete(struct rtrs_req *req, int status)
{
	rtrs_req_finish(req, status);
}

/**
 * rtrs_req_cancel() - take a request back from the path teardown
 * @req: a slot in RTRS_REQ_POSTED on a drained path
 *
 * Leaves the user's fields in place for a failover; the caller completes
 * or re-issues the request.
 */
void rtrs_req_cancel(struct rtrs_req *req)
{
	rtrs_req_unmap(req);
	rtrs_req_idle(req);
}

/*
 * The server answered request @req with @status; @remote_inv: its
 * invalidation named @req's MR (checked by the caller). Always inlined:
 * every response comes here (bench/insn).
 */
static __always_inline void rtrs_req_response(struct rtrs_req *req, int status,
					      bool remote_inv)
{
	if (remote_inv)
		req->mr_valid = false;
	if (!req->mr_valid) {
		rtrs_req_finish(req, status);
		return;
	}
	/* Not invalidated by the server (a WRITE's MR, or it did not): do it */
	req->status = status;
	req->state = RTRS_REQ_INVALIDATING;
	trace_rtrs_mr_localinv(req, req->mr->rkey);
	if (rtrs_frwr_local_inv(req)) {
		rtrs_path_err_rl(req->path, "LOCAL_INV post failed\n");
		rtrs_path_error(req->path);
	}
}

static void rtrs_io_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_req *req = container_of(wc->wr_cqe, struct rtrs_req,
					    io_cqe);

	/* Only every signal_interval-th send comes here on success */
	if (wc->status != IB_WC_SUCCESS)
		rtrs_path_wc_failed(req->path, wc, "request send");
}

/**
 * rtrs_req_init_io_wr() - build a request slot's RDMA WRITE WITH IMM and
 *	its completion handler
 * @req: the slot
 *
 * The RDMA WRITE WITH IMM is always the last of its chain; what changes
 * per post, rtrs_req_send() sets. (The slot's REG_MR is built with its MR,
 * rtrs_frwr_init().)
 */
void rtrs_req_init_io_wr(struct rtrs_req *req)
{
	req->io_cqe.done = rtrs_io_done;
	memset(&req->io_wr, 0, sizeof(req->io_wr));
	req->io_wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	req->io_wr.wr.wr_cqe = &req->io_cqe;
	req->io_wr.wr.sg_list = req->sge;
}

/*
 * The entry after @sg if entry @i (the next one) exists, else @sg: the
 * loops below step with it rather than use for_each_sg(), which calls
 * sg_next() after the last entry too, an out-of-line call for nothing in
 * each loop of every request (a 4k one has one entry)
 */
static inline struct scatterlist *rtrs_sg_step(struct scatterlist *sg, int i,
					       int nr)
{
	return i < nr ? sg_next(sg) : sg;
}

/*
 * The SGEs of a WRITE's data of more than one mapped entry. Out of line:
 * its sg_next() calls would make the post keep its values on the stack
 * around them, for every I/O (bench/insn).
 */
static noinline void rtrs_req_data_sges(struct rtrs_req *req, u32 lkey)
{
	struct scatterlist *sg;
	int i;

	for (i = 0, sg = req->sgl; i < req->nents;
	     i++, sg = rtrs_sg_step(sg, i, req->nents)) {
		req->sge[i].addr = sg_dma_address(sg);
		req->sge[i].length = sg_dma_len(sg);
		req->sge[i].lkey = lkey;
	}
}

/* Describe the data of a WRITE: local SGEs when they fit, else an MR */
static int rtrs_req_write_data(struct rtrs_req *req, struct rtrs_ep *ep,
			       struct ib_reg_wr **reg, u32 *num_sge)
{
	u32 lkey = ep->pd->local_dma_lkey;

	if (req->nents < ep->max_send_sge) {
		if (req->nents == 1) {
			req->sge[0].addr = sg_dma_address(req->sgl);
			req->sge[0].length = sg_dma_len(req->sgl);
			req->sge[0].lkey = lkey;
		} else if (req->nents) {
			rtrs_req_data_sges(req, lkey);
		}
		*num_sge = req->nents;
		return 0;
	}
	*reg = rtrs_frwr_map(req, IB_ACCESS_LOCAL_WRITE);
	if (!*reg)
		return -EINVAL;
	req->sge[0].addr = req->mr->iova;
	req->sge[0].length = req->mr->length;
	req->sge[0].lkey = req->mr->lkey;
	*num_sge = 1;
	return 0;
}

/* Bytes of a mapped list of more than one entry; out of line as above */
static noinline u64 rtrs_sg_dma_total(struct scatterlist *sgl, int nents)
{
	struct scatterlist *sg;
	u64 total = 0;
	int i;

	for (i = 0, sg = sgl; i < nents; i++, sg = rtrs_sg_step(sg, i, nents))
		total += sg_dma_len(sg);
	return total;
}

/*
 * The one check of the mapped length, on every post. The server finds the
 * header at data_len + usr_len: a WRITE must send exactly data_len bytes,
 * a READ's buffer must hold data_len bytes. One entry (a 4k I/O) needs no
 * walk.
 */
static int rtrs_req_check_len(struct rtrs_req *req)
{
	u64 total = 0;

	if (req->nents == 1)
		total = sg_dma_len(req->sgl);
	else if (req->nents)
		total = rtrs_sg_dma_total(req->sgl, req->nents);
	if (req->dir == WRITE ? total != req->data_len : total < req->data_len)
		return -EINVAL;
	return 0;
}

/*
 * What the map step of a post hands to its send step: the data and header
 * SGEs are in the slot (req->sge), the rest is here
 */
struct rtrs_req_mapping {
	struct ib_reg_wr	*reg;	/* the slot's REG_MR if the data needs the MR */
	struct rtrs_frwr_saved	saved;	/* the MR before the post changed it */
	struct rtrs_rbuf	*rbuf;	/* the server chunk of the permit */
	u64			raddr;	/* where the write lands in the chunk */
	u32			num_sge;
	u32			imm;
};

/**
 * rtrs_req_map() - the map step of a post: data, MR and wire header
 * @req: the slot; user message in @req->hdr, data in @req->sgl, on its
 *	connection already (@req->con)
 * @m: filled for rtrs_req_send()
 *
 * DMA-maps the data, checks its length, describes it by local SGEs or
 * registers it in the slot's MR (the REG_MR work request is left in @m for
 * the send step to chain), writes the rtrs header after the user message
 * and adds the SGE of both. Nothing is posted yet.
 *
 * The endpoint and the chunk id are read from the slot in each step that
 * needs them, after the DMA map and the MR registration, not once at the
 * start: a value kept across those calls would be kept on the stack, a
 * store and a load per I/O each (bench/insn). Within a step they are
 * loaded once: with -fno-strict-aliasing each store to the slot would make
 * the compiler load them again.
 *
 * Context: any; does not sleep.
 * Return: 0 with @req mapped; -EINVAL if the data does not map or its
 * length does not match @req->data_len; -ENOMEM or another error of the
 * DMA mapping or of the immediate. On error nothing is left mapped and the
 * MR is as it was.
 */
static int rtrs_req_map(struct rtrs_req *req, struct rtrs_req_mapping *m)
{
	struct rtrs_ep *ep;
	u32 hdr_len, offset, id;
	int err;

	m->num_sge = 0;
	m->raddr = 0;	/* a WRITE's data starts the chunk */
	m->reg = NULL;	/* no registration (yet) */
	rtrs_frwr_save(req, &m->saved);
	if (req->sg_cnt) {
		req->nents = ib_dma_map_sg(req->path->ep->ib_dev, req->sgl,
					   req->sg_cnt,
					   req->dir == READ ? DMA_FROM_DEVICE :
							      DMA_TO_DEVICE);
		if (!req->nents)
			return -ENOMEM;
	}
	err = rtrs_req_check_len(req);
	if (err)
		goto unmap;

	req->need_inval = false;
	if (req->dir == WRITE) {
		err = rtrs_req_write_data(req, req->path->ep, &m->reg,
					  &m->num_sge);
		if (err)
			goto unmap;
		hdr_len = rtrs_write_msg_init(req->hdr + req->usr_len,
					      req->usr_len);
		offset = req->data_len + req->usr_len;
	} else {
		u64 addr = 0;
		u32 key = 0;

		req->need_inval = req->nents && READ_ONCE(remote_invalidate);
		if (req->nents) {
			m->reg = rtrs_frwr_map(req, IB_ACCESS_LOCAL_WRITE |
						    IB_ACCESS_REMOTE_WRITE);
			if (!m->reg) {
				err = -EINVAL;
				goto unmap;
			}
			addr = req->mr->iova;
			key = req->mr->rkey;
		}
		hdr_len = rtrs_read_msg_init(req->hdr + req->usr_len,
					     req->usr_len, addr, key,
					     req->data_len, req->need_inval);
		offset = req->data_len + req->usr_len;
		m->raddr = req->data_len;
	}
	ep = req->path->ep;
	id = req->permit->mem_id;
	err = rtrs_io_req_imm(id, offset, &ep->params, &m->imm);
	if (err)
		goto unmap_mr;

	m->rbuf = &ep->rbufs[id];
	m->raddr += m->rbuf->addr;
	req->sge[m->num_sge].addr = req->hdr_dma;
	req->sge[m->num_sge].length = req->usr_len + hdr_len;
	req->sge[m->num_sge].lkey = ep->pd->local_dma_lkey;
	m->num_sge++;
	if (req->hdr_sync)
		ib_dma_sync_single_for_device(ep->ib_dev, req->hdr_dma,
					      req->usr_len + hdr_len,
					      DMA_TO_DEVICE);
	return 0;

unmap_mr:
	rtrs_frwr_restore(req, m->saved.key, m->saved.valid, NULL, NULL);
unmap:
	rtrs_req_unmap(req);
	return err;
}

/**
 * rtrs_req_send() - the send step of a post: work requests on the wire
 * @req: a slot rtrs_req_map() has mapped
 * @m: what rtrs_req_map() prepared
 *
 * Builds the RDMA WRITE WITH IMMEDIATE into the server chunk, chains it
 * behind the MR's work requests, marks the slot in flight and posts the
 * chain on @req->con. A response that came while the post was under way
 * is completed here. Always inlined into its one caller: as a call it cost
 * each I/O some 20 instructions of prologue and epilogue (bench/insn).
 *
 * Context: any; does not sleep. Called under rcu_read_lock() with the path
 * CONNECTED.
 * Return: 0 once posted (the request may even be complete already); an
 * error of ib_post_send(), after which the slot is idle and unmapped again
 * and the MR is as it was before rtrs_req_map().
 */
static __always_inline int rtrs_req_send(struct rtrs_req *req,
					 struct rtrs_req_mapping *m)
{
	struct rtrs_con *con = req->con;
	struct ib_rdma_wr *wr = &req->io_wr;
	struct ib_send_wr *first;
	int err, answered;

	/* the rest of it rtrs_req_init_io_wr() set */
	wr->wr.send_flags = 0;
	wr->wr.num_sge = m->num_sge;
	wr->wr.ex.imm_data = cpu_to_be32(m->imm);
	wr->remote_addr = m->raddr;
	wr->rkey = m->rbuf->rkey;

	first = rtrs_frwr_chain(req, &m->saved, m->reg, &wr->wr);

	atomic_inc(&req->path->inflight);
	if (con->polled)
		rtrs_con_polled_get(con);
	atomic_set(&req->posting, RTRS_POST_BUSY);
	req->srv_inv = false;
	req->posted_at = jiffies;
	req->posted_ns = trace_rtrs_req_done_enabled() ? ktime_get_ns() : 0;
	/* a response handler that sees POSTED sees both */
	smp_store_release(&req->state, RTRS_REQ_POSTED);
	trace_rtrs_req_post(req);
	/* signals @wr at most, never the MR's work requests before it */
	err = rtrs_con_post_send(con, first, &wr->wr, &req->bad_wr);
	answered = atomic_xchg(&req->posting, err ? RTRS_POST_FAILED :
						    RTRS_POST_DONE);
	if (err) {
		trace_rtrs_req_post_err(req, err, false);
		/* the request never left: whatever answered it lied */
		if (answered == RTRS_POST_ANSWERED) {
			rtrs_path_err_rl(req->path, "response for chunk %u, which was never sent\n",
					 req->permit->mem_id);
			rtrs_path_error(req->path);
		}
		rtrs_req_idle(req);
		rtrs_frwr_restore(req, m->saved.key, m->saved.valid, first,
				  req->bad_wr);
		rtrs_req_unmap(req);
		return err;
	}
	if (answered == RTRS_POST_ANSWERED)
		rtrs_req_response(req, req->status, req->rsp_inv);
	return 0;
}

/*
 * Polled queues. When the user asked for them, every I/O request of the
 * session goes to a polled queue and none completes in interrupt context:
 * a bio that blk-mq polls may have to be freed in process context (6.1's
 * bio_put() warns about cached bios freed in a softirq).
 *
 * Which polled queue: rtrs_clt_request() cannot know whether its caller
 * will poll, or which queue (rnbd passes neither its hctx nor REQ_POLLED).
 * What we do know is who polls: a CPU that called rtrs_clt_rdma_cq_direct()
 * in the last RTRS_POLL_HINT_MS posts on the queue it polled; the others
 * spread over the queues by CPU. Requests nobody polls for, like those of
 * non-polled I/O, are reaped by the queue's sweeper (rtrs-conn.c) within
 * RTRS_POLL_SWEEP_MS: a wrong guess costs latency, never a completion.
 */
static struct rtrs_con *rtrs_poll_con(struct rtrs_path *path,
				      struct rtrs_ep *ep,
				      struct rtrs_permit *permit)
{
	struct rtrs_clt_sess *clt = path->clt;
	unsigned int nr = path->con_num - path->irq_con_num;
	struct rtrs_poll_hint *hint;
	unsigned int slot;

	if (!nr)
		return NULL;
	hint = per_cpu_ptr(clt->poll_hint, permit->cpu_id);
	if (time_before_eq(jiffies, READ_ONCE(hint->stamp) +
			   msecs_to_jiffies(RTRS_POLL_HINT_MS)))
		slot = READ_ONCE(hint->slot);
	else
		slot = permit->cpu_id;
	return ep->cons[path->irq_con_num + slot % nr];
}

/* The connection of @path (endpoint @ep) that carries @permit's requests */
static struct rtrs_con *rtrs_permit_con(struct rtrs_path *path,
					struct rtrs_ep *ep,
					struct rtrs_permit *permit)
{
	struct rtrs_con *con;

	if (permit->con_type == RTRS_ADMIN_CON)
		return ep->cons[0];
	con = rtrs_poll_con(path, ep, permit);
	if (con)
		return con;
	return ep->cpu_con[permit->cpu_id];
}

static void rtrs_path_account(struct rtrs_path *path, int dir, u32 bytes)
{
	struct rtrs_path_stats_pcpu __percpu *pcpu = path->stats.pcpu;

	if (dir == READ) {
		this_cpu_inc(pcpu->read_cnt);
		this_cpu_add(pcpu->read_bytes, bytes);
	} else {
		this_cpu_inc(pcpu->write_cnt);
		this_cpu_add(pcpu->write_bytes, bytes);
	}
}

/**
 * rtrs_req_post() - fill @path's request slot of @permit and post it
 * @path: a CONNECTED path
 * @permit: the request's permit; its mem_id picks the slot
 * @tmpl: the request (ops, dir, sgl, sg_cnt, data_len, usr_len, hdr_len)
 * @vec: the user message, @tmpl->usr_len bytes in all
 * @nr: entries of @vec
 *
 * Copies the request into the slot, maps it (rtrs_req_map()), then posts
 * it (rtrs_req_send()) on the connection of @permit, and counts it in the
 * path's statistics. Once the slot holds the request, the steps read what
 * they need from it (the path, its endpoint, the permit) rather than keep
 * this function's arguments across their calls (memcpy(), the DMA map, the
 * MR registration, the device's post_send): only @req and @tmpl stay live
 * across them, so no value is kept on the stack (bench/insn).
 *
 * Context: any; does not sleep. Called under rcu_read_lock() with the path
 * CONNECTED, so the teardown waits for the post to finish.
 * The limits are those of this path, which may be smaller than the ones
 * the request was made for: a request failed over from another path, or
 * one made before this path reconnected to a server with smaller chunks.
 *
 * Return: 0 once posted (the request may even be complete already);
 * -EBUSY if the slot is not idle (a bug of ours); -EMSGSIZE if the request
 * does not fit this path's chunks; -EINVAL if the data does not map or its
 * length does not match @tmpl->data_len; -ENOMEM or another error of the
 * DMA mapping or of ib_post_send(). On error the slot is idle again and
 * the user's request untouched.
 */
int rtrs_req_post(struct rtrs_path *path, struct rtrs_permit *permit,
		  const struct rtrs_req_args *tmpl, const struct kvec *vec,
		  size_t nr)
{
	struct rtrs_ep *ep = path->ep;
	struct rtrs_req *req = &ep->reqs[permit->mem_id];
	/*
	 * Not zeroed per I/O (CONFIG_INIT_STACK_ALL_ZERO): rtrs_req_map() sets
	 * every field before rtrs_req_send() or its own error path reads it
	 */
	struct rtrs_req_mapping m __uninitialized;
	void *p;
	size_t i;
	int err;

	if (WARN_ON_ONCE(req->state != RTRS_REQ_IDLE))
		return -EBUSY;
	if (tmpl->data_len > ep->max_io ||
	    tmpl->usr_len + tmpl->hdr_len > ep->hdr_size)
		return -EMSGSIZE;
	req->permit = permit;
	req->ops = tmpl->ops;
	req->dir = tmpl->dir;
	req->sgl = tmpl->sgl;
	req->sg_cnt = tmpl->sg_cnt;
	req->data_len = tmpl->data_len;
	req->usr_len = tmpl->usr_len;
	/* before the map: its trace events name the connection */
	req->con = rtrs_permit_con(path, ep, permit);
	for (i = 0, p = req->hdr; i < nr; p += vec[i].iov_len, i++)
		memcpy(p, vec[i].iov_base, vec[i].iov_len);
	err = rtrs_req_map(req, &m);
	if (!err)
		err = rtrs_req_send(req, &m);
	if (err) {
		req->permit = NULL;
		return err;
	}
	/* @path: the slot's, read again rather than kept across the post */
	rtrs_path_account(req->path, tmpl->dir, tmpl->data_len + tmpl->usr_len);
	return 0;
}

/* A response immediate, with the rkey_rsp payload of a SEND if any */
static int rtrs_rx_io_rsp(struct rtrs_con *con, u32 imm, const void *buf,
			  u32 len)
{
	struct rtrs_path *path = con->path;
	/* once: each store below would make the compiler load it again */
	struct rtrs_ep *ep = path->ep;
	bool w_inv = rtrs_imm_type(imm) == RTRS_IO_RSP_W_INV_IMM;
	struct rtrs_req *req;
	u32 id, rkey;
	int status, err;

	err = rtrs_io_rsp_parse(rtrs_imm_payload(imm), ep->queue_depth, &id,
				&status);
	if (err) {
		rtrs_path_err_rl(path, "response for chunk %u of %u\n", id,
				 ep->queue_depth);
		return err;
	}
	req = &ep->reqs[id];
	/* pairs with the poster's smp_store_release() */
	if (smp_load_acquire(&req->state) != RTRS_REQ_POSTED ||
	    req->con != con) {
		rtrs_path_err_rl(path, "response for chunk %u, not in flight on connection %u\n",
				 id, con->cid);
		return -EPROTO;
	}
	/* a read that asked for invalidation gets it before its answer */
	if (w_inv != req->srv_inv || w_inv != req->need_inval) {
		rtrs_path_err_rl(path, "response for chunk %u: %s\n", id,
				 w_inv != req->need_inval ?
				 "invalidation asked for and answer disagree" :
				 w_inv ? "says invalidated, but no invalidation came" :
					 "invalidated, but the response does not say so");
		return -EPROTO;
	}
	if (buf) {
		if (!(ep->params.flags & RTRS_MSG_NEW_RKEY_F) ||
		    rtrs_rkey_rsp_parse(buf, len, ep->queue_depth, id,
					&rkey)) {
			rtrs_path_err_rl(path, "bad rkey response for chunk %u\n",
					 id);
			return -EPROTO;
		}
		ep->rbufs[id].rkey = rkey;
	}
	req->status = status;
	req->rsp_inv = w_inv;
	trace_rtrs_rsp(req, status, w_inv);
	switch (atomic_cmpxchg(&req->posting, RTRS_POST_BUSY,
			       RTRS_POST_ANSWERED)) {
	case RTRS_POST_BUSY:
		return 0;	/* the poster completes it when its post returns */
	case RTRS_POST_DONE:
		break;
	default:
		rtrs_path_err_rl(path, "response for chunk %u: not sent, or answered\n",
				 id);
		return -EPROTO;
	}
	rtrs_req_response(req, status, w_inv);
	return 0;
}

static int rtrs_rx_imm(struct rtrs_con *con, u32 imm, const void *buf,
		       u32 len)
{
	switch (rtrs_imm_type(imm)) {
	case RTRS_IO_RSP_IMM:
	case RTRS_IO_RSP_W_INV_IMM:
		return rtrs_rx_io_rsp(con, imm, buf, len);
	case RTRS_HB_MSG_IMM:
		rtrs_path_hb_rx(con->path);
		return 0;
	case RTRS_HB_ACK_IMM:
		rtrs_path_hb_ack(con->path);
		return 0;
	default:
		rtrs_path_err_rl(con->path, "unknown immediate type %u\n",
				 rtrs_imm_type(imm));
		return 0;
	}
}

/*
 * What follows a receive: a protocol violation (@err) fails the path,
 * anything else re-posts the receive. The path is looked up again here
 * rather than kept across the calls before: it is needed only on error.
 */
static __always_inline void rtrs_rx_next(struct rtrs_rx *rx, int err)
{
	if (err) {
		rtrs_path_error(rx->con->path);
	} else if (rtrs_con_post_recv(rx)) {
		struct rtrs_path *path = rx->con->path;

		if (rtrs_path_state(path) == RTRS_PATH_CONNECTED)
			rtrs_path_err_rl(path, "receive post failed\n");
		rtrs_path_error(path);
	}
}

/* A SEND_WITH_INV of @len bytes named @rkey, not an MR it may invalidate */
static void __cold rtrs_rx_inv_stray(struct rtrs_rx *rx, u32 rkey, u32 len)
{
	struct rtrs_con *con = rx->con;

	rtrs_path_err_rl(con->path, "stray invalidation of %#x (%u B) on connection %u\n",
			 rkey, len, con->cid);
	rtrs_path_error(con->path);
}

/* Anything received proves the server alive */
static __always_inline void rtrs_rx_heard(struct rtrs_path *path)
{
	atomic_set(&path->hb_missed, 0);
	WRITE_ONCE(path->last_rx, jiffies);
}

/*
 * A successful SEND_WITH_INV (@wc): the server invalidated an rkey (the
 * device has done it by now). Only the live MR of a request in flight on
 * the connection may be named, once, by a message of 0 bytes: then that
 * request's response completes it without a LOCAL_INV.
 *
 * Out of line, though every read has one: the key lookup and the flag need
 * a fraction of the registers and checks of rtrs_rx_done()'s response, and
 * no longer pay for its frame (bench/insn). The stray cases are out of line
 * too, so that only @rx and the rkey are kept across xa_load().
 */
static noinline void rtrs_rx_inv(struct ib_wc *wc)
{
	struct rtrs_rx *rx = container_of(wc->wr_cqe, struct rtrs_rx, cqe);
	/*
	 * Read once: after the stores of rtrs_rx_heard() the compiler would
	 * load rx->con and con->path again for the lookup (bench/insn)
	 */
	struct rtrs_path *path = rx->con->path;
	u32 rkey = wc->ex.invalidate_rkey;
	struct rtrs_req *req;

	rtrs_rx_heard(path);
	if (wc->byte_len) {
		rtrs_rx_inv_stray(rx, rkey, wc->byte_len);
		return;
	}
	req = xa_load(&path->ep->mr_slots, rkey >> 8);
	/* smp_load_acquire(): pairs with the poster's store of POSTED */
	if (!req || smp_load_acquire(&req->state) != RTRS_REQ_POSTED ||
	    req->con != rx->con || req->srv_inv ||
	    !rtrs_frwr_is_ours(req, rkey)) {
		rtrs_rx_inv_stray(rx, rkey, 0);
		return;
	}
	req->srv_inv = true;
	trace_rtrs_mr_remoteinv(req, rkey);
	rtrs_rx_next(rx, 0);
}

/**
 * rtrs_rx_done() - completion of a receive on any connection
 * @cq: the connection's CQ
 * @wc: the work completion
 *
 * Anything received proves the server alive. A protocol violation fails
 * the path instead of being acted upon.
 */
void rtrs_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_rx *rx;
	struct rtrs_path *path;
	enum ib_wc_opcode opcode;
	const void *buf = NULL;
	u32 imm, len = 0;
	int flags;

	/*
	 * A read's SEND_WITH_INV first: it reads nothing but @wc, so the
	 * compiler builds this function's frame only after it. The flag
	 * first: a response pays for that test alone (that of a failed
	 * completion is garbage, but then the status is not a success).
	 */
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE &&
	    wc->status == IB_WC_SUCCESS && wc->opcode == IB_WC_RECV) {
		rtrs_rx_inv(wc);
		return;
	}
	rx = container_of(wc->wr_cqe, struct rtrs_rx, cqe);
	path = rx->con->path;
	if (wc->status != IB_WC_SUCCESS) {
		rtrs_path_wc_failed(path, wc, "receive");
		return;
	}
	rtrs_rx_heard(path);
	/*
	 * @wc read only before calls: not kept across them, so the frame can
	 * wait until the SEND_WITH_INV is ruled out (above)
	 */
	opcode = wc->opcode;
	imm = be32_to_cpu(wc->ex.imm_data);
	switch (opcode) {
	case IB_WC_RECV_RDMA_WITH_IMM:
		break;
	case IB_WC_RECV:
		if (wc->wc_flags & IB_WC_WITH_IMM) {
			len = wc->byte_len;
			buf = rtrs_rx_buf(rx);
			break;
		}
		fallthrough;
	default:
		flags = wc->wc_flags;
		rtrs_path_err_rl(path, "unexpected receive, opcode %d flags %#x\n",
				 opcode, flags);
		rtrs_path_error(path);
		return;
	}
	/* one call of rtrs_rx_imm(), so that it is inlined (bench/insn) */
	rtrs_rx_next(rx, rtrs_rx_imm(rx->con, imm, buf, len));
}

/**
 * rtrs_path_fail_reqs() - hand back every request of a drained path
 * @path: a path whose QPs are all drained
 *
 * Requests the server already answered complete with its answer (their
 * MRs die with the path); the others are offered to another path, and
 * fail with -ECONNABORTED when no path takes them.
 *
 * Context: process (the teardown).
 */
void rtrs_path_fail_reqs(struct rtrs_path *path)
{
	u32 i;

	if (!path->ep || !path->ep->reqs)
		return;
	for (i = 0; i < path->ep->queue_depth; i++) {
		struct rtrs_req *req = &path->ep->reqs[i];
		struct rtrs_permit *permit;
		struct rtrs_clt_req_ops ops;
		int err;

		switch (req->state) {
		case RTRS_REQ_INVALIDATING:
			req->mr_valid = false;
			rtrs_req_complete(req, req->status);
			break;
		case RTRS_REQ_POSTED:
			ops = req->ops;
			permit = req->permit;
			err = rtrs_clt_failover(req);
			if (err)
				rtrs_clt_conf(path->clt, permit, &ops, err);
			break;
		default:
			break;
		}
	}
}
