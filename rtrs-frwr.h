/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrs-frwr.h - the per-I/O part of rtrs-frwr.c: registering a request's
 * pages and chaining the MR's work requests in front of it.
 *
 * Inline, for rtrs-io.c: each READ calls both, and as calls they cost some
 * 40 instructions per I/O of prologues and argument passing (bench/insn).
 * They stay with the MR code: rtrs-frwr.c and this file are the only ones
 * that build REG_MR and LOCAL_INV work requests.
 */
#ifndef RTRS_FRWR_H
#define RTRS_FRWR_H

#include "rtrs-pri.h"
#include "rtrs-trace.h"

/**
 * rtrs_frwr_map() - map a request's DMA-mapped pages into its MR
 * @req: the slot; @req->sgl holds @req->nents mapped entries
 * @access: IB_ACCESS_* flags the registration grants
 *
 * A fresh key is taken for every registration, so a stale rkey the server
 * may still hold never matches. The slot's REG_MR work request
 * (@req->reg_wr, built by rtrs_frwr_init(), unsignalled) gets the key and
 * @access, for the caller to chain. The slot's mr_valid is left to
 * rtrs_frwr_chain(), which knows the chain.
 *
 * Return: the REG_MR work request, or NULL when the pages do not map into
 * one MR (the scatterlist is not page aligned inside, or has too many
 * pages).
 */
static __always_inline struct ib_reg_wr *rtrs_frwr_map(struct rtrs_req *req,
						       int access)
{
	struct ib_mr *mr = req->mr;
	int n;

	n = ib_map_mr_sg(mr, req->sgl, req->nents, NULL, RTRS_MR_PAGE_SIZE);
	if (n != req->nents)
		return NULL;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	trace_rtrs_mr_map(req, access);

	req->reg_wr.key = mr->rkey;
	req->reg_wr.access = access;
	return &req->reg_wr;
}

/**
 * rtrs_frwr_chain() - put a post's MR work requests in front of it
 * @req: the slot
 * @saved: its state from rtrs_frwr_save()
 * @reg: the REG_MR from rtrs_frwr_map(), or NULL
 * @wr: the request's own work request
 *
 * Sets the state the slot has once the chain is posted: the MR valid if
 * and only if it is registered again. That must be in place before the
 * post, whose response may be handled at once on another CPU. The stale
 * LOCAL_INV (@req->stale_inv_wr, for the key a failed post left registered)
 * is unsignalled: only an error (which fails the path) needs handling.
 *
 * Return: the first work request of the chain.
 */
static __always_inline struct ib_send_wr *
rtrs_frwr_chain(struct rtrs_req *req, const struct rtrs_frwr_saved *saved,
		struct ib_reg_wr *reg, struct ib_send_wr *wr)
{
	struct ib_send_wr *first = wr;
	struct ib_send_wr *inv = &req->stale_inv_wr;

	if (reg) {
		reg->wr.next = first;
		first = &reg->wr;
	}
	if (saved->valid) {
		trace_rtrs_mr_staleinv(req, saved->key);
		memset(inv, 0, sizeof(*inv));
		inv->opcode = IB_WR_LOCAL_INV;
		inv->wr_cqe = &req->reg_cqe;
		inv->ex.invalidate_rkey = saved->key;
		inv->next = first;
		first = inv;
	}
	req->mr_valid = reg;
	return first;
}

#endif /* RTRS_FRWR_H */
