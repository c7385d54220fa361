// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-frwr.c - fast registration of request data for the server.
 *
 * Every request slot owns one MR of IB_MR_TYPE_MEM_REG. A READ registers
 * its pages with remote write access and names the MR's rkey in the read
 * message; the server writes the data and, because the message carries
 * RTRS_MSG_NEED_INVAL_F, invalidates the rkey with a SEND_WITH_INV before
 * its response (with remote_invalidate=N we ask for nothing and post a
 * LOCAL_INV ourselves). A WRITE whose pages do not fit the send SGEs
 * registers them for local access only.
 *
 * Invalidation is what closes the remote window on the pages, so no request
 * completes to its user while its MR may still be valid: when the server's
 * invalidation did not name our rkey, or never came, we post a LOCAL_INV
 * and complete from its completion. A slot whose MR is still valid when it
 * is reused (after a failed post) gets a LOCAL_INV chained first.
 *
 * Completion errors other than flushes fail the path; the teardown then
 * owns the slots (rtrs_path_fail_reqs()), and dereg of the MRs is the last
 * word on their validity.
 *
 * This file and rtrs-frwr.h (its per-I/O part, inline) are the only ones
 * that build REG_MR and LOCAL_INV work requests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rtrs-pri.h"
#include "rtrs-trace.h"

static void rtrs_frwr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_req *req = container_of(wc->wr_cqe, struct rtrs_req,
					    reg_cqe);

	/*
	 * Only errors come here: a slot's REG_MR and stale LOCAL_INV are
	 * never signalled. rtrs_frwr_init() and rtrs_frwr_chain() build them
	 * without send flags and nothing sets any later; the one work request
	 * of a post that rtrs_con_post_send() may signal is the last of the
	 * chain, which rtrs_frwr_chain() always puts behind them (the slot's
	 * RDMA WRITE WITH IMM). A success is a signalled one: a bug, whose
	 * flag would stay set on every later post of the slot. Off the I/O
	 * path, so the check costs nothing per request.
	 */
	if (WARN_ON_ONCE(wc->status == IB_WC_SUCCESS))
		return;
	rtrs_path_wc_failed(req->path, wc, "REG_MR");
}

static void rtrs_frwr_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_req *req = container_of(wc->wr_cqe, struct rtrs_req,
					    inv_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rtrs_path_wc_failed(req->path, wc, "LOCAL_INV");
		return;
	}
	req->mr_valid = false;
	if (req->state == RTRS_REQ_INVALIDATING)
		rtrs_req_complete(req, req->status);
}

/**
 * rtrs_frwr_init() - allocate the MR of a request slot
 * @req: the slot
 * @pd: protection domain of the path
 * @max_pages: pages the MR must map
 *
 * Context: process, may sleep.
 * Return: 0 or a negative errno.
 */
int rtrs_frwr_init(struct rtrs_req *req, struct ib_pd *pd, u32 max_pages)
{
	struct ib_mr *mr;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, max_pages);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	req->mr = mr;
	req->mr_valid = false;
	req->reg_cqe.done = rtrs_frwr_reg_done;
	req->inv_cqe.done = rtrs_frwr_inv_done;
	/* each registration fills in the key and access (rtrs_frwr_map()) */
	memset(&req->reg_wr, 0, sizeof(req->reg_wr));
	req->reg_wr.wr.opcode = IB_WR_REG_MR;
	req->reg_wr.wr.wr_cqe = &req->reg_cqe;
	req->reg_wr.mr = mr;
	return 0;
}

/**
 * rtrs_frwr_release() - free the MR of a request slot; idempotent
 * @req: the slot, whose QP is drained or destroyed
 */
void rtrs_frwr_release(struct rtrs_req *req)
{
	if (req->mr) {
		ib_dereg_mr(req->mr);
		req->mr = NULL;
	}
}

/**
 * rtrs_frwr_local_inv() - invalidate a request's MR on its connection
 * @req: the slot, in RTRS_REQ_INVALIDATING
 *
 * Context: any; does not sleep. The completion finishes the request.
 * Return: 0 or the error of ib_post_send().
 */
int rtrs_frwr_local_inv(struct rtrs_req *req)
{
	struct ib_send_wr wr = {
		.opcode		    = IB_WR_LOCAL_INV,
		.wr_cqe		    = &req->inv_cqe,
		.send_flags	    = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = req->mr->rkey,
	};

	return ib_post_send(req->con->qp, &wr, NULL);
}

/**
 * rtrs_frwr_restore() - a slot's MR state after a post that failed
 * @req: the slot
 * @saved_key: @key of its state from rtrs_frwr_save()
 * @saved_valid: @valid of that state
 * @first: the chain from rtrs_frwr_chain(), or NULL if none was built
 * @bad: the first work request the post did not take; those before it
 *	are on the send queue and will execute
 *
 * The MR must be described exactly as the device will have it: a LOCAL_INV
 * or REG_MR naming any other key fails, and takes the QP down with it.
 *
 * The saved state comes as two values, not as a pointer to the poster's
 * struct rtrs_frwr_saved: an address taken would keep the poster's locals
 * on the stack, zeroed per I/O (CONFIG_INIT_STACK_ALL_ZERO).
 */
void rtrs_frwr_restore(struct rtrs_req *req,
		       u32 saved_key, bool saved_valid,
		       const struct ib_send_wr *first,
		       const struct ib_send_wr *bad)
{
	const struct ib_send_wr *wr;
	bool inv = false, reg = false;

	for (wr = first; wr && wr != bad; wr = wr->next) {
		inv |= wr->opcode == IB_WR_LOCAL_INV;
		reg |= wr->opcode == IB_WR_REG_MR;
	}
	if (reg) {
		req->mr_valid = true;
		return;
	}
	/* The fresh key was never registered: the next map takes it again */
	ib_update_fast_reg_key(req->mr, saved_key & 0xff);
	req->mr_valid = saved_valid && !inv;
}
