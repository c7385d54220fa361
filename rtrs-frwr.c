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
 * This file is the only one that builds REG_MR and LOCAL_INV work requests.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rtrs-pri.h"

static void rtrs_frwr_wc_error(struct rtrs_req *req, struct ib_wc *wc,
			       const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		rtrs_path_err_rl(req->path, "%s failed: %s\n", what,
				 ib_wc_status_msg(wc->status));
	rtrs_path_error(req->path);
}

static void rtrs_frwr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_req *req = container_of(wc->wr_cqe, struct rtrs_req,
					    reg_cqe);

	/* REG_MR and stale LOCAL_INVs are unsignalled: only errors come here */
	if (wc->status != IB_WC_SUCCESS)
		rtrs_frwr_wc_error(req, wc, "REG_MR");
}

static void rtrs_frwr_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rtrs_req *req = container_of(wc->wr_cqe, struct rtrs_req,
					    inv_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rtrs_frwr_wc_error(req, wc, "LOCAL_INV");
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
 * Context: process, may sleep. Return: 0 or a negative errno.
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
 * rtrs_frwr_map() - map a request's DMA-mapped pages into its MR
 * @req: the slot; @req->sgl holds @req->nents mapped entries
 * @reg: the REG_MR work request to fill, for the caller to chain
 * @access: IB_ACCESS_* flags the registration grants
 *
 * A fresh key is taken for every registration, so a stale rkey the server
 * may still hold never matches. The work request is unsignalled.
 *
 * Return: 0, or -EINVAL when the pages do not map into one MR (the
 * scatterlist is not page aligned inside, or has too many pages).
 */
int rtrs_frwr_map(struct rtrs_req *req, struct ib_reg_wr *reg, int access)
{
	struct ib_mr *mr = req->mr;
	int n;

	n = ib_map_mr_sg(mr, req->sgl, req->nents, NULL, RTRS_MR_PAGE_SIZE);
	if (n != req->nents)
		return -EINVAL;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));

	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = &req->reg_cqe;
	reg->mr = mr;
	reg->key = mr->rkey;
	reg->access = access;
	req->mr_valid = true;
	return 0;
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
 * rtrs_frwr_stale_inv() - build a LOCAL_INV for an MR left valid by a
 * failed post, to chain before the slot's next registration
 * @req: the slot
 * @wr: the work request to fill
 *
 * Unsignalled: its completion would race with the new registration's
 * state, and only an error (which fails the path) needs handling.
 */
void rtrs_frwr_stale_inv(struct rtrs_req *req, struct ib_send_wr *wr)
{
	memset(wr, 0, sizeof(*wr));
	wr->opcode = IB_WR_LOCAL_INV;
	wr->wr_cqe = &req->reg_cqe;
	wr->ex.invalidate_rkey = req->mr->rkey;
	req->mr_valid = false;
}

/**
 * rtrs_frwr_remote_inv() - account for an invalidation done by the server
 * @req: the slot
 * @rkey: the rkey the server's SEND_WITH_INV named
 *
 * Return: true if it was ours, so the MR is free again.
 */
bool rtrs_frwr_remote_inv(struct rtrs_req *req, u32 rkey)
{
	if (!req->mr_valid || rkey != req->mr->rkey)
		return false;
	req->mr_valid = false;
	return true;
}
