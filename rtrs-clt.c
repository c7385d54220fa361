// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-clt.c - the RTRS client API: sessions, permits, path selection,
 * link events, and the module's entry points.
 *
 * A request is posted on one CONNECTED path chosen by the session's
 * multipath policy, inside rcu_read_lock(): a path's teardown first leaves
 * CONNECTED and then waits for RCU readers, so nothing is posted on a path
 * being torn down. A request in flight on a failing path is re-issued on
 * another one with the same permit (rtrs_clt_failover()); only when no path
 * takes it does it fail.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait_bit.h>
#include <rdma/ib_cache.h>

#include "rtrs-pri.h"
#include "rtrs-trace.h"

/* Sessions, for device removal */
static LIST_HEAD(rtrs_sessions);
static DEFINE_MUTEX(rtrs_sessions_mutex);

/* -------------------------------------------------------------- permits */

static int rtrs_clt_alloc_permits(struct rtrs_clt_sess *clt)
{
	size_t sz = sizeof(struct rtrs_permit) + clt->pdu_sz;
	unsigned int i;
	int err;

	clt->permits = kvcalloc(clt->queue_depth, sz, GFP_KERNEL);
	if (!clt->permits)
		return -ENOMEM;
	err = sbitmap_queue_init_node(&clt->permits_map, clt->queue_depth, -1,
				      false, GFP_KERNEL, NUMA_NO_NODE);
	if (err) {
		kvfree(clt->permits);
		clt->permits = NULL;
		return err;
	}
	for (i = 0; i < clt->queue_depth; i++) {
		struct rtrs_permit *permit = rtrs_permit_at(clt, i);

		permit->mem_id = i;
		/* what sbitmap_test_bit() would compute on every put */
		permit->map_word = __sbitmap_word(&clt->permits_map.sb, i);
		permit->map_bit = SB_NR_TO_BIT(&clt->permits_map.sb, i);
	}
	return 0;
}

static void rtrs_clt_free_permits(struct rtrs_clt_sess *clt)
{
	if (!clt->permits)
		return;
	sbitmap_queue_free(&clt->permits_map);
	kvfree(clt->permits);
	clt->permits = NULL;
}

/* Lend the permit of @tag, taken on @cpu, for @con_type */
static __always_inline struct rtrs_permit *
rtrs_clt_lend_permit(struct rtrs_clt_sess *clt, int tag, unsigned int cpu,
		     enum rtrs_clt_con_type con_type)
{
	struct rtrs_permit *permit = rtrs_permit_at(clt, tag);

	permit->cpu_id = cpu;
	permit->con_type = con_type;
	atomic_inc(&clt->permits_used);
	return permit;
}

/*
 * Sleeps on our own queue, woken by every put: sbitmap_queue wakes its
 * waiters only once per batch of returned tags, and the one permit kept for
 * control messages comes back alone (see rtrs_clt_take_io_permit()).
 * Out of line, like rtrs_clt_wait_io_share(): without a wait entry on its
 * stack, rtrs_clt_get_permit() needs no stack protector (bench/insn).
 */
static noinline struct rtrs_permit *
rtrs_clt_wait_permit(struct rtrs_clt_sess *clt,
		     enum rtrs_clt_con_type con_type)
{
	unsigned int cpu;
	int tag;

	io_wait_event(clt->permit_wq,
		      (tag = sbitmap_queue_get(&clt->permits_map, &cpu)) >= 0);
	return rtrs_clt_lend_permit(clt, tag, cpu, con_type);
}

/*
 * I/O may hold every permit but one. A request held through an outage keeps
 * its permit until it is re-issued, and it is re-issued only after the
 * control messages the user sends from its RECONNECTED event are answered
 * (rnbd takes their permits with WAIT, inside that event): without a permit
 * kept for them, a hold that filled the queue depth would wait forever at
 * the reconnect. RTRS_MIN_QUEUE_DEPTH (2) leaves I/O at least one.
 */
static __always_inline bool rtrs_clt_take_io_permit(struct rtrs_clt_sess *clt)
{
	return atomic_add_unless(&clt->io_permits_used, 1,
				 clt->queue_depth - 1);
}

/* Waits until I/O may take one more permit, and takes that share */
static noinline void rtrs_clt_wait_io_share(struct rtrs_clt_sess *clt)
{
	io_wait_event(clt->permit_wq, rtrs_clt_take_io_permit(clt));
}

/* Wakes whoever waits with RTRS_PERMIT_WAIT: a permit or an I/O share is back */
static void rtrs_clt_permit_returned(struct rtrs_clt_sess *clt)
{
	if (wq_has_sleeper(&clt->permit_wq))
		wake_up(&clt->permit_wq);
}

/**
 * rtrs_clt_get_permit() - take a permit (a server chunk) for one request
 * @clt: the session
 * @con_type: %RTRS_ADMIN_CON for control messages, %RTRS_IO_CON for I/O;
 *	I/O gets at most queue_depth - 1 permits at a time, the last one is
 *	kept for control messages (see rtrs_clt_take_io_permit())
 * @can_wait: %RTRS_PERMIT_WAIT sleeps until a permit is returned,
 *	%RTRS_PERMIT_NOWAIT returns NULL at once
 *
 * Context: any for NOWAIT; process (may sleep) for WAIT.
 * Return: the permit, or NULL if none is free and @can_wait is NOWAIT.
 */
struct rtrs_permit *rtrs_clt_get_permit(struct rtrs_clt_sess *clt,
					enum rtrs_clt_con_type con_type,
					enum wait_type can_wait)
{
	bool io = con_type == RTRS_IO_CON;
	unsigned int cpu;
	int tag;

	if (io && !rtrs_clt_take_io_permit(clt)) {
		if (can_wait != RTRS_PERMIT_WAIT)
			return NULL;
		rtrs_clt_wait_io_share(clt);
	}
	tag = sbitmap_queue_get(&clt->permits_map, &cpu);
	if (tag < 0) {
		if (can_wait != RTRS_PERMIT_WAIT) {
			if (io) {
				atomic_dec(&clt->io_permits_used);
				rtrs_clt_permit_returned(clt);
			}
			return NULL;
		}
		return rtrs_clt_wait_permit(clt, con_type);
	}
	return rtrs_clt_lend_permit(clt, tag, cpu, con_type);
}
EXPORT_SYMBOL(rtrs_clt_get_permit);

/**
 * rtrs_clt_put_permit() - return a permit taken by rtrs_clt_get_permit()
 * @clt: the session
 * @permit: the permit; its request must be completed
 *
 * Context: any.
 */
void rtrs_clt_put_permit(struct rtrs_clt_sess *clt, struct rtrs_permit *permit)
{
	/* sbitmap_test_bit() with the word and bit found at allocation */
	if (WARN_ON(!test_bit(permit->map_bit, permit->map_word)))
		return;
	sbitmap_queue_clear(&clt->permits_map, permit->mem_id, permit->cpu_id);
	if (permit->con_type == RTRS_IO_CON)
		atomic_dec(&clt->io_permits_used);
	rtrs_clt_permit_returned(clt);
	/*
	 * The last access to @clt: once the count is 0, rtrs_clt_close() may
	 * free it, and wake_up_var() only hashes the address, into a queue
	 * outside @clt. It takes that queue's lock only for a sleeper (the
	 * fully ordered decrement is the barrier it needs), where
	 * wake_up_all() on a queue of our own took it on every return of the
	 * last permit: at queue depth 1, every I/O.
	 */
	if (atomic_dec_and_test(&clt->permits_used))
		wake_up_var(&clt->permits_used);
}
EXPORT_SYMBOL(rtrs_clt_put_permit);

/* ------------------------------------------------------- path selection */

static bool rtrs_path_usable(struct rtrs_path *path)
{
	return rtrs_path_state(path) == RTRS_PATH_CONNECTED;
}

static bool rtrs_clt_connected(struct rtrs_clt_sess *clt)
{
	struct rtrs_path *path;
	bool connected = false;

	rcu_read_lock();
	list_for_each_entry_rcu(path, &clt->paths_list, entry)
		connected |= rtrs_path_usable(path);
	rcu_read_unlock();
	return connected;
}

static s64 rtrs_path_metric(struct rtrs_path *path, int policy)
{
	if (policy == MP_POLICY_MIN_LATENCY)
		return READ_ONCE(path->hb_cur_latency);
	return atomic_read(&path->inflight);
}

/*
 * Whether @head, a list under rcu_read_lock(), holds exactly one entry,
 * @first. An entry added or removed meanwhile is seen or not, as by a walk
 * of the list.
 */
static __always_inline bool rtrs_list_only_rcu(struct list_head *head,
					       struct list_head *first)
{
	return first != head && rcu_dereference(list_next_rcu(first)) == head;
}

/*
 * The path the policy wants, other than @skip; under rcu_read_lock().
 * Inlined like its caller, rtrs_clt_post_any().
 */
static __always_inline struct rtrs_path *
rtrs_clt_pick_path(struct rtrs_clt_sess *clt, struct rtrs_path *skip)
{
	struct rtrs_path *path, *best = NULL;
	struct rtrs_path __rcu **cursor;
	s64 metric, best_metric = 0;
	struct list_head *first;
	int policy;

	/*
	 * One path: every policy picks it if it is usable (bench/insn: the
	 * policy's walk cost each I/O some 20 instructions). The round-robin
	 * cursor is not stored: it names this path or none (a removed path's
	 * is cleared), and from either the next pick starts after this path,
	 * the head of the list, where paths are added at the tail.
	 */
	first = rcu_dereference(list_next_rcu(&clt->paths_list));
	if (rtrs_list_only_rcu(&clt->paths_list, first)) {
		path = list_entry(first, struct rtrs_path, entry);
		/*
		 * "!skip ||" changes no result (@path is never NULL); without
		 * it gcc 12 emits 3 more instructions in rtrs_clt_request()
		 * (objdump, 6.12), the code measured in bench/insn
		 */
		return (!skip || path != skip) && rtrs_path_usable(path) ?
		       path : NULL;
	}

	policy = READ_ONCE(clt->mp_policy);
	if (policy == MP_POLICY_RR) {
		cursor = this_cpu_ptr(clt->pcpu_path);
		path = rcu_dereference(*cursor);
		if (!path || list_empty(&path->entry))
			path = list_first_or_null_rcu(&clt->paths_list,
						      struct rtrs_path, entry);
		if (!path)
			return NULL;
		/* the path after the last one used, wrapping around */
		list_for_each_entry_continue_rcu(path, &clt->paths_list, entry)
			if (path != skip && rtrs_path_usable(path))
				goto found;
		list_for_each_entry_rcu(path, &clt->paths_list, entry)
			if (path != skip && rtrs_path_usable(path))
				goto found;
		return NULL;
found:
		rcu_assign_pointer(*cursor, path);
		return path;
	}

	list_for_each_entry_rcu(path, &clt->paths_list, entry) {
		if (path == skip || !rtrs_path_usable(path))
			continue;
		metric = rtrs_path_metric(path, policy);
		if (!best || metric < best_metric) {
			best = path;
			best_metric = metric;
		}
	}
	return best;
}

/*
 * Try the policy's path, then every other connected one. Always inlined:
 * each I/O request comes through here, and a call of its own cost some 60
 * instructions per request (bench/insn).
 */
static __always_inline int rtrs_clt_post_any(struct rtrs_clt_sess *clt,
					     struct rtrs_path *skip,
					     struct rtrs_permit *permit,
					     const struct rtrs_req_args *tmpl,
					     const struct kvec *vec, size_t nr)
{
	struct rtrs_path *first, *path;
	int err = -ECONNABORTED;

	first = rtrs_clt_pick_path(clt, skip);
	if (!first)
		return err;
	trace_rtrs_failover(skip, first, permit);
	err = rtrs_req_post(first, permit, tmpl, vec, nr);
	if (!err)
		return 0;
	list_for_each_entry_rcu(path, &clt->paths_list, entry) {
		if (path == first || path == skip || !rtrs_path_usable(path))
			continue;
		trace_rtrs_failover(skip, path, permit);
		err = rtrs_req_post(path, permit, tmpl, vec, nr);
		if (!err)
			return 0;
	}
	return err;
}

/*
 * Holding I/O through an outage. When no path can take a request and the
 * session's io_hold_sec allows it, requests in flight on the failed paths
 * are kept (struct rtrs_held), and so are new I/O requests (rnbd would
 * requeue a refused one every few milliseconds and log each refusal); its
 * control messages are refused with -EAGAIN. The user is not told
 * DISCONNECTED. When
 * a path comes back, the user gets RECONNECTED at once, as without a hold;
 * its control messages (rnbd re-opens its devices on the new server
 * session) go out while I/O still waits, and only once none of them is in
 * flight are the held requests re-issued and new I/O let through. When the
 * hold runs out first, everything held fails with -ETIMEDOUT and the user
 * gets DISCONNECTED, as it would have at once without a hold.
 */
static int rtrs_io_hold_param_set(const char *val,
				  const struct kernel_param *kp)
{
	int v, err;

	err = rtrs_parse_io_hold_sec(val, &v);
	if (err)
		return err;
	*(int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops rtrs_io_hold_param_ops = {
	.set = rtrs_io_hold_param_set,
	.get = param_get_int,
};

/*
 * Long enough that a cable pull or a server restart that the reconnect
 * repairs never reaches the filesystem: a 40 s pull is over after ~100 s
 * (the first attempt, 36 s after the server was last heard from, falls in
 * the pull and times out after 30 s; rnbd retries 30 s later), and one
 * more failed attempt must still fit. Between iSCSI's 120 s
 * replacement_timeout and nvme-fabrics' 600 s ctrl_loss_tmo.
 */
static int io_hold_sec = 180;
module_param_cb(io_hold_sec, &rtrs_io_hold_param_ops, &io_hold_sec, 0644);
MODULE_PARM_DESC(io_hold_sec,
		 "Seconds a new session holds I/O while no path is connected: 0 fail at once, -1 until closed (default 180)");

static int rtrs_io_timeout_param_set(const char *val,
				     const struct kernel_param *kp)
{
	unsigned int v;
	int err;

	err = rtrs_parse_io_timeout_sec(val, &v);
	if (err)
		return err;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops rtrs_io_timeout_param_ops = {
	.set = rtrs_io_timeout_param_set,
	.get = param_get_uint,
};

/*
 * A request the server accepted and never answers, on a path whose
 * heartbeats still flow, would hold its user forever: after this many
 * seconds the path is failed, and its requests fail over (or are held, see
 * io_hold_sec) like after any path failure. Longer than the 35 s in which
 * the heartbeat finds a silent server, so that a dead server is reported
 * as what it is; longer than the block layer's and NVMe's 30 s defaults,
 * as the server's own disk may be that slow. 0: no timeout.
 */
static unsigned int io_timeout_sec = 60;
module_param_cb(io_timeout_sec, &rtrs_io_timeout_param_ops, &io_timeout_sec,
		0644);
MODULE_PARM_DESC(io_timeout_sec,
		 "Seconds a new session lets a request go unanswered on a live path before it fails the path, checked every 5 s; 0: never (default 60)");

/* Context: any; a hint, the decisions that matter are under link_mutex */
static bool rtrs_clt_may_hold(struct rtrs_clt_sess *clt)
{
	return READ_ONCE(clt->io_hold_sec) && !READ_ONCE(clt->closing) &&
	       READ_ONCE(clt->hold_state) != RTRS_HOLD_EXPIRED;
}

/*
 * Keep a request no path took, its user message gathered from @vec; false
 * if there is no memory for it
 */
static bool rtrs_clt_hold(struct rtrs_clt_sess *clt, struct rtrs_permit *permit,
			  const struct rtrs_req_args *tmpl, const struct kvec *vec,
			  size_t nr, gfp_t gfp)
{
	struct rtrs_held *h;
	size_t i, off = 0;

	h = kmalloc(struct_size(h, usr, tmpl->usr_len), gfp);
	if (!h)
		return false;
	h->permit = permit;
	h->tmpl = *tmpl;
	for (i = 0; i < nr; i++) {
		memcpy(h->usr + off, vec[i].iov_base, vec[i].iov_len);
		off += vec[i].iov_len;
	}
	spin_lock(&clt->held_lock);
	list_add_tail(&h->entry, &clt->held);
	clt->held_num++;
	spin_unlock(&clt->held_lock);
	trace_rtrs_held(clt, permit);
	atomic64_inc(&clt->hold_stats[RTRS_HOLD_STAT_REQS]);
	/* a path may be up already (another one was mid-teardown) */
	if (READ_ONCE(clt->hold_state) == RTRS_HOLD_NONE)
		mod_delayed_work(rtrs_wq, &clt->resume_dwork, 0);
	return true;
}

/* Take every held request off the list */
static void rtrs_clt_take_held(struct rtrs_clt_sess *clt, struct list_head *to)
{
	spin_lock(&clt->held_lock);
	list_splice_init(&clt->held, to);
	clt->held_num = 0;
	spin_unlock(&clt->held_lock);
}

/* Fail every held request with @err */
static void rtrs_clt_fail_held(struct rtrs_clt_sess *clt, int err)
{
	struct rtrs_held *h, *tmp;
	LIST_HEAD(list);

	rtrs_clt_take_held(clt, &list);
	list_for_each_entry_safe(h, tmp, &list, entry) {
		rtrs_clt_conf(clt, h->permit, &h->tmpl.ops, err);
		kfree(h);
	}
}

static int rtrs_clt_post_any(struct rtrs_clt_sess *clt,
			     struct rtrs_path *skip,
			     struct rtrs_permit *permit,
			     const struct rtrs_req_args *tmpl,
			     const struct kvec *vec, size_t nr);

/* Re-issue what is held; what still finds no path stays held */
static void rtrs_clt_release_held(struct rtrs_clt_sess *clt)
{
	struct rtrs_held *h, *tmp;
	LIST_HEAD(list);
	int err;

	rtrs_clt_take_held(clt, &list);
	list_for_each_entry_safe(h, tmp, &list, entry) {
		struct kvec usr = { .iov_base = h->usr,
				    .iov_len = h->tmpl.usr_len };

		rcu_read_lock();
		err = rtrs_clt_post_any(clt, NULL, h->permit, &h->tmpl, &usr, 1);
		rcu_read_unlock();
		trace_rtrs_unheld(clt, h->permit, err);
		if (err == -ECONNABORTED && rtrs_clt_may_hold(clt)) {
			spin_lock(&clt->held_lock);
			list_add_tail(&h->entry, &clt->held);
			clt->held_num++;
			spin_unlock(&clt->held_lock);
			continue;
		}
		if (err)
			rtrs_clt_conf(clt, h->permit, &h->tmpl.ops, err);
		kfree(h);
	}
}

/* A control message of the user is in flight on a connected path */
static bool rtrs_clt_ctrl_inflight(struct rtrs_clt_sess *clt)
{
	struct rtrs_path *path;
	bool busy = false;
	u32 i;

	rcu_read_lock();
	list_for_each_entry_rcu(path, &clt->paths_list, entry) {
		/* a CONNECTED path's slots stay until an RCU grace period */
		if (!rtrs_path_usable(path))
			continue;
		for (i = 0; i < path->ep->queue_depth && !busy; i++)
			busy = READ_ONCE(path->ep->reqs[i].state) != RTRS_REQ_IDLE &&
			       READ_ONCE(path->ep->reqs[i].con) == path->ep->cons[0];
	}
	rcu_read_unlock();
	return busy;
}

/* Checks between a reconnect and re-issuing what is held */
#define RTRS_RESUME_POLL_MS	10
/* The user's handling of its answers runs in its own work: one more check */
#define RTRS_RESUME_CLEAR_CHECKS	2
/* A user control message that gets no answer does not hold I/O forever */
#define RTRS_RESUME_MAX_MS	RTRS_CONNECT_TIMEOUT_MS

static void rtrs_clt_resume_work(struct work_struct *work)
{
	struct rtrs_clt_sess *clt = container_of(to_delayed_work(work),
						 struct rtrs_clt_sess,
						 resume_dwork);
	unsigned long waited;

	mutex_lock(&clt->link_mutex);
	if (clt->hold_state == RTRS_HOLD_RESUMING) {
		waited = jiffies_to_msecs(jiffies - clt->hold_since);
		clt->resume_clear = rtrs_clt_ctrl_inflight(clt) ? 0 :
				    clt->resume_clear + 1;
		if (clt->resume_clear < RTRS_RESUME_CLEAR_CHECKS &&
		    waited < RTRS_RESUME_MAX_MS) {
			mutex_unlock(&clt->link_mutex);
			queue_delayed_work(rtrs_wq, &clt->resume_dwork,
					   msecs_to_jiffies(RTRS_RESUME_POLL_MS));
			return;
		}
		pr_info("%s: reconnected: re-issuing %u held requests\n",
			clt->sessname, READ_ONCE(clt->held_num));
		WRITE_ONCE(clt->hold_state, RTRS_HOLD_NONE);
	}
	mutex_unlock(&clt->link_mutex);
	if (READ_ONCE(clt->hold_state) == RTRS_HOLD_NONE)
		rtrs_clt_release_held(clt);
}

static void rtrs_clt_hold_expired(struct work_struct *work)
{
	struct rtrs_clt_sess *clt = container_of(to_delayed_work(work),
						 struct rtrs_clt_sess,
						 hold_dwork);

	mutex_lock(&clt->link_mutex);
	if (clt->hold_state != RTRS_HOLD_HOLDING || !clt->opened) {
		mutex_unlock(&clt->link_mutex);
		return;
	}
	WRITE_ONCE(clt->hold_state, RTRS_HOLD_EXPIRED);
	atomic64_inc(&clt->hold_stats[RTRS_HOLD_STAT_EXPIRED]);
	pr_warn("%s: no path for %u s: hold expired, failing %u held requests\n",
		clt->sessname,
		jiffies_to_msecs(jiffies - clt->hold_since) / 1000,
		READ_ONCE(clt->held_num));
	clt->ops.link_ev(clt->ops.priv, RTRS_CLT_LINK_EV_DISCONNECTED);
	mutex_unlock(&clt->link_mutex);
	rtrs_clt_fail_held(clt, -ETIMEDOUT);
}

/**
 * rtrs_clt_set_io_hold() - change a session's hold time (sysfs io_hold_sec)
 * @clt: the session
 * @sec: -1, 0 or 1..%RTRS_IO_HOLD_MAX_SEC
 *
 * An outage held already is bounded by the new time from its start; 0
 * makes it expire now.
 *
 * Context: process.
 * Return: 0.
 */
int rtrs_clt_set_io_hold(struct rtrs_clt_sess *clt, int sec)
{
	unsigned long end;

	mutex_lock(&clt->link_mutex);
	WRITE_ONCE(clt->io_hold_sec, sec);
	/* a closing session (not opened) must not arm its work again */
	if (clt->hold_state == RTRS_HOLD_HOLDING && clt->opened) {
		if (sec < 0) {
			cancel_delayed_work(&clt->hold_dwork);
		} else {
			end = clt->hold_since + (unsigned long)sec * HZ;
			mod_delayed_work(rtrs_wq, &clt->hold_dwork,
					 time_after(end, jiffies) ?
					 end - jiffies : 0);
		}
	}
	mutex_unlock(&clt->link_mutex);
	return 0;
}

/**
 * rtrs_clt_failover() - re-issue a request of a failed path elsewhere
 * @req: a slot in RTRS_REQ_POSTED on a drained path
 *
 * The request keeps its permit, and so its chunk id; the user message is
 * copied from the old slot's header buffer. When no path takes it and the
 * session holds I/O, it is kept until a path comes back.
 *
 * Context: process (the path teardown).
 * Return: 0 if another path took it or it is held, else the error for the
 * user.
 */
int rtrs_clt_failover(struct rtrs_req *req)
{
	struct rtrs_path *old = req->path;
	struct rtrs_permit *permit = req->permit;
	struct rtrs_req_args tmpl = {
		.ops	  = req->ops,
		.sgl	  = req->sgl,
		.sg_cnt	  = req->sg_cnt,
		.data_len = req->data_len,
		.usr_len  = req->usr_len,
		.hdr_len  = rtrs_msg_hdr_len(req->dir, req->data_len),
		.dir	  = req->dir,
	};
	struct kvec usr = { .iov_base = req->hdr, .iov_len = req->usr_len };
	int err;

	/* the old slot's header stays allocated until the teardown's end */
	rtrs_req_cancel(req);
	rcu_read_lock();
	err = rtrs_clt_post_any(old->clt, old, permit, &tmpl, &usr, 1);
	rcu_read_unlock();
	if (!err)
		atomic64_inc(&old->stats.failover_cnt);
	else if (err == -ECONNABORTED && rtrs_clt_may_hold(old->clt) &&
		 rtrs_clt_hold(old->clt, permit, &tmpl, &usr, 1, GFP_NOIO))
		err = 0;
	return err;
}

/**
 * rtrs_clt_request() - send a request to the server
 * @dir: READ (the server writes data into @sg) or WRITE (we send @sg)
 * @ops: the completion; conf_fn is called exactly once unless this
 *	function returns an error
 * @clt: the session
 * @permit: a permit of @clt, held until the completion
 * @vec: the user message, copied before this function returns
 * @nr: entries of @vec
 * @data_len: bytes of data in @sg
 * @sg: the data pages; a READ's must map into one MR (page-aligned inside)
 * @sg_cnt: entries of @sg (0 with @data_len 0 for a message alone)
 *
 * Context: any; does not sleep.
 * Return: 0 once posted; -EBUSY if @permit has a request in flight
 * already; -EMSGSIZE if the message and header exceed the
 * server's header size or the data exceeds max_io_size (or, for every
 * connected path, that path's); -EINVAL for bad arguments; -EAGAIN for a
 * request on an admin permit while the session holds I/O, or an I/O request
 * it has no memory to keep (retry later): while it holds, I/O requests are
 * kept until a path is back or the hold runs out (then conf_fn gets
 * -ETIMEDOUT); -ECONNABORTED if no path is connected and the session does
 * not hold I/O; -ENOMEM or a post
 * error if every connected path refused it (the caller may retry).
 */
int rtrs_clt_request(int dir, struct rtrs_clt_req_ops *ops,
		     struct rtrs_clt_sess *clt, struct rtrs_permit *permit,
		     const struct kvec *vec, size_t nr, size_t data_len,
		     struct scatterlist *sg, unsigned int sg_cnt)
{
	/*
	 * Not zeroed per request (CONFIG_INIT_STACK_ALL_ZERO): every field is
	 * set below before the post or the hold reads it
	 */
	struct rtrs_req_args tmpl __uninitialized;
	size_t usr_len = 0, hdr_len, i;
	int err;

	if ((dir != READ && dir != WRITE) || !permit || !ops || !ops->conf_fn ||
	    (!sg_cnt != !data_len) || (nr && !vec))
		return -EINVAL;
	/*
	 * memcpy(), not a struct assignment: gcc copies the two pointers as
	 * one 16-byte value, whose possible spill slot made it keep a frame
	 * pointer here (bench/insn); the bytes copied are the same
	 */
	memcpy(&tmpl.ops, ops, sizeof(tmpl.ops));
	/* each part is bounded before it is added: the sum cannot wrap */
	for (i = 0; i < nr; i++) {
		if (vec[i].iov_len > U16_MAX)
			return -EMSGSIZE;
		usr_len += vec[i].iov_len;
		if (usr_len > U16_MAX)
			return -EMSGSIZE;
	}
	hdr_len = rtrs_msg_hdr_len(dir, data_len);
	if (usr_len + hdr_len > clt->max_hdr_size ||
	    data_len > READ_ONCE(clt->max_io_size))
		return -EMSGSIZE;
	tmpl.sgl = sg;
	tmpl.sg_cnt = sg_cnt;
	tmpl.data_len = data_len;
	tmpl.usr_len = usr_len;
	tmpl.hdr_len = hdr_len;
	tmpl.dir = dir;
	/* before the post: the completion may come before it returns */
	if (atomic_cmpxchg(&permit->in_flight, 0, 1))
		return -EBUSY;
	/* after a held outage, the user's re-opens go before any I/O */
	if (unlikely(READ_ONCE(clt->hold_state) == RTRS_HOLD_RESUMING) &&
	    permit->con_type == RTRS_IO_CON && rtrs_clt_may_hold(clt)) {
		err = -ECONNABORTED;	/* kept below, with what is held */
	} else {
		rcu_read_lock();
		err = rtrs_clt_post_any(clt, NULL, permit, &tmpl, vec, nr);
		rcu_read_unlock();
	}
	/*
	 * I/O waits for a path with what the outage already holds; a user
	 * control message is refused, so that the user is not blocked in it
	 */
	if (unlikely(err == -ECONNABORTED) && rtrs_clt_may_hold(clt)) {
		if (permit->con_type == RTRS_IO_CON &&
		    rtrs_clt_hold(clt, permit, &tmpl, vec, nr, GFP_ATOMIC))
			err = 0;
		else
			err = -EAGAIN;
	}
	if (err)
		atomic_set(&permit->in_flight, 0);
	else
		atomic64_inc(&clt->reqs[RTRS_REQS_ACCEPTED]);
	return err;
}
EXPORT_SYMBOL(rtrs_clt_request);

/**
 * rtrs_clt_rdma_cq_direct() - reap completions of a polled queue
 * @clt: the session
 * @index: the user's queue number. rnbd passes its blk-mq hctx number,
 *	which for polled hctxs runs on after the interrupt-driven ones;
 *	any number works: it is taken modulo the session's polled queues
 *
 * Reaps that polled queue on every connected path, and makes the calling
 * CPU's requests go to that queue for the next RTRS_POLL_HINT_MS.
 *
 * Context: process; does not sleep. Concurrent callers on one queue do not
 * wait for each other: the loser reaps nothing.
 * Return: completions reaped (0 for a session without polled queues), or
 * -1 if no path is connected.
 */
int rtrs_clt_rdma_cq_direct(struct rtrs_clt_sess *clt, unsigned int index)
{
	struct rtrs_poll_hint *hint;
	struct rtrs_path *path;
	unsigned int slot;
	int cnt = -1;

	if (!clt->nr_poll_queues)
		return rtrs_clt_connected(clt) ? 0 : -1;
	slot = index % clt->nr_poll_queues;
	hint = raw_cpu_ptr(clt->poll_hint);
	WRITE_ONCE(hint->slot, slot);
	WRITE_ONCE(hint->stamp, jiffies);

	rcu_read_lock();
	list_for_each_entry_rcu(path, &clt->paths_list, entry) {
		if (!rtrs_path_usable(path))
			continue;
		cnt = max(cnt, 0);
		if (path->con_num > path->irq_con_num + slot)
			cnt += rtrs_con_poll(path->ep->cons[path->irq_con_num + slot]);
	}
	rcu_read_unlock();
	if (cnt > 0)
		atomic64_add(cnt, &clt->poll_direct);
	return cnt;
}
EXPORT_SYMBOL(rtrs_clt_rdma_cq_direct);

/**
 * rtrs_clt_query() - the limits of a session
 * @clt: the session
 * @attr: filled with queue depth, max_io_size and max_segments
 *
 * Context: any.
 * Return: 0, or -ECOMM if no path is connected.
 */
int rtrs_clt_query(struct rtrs_clt_sess *clt, struct rtrs_attrs *attr)
{
	if (!rtrs_clt_connected(clt))
		return -ECOMM;
	attr->queue_depth = clt->queue_depth;
	attr->max_segments = READ_ONCE(clt->max_segments);
	attr->max_io_size = READ_ONCE(clt->max_io_size);
	return 0;
}
EXPORT_SYMBOL(rtrs_clt_query);

/* ------------------------------------------------------ limits and events */

/*
 * max_io_size and max_segments: the minimum over @path and the connected
 * paths. Recomputed, not only lowered: a path that came back with smaller
 * limits once must not shrink the session for good.
 */
static void rtrs_clt_merge_limits(struct rtrs_clt_sess *clt,
				  struct rtrs_path *path)
{
	u32 io = path->ep->max_io, segs = path->ep->max_pages_per_mr;
	struct rtrs_path *p;

	lockdep_assert_held(&clt->limits_mutex);
	rcu_read_lock();
	list_for_each_entry_rcu(p, &clt->paths_list, entry) {
		/* a CONNECTED path's limits stay until its teardown */
		if (p == path || !rtrs_path_usable(p))
			continue;
		io = min(io, READ_ONCE(p->ep->max_io));
		segs = min(segs, READ_ONCE(p->ep->max_pages_per_mr));
	}
	rcu_read_unlock();
	WRITE_ONCE(clt->max_io_size, io);
	WRITE_ONCE(clt->max_segments, segs);
}

/**
 * rtrs_clt_set_limits() - merge a freshly connected path's limits
 * @path: the path, at the end of its connect
 *
 * The queue depth is the session's for good once set (the permits are
 * made from it); max_io_size and max_segments are the minimum over the
 * connected paths and this one.
 *
 * Return: 0, or -EINVAL if the path cannot serve the session's requests.
 */
int rtrs_clt_set_limits(struct rtrs_path *path)
{
	struct rtrs_clt_sess *clt = path->clt;
	u32 segs = path->ep->max_pages_per_mr;

	mutex_lock(&clt->limits_mutex);
	if (!clt->queue_depth) {
		clt->queue_depth = path->ep->queue_depth;
		clt->max_hdr_size = path->ep->hdr_size;
		clt->max_segments = segs;
		clt->max_io_size = path->ep->max_io;
	} else if (path->ep->hdr_size >= clt->max_hdr_size) {
		rtrs_clt_merge_limits(clt, path);
	} else {
		mutex_unlock(&clt->limits_mutex);
		rtrs_path_err(path, "header size %u smaller than the session's %u\n",
			      path->ep->hdr_size, clt->max_hdr_size);
		return -EINVAL;
	}
	mutex_unlock(&clt->limits_mutex);
	return 0;
}

/**
 * rtrs_clt_path_up() - a path became CONNECTED
 * @path: the path
 *
 * Tells the user RECONNECTED when it is the only connected path of an
 * opened session.
 */
void rtrs_clt_path_up(struct rtrs_path *path)
{
	struct rtrs_clt_sess *clt = path->clt;

	mutex_lock(&clt->link_mutex);
	if (++clt->paths_up == 1 && clt->opened) {
		if (clt->hold_state == RTRS_HOLD_HOLDING) {
			cancel_delayed_work(&clt->hold_dwork);
			atomic64_inc(&clt->hold_stats[RTRS_HOLD_STAT_RESUMED]);
			pr_info("%s: a path is back after %u s: %u held requests wait for the user's control messages\n",
				clt->sessname,
				jiffies_to_msecs(jiffies - clt->hold_since) / 1000,
				READ_ONCE(clt->held_num));
			clt->hold_since = jiffies;
			clt->resume_clear = 0;
			WRITE_ONCE(clt->hold_state, RTRS_HOLD_RESUMING);
		} else {
			WRITE_ONCE(clt->hold_state, RTRS_HOLD_NONE);
		}
		clt->ops.link_ev(clt->ops.priv, RTRS_CLT_LINK_EV_RECONNECTED);
		mod_delayed_work(rtrs_wq, &clt->resume_dwork, 0);
	}
	mutex_unlock(&clt->link_mutex);
}

/**
 * rtrs_clt_path_down() - a connected path is being torn down
 * @path: the path
 *
 * Tells the user DISCONNECTED when it was the last connected path.
 */
void rtrs_clt_path_down(struct rtrs_path *path)
{
	struct rtrs_clt_sess *clt = path->clt;
	int hold;

	mutex_lock(&clt->link_mutex);
	if (--clt->paths_up == 0 && clt->opened) {
		hold = READ_ONCE(clt->io_hold_sec);
		if (hold && !READ_ONCE(clt->closing)) {
			WRITE_ONCE(clt->hold_state, RTRS_HOLD_HOLDING);
			clt->hold_since = jiffies;
			atomic64_inc(&clt->hold_stats[RTRS_HOLD_STAT_STARTED]);
			pr_info("%s: no path connected: holding I/O (%u requests) for %d s\n",
				clt->sessname, READ_ONCE(clt->held_num), hold);
			if (hold > 0)
				mod_delayed_work(rtrs_wq, &clt->hold_dwork,
						 (unsigned long)hold * HZ);
		} else {
			clt->ops.link_ev(clt->ops.priv,
					 RTRS_CLT_LINK_EV_DISCONNECTED);
		}
	}
	mutex_unlock(&clt->link_mutex);
}

/* ------------------------------------------------------------ sessions */

static void rtrs_clt_list_add_path(struct rtrs_clt_sess *clt,
				   struct rtrs_path *path)
{
	mutex_lock(&clt->paths_mutex);
	list_add_tail_rcu(&path->entry, &clt->paths_list);
	clt->paths_num++;
	mutex_unlock(&clt->paths_mutex);
}

/* No round-robin cursor may keep pointing at @path */
static void rtrs_clt_forget_cursor(struct rtrs_clt_sess *clt,
				   struct rtrs_path *path)
{
	struct rtrs_path __rcu **cursor;
	int cpu;

	lockdep_assert_held(&clt->paths_mutex);
	for_each_possible_cpu(cpu) {
		cursor = per_cpu_ptr(clt->pcpu_path, cpu);
		if (rcu_access_pointer(*cursor) == path)
			RCU_INIT_POINTER(*cursor, NULL);
	}
}

static void rtrs_clt_list_del_path(struct rtrs_clt_sess *clt,
				   struct rtrs_path *path)
{
	mutex_lock(&clt->paths_mutex);
	list_del_rcu(&path->entry);
	clt->paths_num--;
	rtrs_clt_forget_cursor(clt, path);
	mutex_unlock(&clt->paths_mutex);
	synchronize_rcu();
	/*
	 * A round-robin pick that found the path in the list before it was
	 * unlisted may have stored it in its cursor after the clearing above.
	 * Such picks are over now, and no pick stores the path again: a pick
	 * starts after its cursor's path and finds only listed ones. Clear
	 * again and wait for the picks that read the stale cursor meanwhile
	 * (they walk on from the path's old successor): only then may the
	 * entry be reset (a reset entry points to itself, a walk from it
	 * would never reach the head) and the path be freed.
	 */
	mutex_lock(&clt->paths_mutex);
	rtrs_clt_forget_cursor(clt, path);
	mutex_unlock(&clt->paths_mutex);
	synchronize_rcu();
	INIT_LIST_HEAD(&path->entry);
}

/* Close, unlist and free one path */
static void rtrs_clt_destroy_path(struct rtrs_clt_sess *clt,
				  struct rtrs_path *path)
{
	/* a manual reconnect may revive the path until it is DEAD */
	do {
		rtrs_path_close(path);
	} while (!rtrs_path_change_state(path, RTRS_PATH_DEAD) &&
		 rtrs_path_state(path) != RTRS_PATH_DEAD);
	rtrs_path_sysfs_remove(path);
	rtrs_clt_list_del_path(clt, path);
	rtrs_path_free(path);
}

/**
 * rtrs_clt_add_path() - connect one more path of a session (sysfs add_path)
 * @clt: the session
 * @addr: the path's addresses
 *
 * Context: process, sleeps for the whole connect.
 * Return: 0 or the error of the connect (the server's reject errno,
 * -ETIMEDOUT, -EHOSTUNREACH, ...).
 */
int rtrs_clt_add_path(struct rtrs_clt_sess *clt, const struct rtrs_addr *addr)
{
	struct rtrs_path *path;
	int err;

	mutex_lock(&clt->path_op_mutex);
	if (clt->closing) {
		err = -ENODEV;
		goto unlock;
	}
	/* unlike upstream, an added path gets the session's polled queues */
	path = rtrs_path_alloc(clt, addr, clt->nr_poll_queues);
	if (IS_ERR(path)) {
		err = PTR_ERR(path);
		goto unlock;
	}
	/* a session without paths must be re-created on the server */
	path->first_conn = !clt->paths_up;
	rtrs_clt_list_add_path(clt, path);
	err = rtrs_path_open(path);
	if (!err)
		err = rtrs_path_sysfs_create(path);
	if (err)
		rtrs_clt_destroy_path(clt, path);
unlock:
	mutex_unlock(&clt->path_op_mutex);
	return err;
}

/**
 * rtrs_clt_remove_path() - close a path and forget it (sysfs remove_path)
 * @path: the path; the caller holds a reference to it and to its session
 *
 * Context: process, may sleep.
 * Return: 0 (also when the session is being
 * closed, or failed to open, which removes the path anyway).
 */
int rtrs_clt_remove_path(struct rtrs_path *path)
{
	struct rtrs_clt_sess *clt = path->clt;

	mutex_lock(&clt->path_op_mutex);
	/* a closing session destroys its paths itself */
	if (!clt->closing && !list_empty(&path->entry))
		rtrs_clt_destroy_path(clt, path);
	mutex_unlock(&clt->path_op_mutex);
	return 0;
}

static void rtrs_clt_destroy_paths(struct rtrs_clt_sess *clt)
{
	struct rtrs_path *path, *tmp;

	list_for_each_entry_safe(path, tmp, &clt->paths_list, entry)
		rtrs_clt_destroy_path(clt, path);
}

static struct rtrs_clt_sess *rtrs_clt_alloc(struct rtrs_clt_ops *ops,
					    const char *sessname, u16 port,
					    size_t pdu_sz, u8 delay,
					    s16 max_attempts,
					    u32 nr_poll_queues)
{
	struct rtrs_clt_sess *clt;
	int cpu;

	clt = kzalloc(sizeof(*clt), GFP_KERNEL);
	if (!clt)
		return ERR_PTR(-ENOMEM);
	clt->pcpu_path = alloc_percpu(typeof(*clt->pcpu_path));
	clt->poll_hint = alloc_percpu(struct rtrs_poll_hint);
	if (!clt->pcpu_path || !clt->poll_hint) {
		free_percpu(clt->poll_hint);
		free_percpu(clt->pcpu_path);
		kfree(clt);
		return ERR_PTR(-ENOMEM);
	}
	/* no CPU has polled yet */
	for_each_possible_cpu(cpu)
		per_cpu_ptr(clt->poll_hint, cpu)->stamp = jiffies -
			msecs_to_jiffies(RTRS_POLL_HINT_MS) - 1;
	strscpy(clt->sessname, sessname, sizeof(clt->sessname));
	uuid_gen(&clt->uuid);
	clt->port = port;
	clt->ops = *ops;
	clt->pdu_sz = pdu_sz;
	clt->reconnect_delay_sec = delay;
	clt->max_reconnect_attempts = max_attempts;
	clt->nr_poll_queues = nr_poll_queues;
	clt->mp_policy = MP_POLICY_MIN_INFLIGHT;
	INIT_LIST_HEAD(&clt->entry);
	INIT_LIST_HEAD(&clt->paths_list);
	mutex_init(&clt->paths_mutex);
	mutex_init(&clt->path_op_mutex);
	mutex_init(&clt->link_mutex);
	mutex_init(&clt->limits_mutex);
	init_waitqueue_head(&clt->permit_wq);
	clt->io_hold_sec = READ_ONCE(io_hold_sec);
	clt->io_timeout_sec = READ_ONCE(io_timeout_sec);
	spin_lock_init(&clt->held_lock);
	INIT_LIST_HEAD(&clt->held);
	INIT_DELAYED_WORK(&clt->hold_dwork, rtrs_clt_hold_expired);
	INIT_DELAYED_WORK(&clt->resume_dwork, rtrs_clt_resume_work);
	rtrs_clt_dev_init(clt);
	return clt;
}

/**
 * rtrs_clt_release() - free a session's memory; its device's release
 * @clt: a session without paths or permits
 */
void rtrs_clt_release(struct rtrs_clt_sess *clt)
{
	rtrs_clt_free_permits(clt);
	free_percpu(clt->poll_hint);
	free_percpu(clt->pcpu_path);
	mutex_destroy(&clt->paths_mutex);
	mutex_destroy(&clt->path_op_mutex);
	mutex_destroy(&clt->link_mutex);
	mutex_destroy(&clt->limits_mutex);
	kfree(clt);
}

/* Context: rtrs_sessions_mutex held */
static bool rtrs_clt_name_used(const char *sessname)
{
	struct rtrs_clt_sess *clt;

	lockdep_assert_held(&rtrs_sessions_mutex);
	list_for_each_entry(clt, &rtrs_sessions, entry)
		if (!strcmp(clt->sessname, sessname))
			return true;
	return false;
}

/*
 * The name stays taken until the session's sysfs directory is gone: an
 * open of the same name meanwhile fails with -EEXIST instead of colliding
 * in device_add().
 */
static void rtrs_clt_unlist(struct rtrs_clt_sess *clt)
{
	rtrs_clt_sysfs_remove(clt);
	mutex_lock(&rtrs_sessions_mutex);
	list_del(&clt->entry);
	mutex_unlock(&rtrs_sessions_mutex);
}

/**
 * rtrs_clt_open() - open a session and connect all its paths
 * @ops: the user's link event callback and its argument
 * @sessname: the session name, sent to the server; no '/' or '.'
 * @paths: @path_cnt source/destination pairs
 * @path_cnt: 1..%RTRS_MAX_PATHS
 * @port: server port, kept for paths added through sysfs
 * @pdu_sz: bytes the user wants after each permit
 * @reconnect_delay_sec: pause before each reconnect attempt
 * @max_reconnect_attempts: -1 forever, 0 never, else attempts per outage
 * @nr_poll_queues: polled connections per path, reaped by
 *	rtrs_clt_rdma_cq_direct()
 *
 * Every path is connected before this returns; any failing path fails the
 * open, as upstream does. No link event is sent during the open.
 *
 * Context: process; sleeps for the connects (up to RTRS_CONNECT_TIMEOUT_MS
 * per CM step and for the info exchange, for every connection of every
 * path).
 * Return: the session, or an ERR_PTR: -EINVAL for bad arguments, -EEXIST
 * for a name already in use here, the server's reject errno, -ETIMEDOUT,
 * -EHOSTUNREACH, -ECONNRESET or -ENOMEM.
 */
struct rtrs_clt_sess *rtrs_clt_open(struct rtrs_clt_ops *ops,
				    const char *sessname,
				    const struct rtrs_addr *paths,
				    size_t path_cnt, u16 port,
				    size_t pdu_sz, u8 reconnect_delay_sec,
				    s16 max_reconnect_attempts,
				    u32 nr_poll_queues)
{
	struct rtrs_clt_sess *clt;
	struct rtrs_path *path;
	size_t i;
	int err;

	if (!ops || !ops->link_ev || !paths || !path_cnt ||
	    path_cnt > RTRS_MAX_PATHS || rtrs_sessname_check(sessname) ||
	    max_reconnect_attempts < -1 || nr_poll_queues > nr_cpu_ids)
		return ERR_PTR(-EINVAL);
	for (i = 0; i < path_cnt; i++)
		if (!paths[i].dst)
			return ERR_PTR(-EINVAL);

	clt = rtrs_clt_alloc(ops, sessname, port, pdu_sz, reconnect_delay_sec,
			     max_reconnect_attempts, nr_poll_queues);
	if (IS_ERR(clt))
		return clt;
	/*
	 * device_add() refuses a name in use too, but with a stack dump in
	 * the kernel log; under the mutex, check and add are one step.
	 */
	mutex_lock(&rtrs_sessions_mutex);
	err = rtrs_clt_name_used(sessname) ? -EEXIST :
	      rtrs_clt_sysfs_create(clt);
	if (!err)
		list_add_tail(&clt->entry, &rtrs_sessions);
	mutex_unlock(&rtrs_sessions_mutex);
	if (err) {
		put_device(&clt->dev);
		return ERR_PTR(err);
	}

	/*
	 * add_path and remove_path are live from rtrs_clt_sysfs_create() on:
	 * they wait for the open, and a failed open closes the session for
	 * them before it destroys the paths, as rtrs_clt_close() does
	 */
	mutex_lock(&clt->path_op_mutex);
	for (i = 0; i < path_cnt; i++) {
		path = rtrs_path_alloc(clt, &paths[i], nr_poll_queues);
		if (IS_ERR(path)) {
			err = PTR_ERR(path);
			goto fail;
		}
		/* the first path creates the session on the server */
		path->first_conn = !i;
		rtrs_clt_list_add_path(clt, path);
		err = rtrs_path_open(path);
		if (!err)
			err = rtrs_path_sysfs_create(path);
		if (err)
			goto fail;
	}
	err = rtrs_clt_alloc_permits(clt);
	if (err)
		goto fail;
	mutex_unlock(&clt->path_op_mutex);
	rtrs_debugfs_add_sess(clt);
	mutex_lock(&clt->link_mutex);
	clt->opened = true;
	mutex_unlock(&clt->link_mutex);
	return clt;

fail:
	WRITE_ONCE(clt->closing, true);
	mutex_unlock(&clt->path_op_mutex);
	rtrs_clt_destroy_paths(clt);
	rtrs_clt_unlist(clt);
	put_device(&clt->dev);
	return ERR_PTR(err);
}
EXPORT_SYMBOL(rtrs_clt_open);

/**
 * rtrs_clt_close() - close a session opened by rtrs_clt_open()
 * @clt: the session
 *
 * Every path is disconnected; requests in flight complete with an error.
 * Then it waits until every permit is returned, and frees the session.
 *
 * Context: process, may sleep.
 */
void rtrs_clt_close(struct rtrs_clt_sess *clt)
{
	mutex_lock(&clt->link_mutex);
	clt->opened = false;
	mutex_unlock(&clt->link_mutex);
	rtrs_debugfs_del_sess(clt);
	/* wait for an add_path or remove_path in flight; refuse new ones */
	mutex_lock(&clt->path_op_mutex);
	WRITE_ONCE(clt->closing, true);
	mutex_unlock(&clt->path_op_mutex);
	/* not opened: nothing arms it again */
	cancel_delayed_work_sync(&clt->hold_dwork);
	rtrs_clt_destroy_paths(clt);
	/* the teardowns that could kick it are over */
	cancel_delayed_work_sync(&clt->resume_dwork);
	/* nothing can take what is held any more: fail it */
	rtrs_clt_fail_held(clt, -ECONNABORTED);
	wait_var_event(&clt->permits_used, !atomic_read(&clt->permits_used));
	rtrs_clt_unlist(clt);
	put_device(&clt->dev);
}
EXPORT_SYMBOL(rtrs_clt_close);

/* ------------------------------------------------------------- module */

/*
 * Per device: a port that goes down fails the connected paths on it at
 * once. Otherwise a pulled cable is noticed only by the heartbeat, 30 s
 * later (rxe does not even time out the requests in flight), and the I/O
 * of those requests waits that long for its failover.
 */
struct rtrs_clt_dev {
	struct ib_device	*dev;
	struct ib_event_handler	handler;
	struct work_struct	port_work;
};

static void rtrs_clt_port_work(struct work_struct *work)
{
	struct rtrs_clt_dev *d = container_of(work, struct rtrs_clt_dev,
					      port_work);
	enum ib_port_state st;
	struct rtrs_clt_sess *clt;
	struct rtrs_path *path;
	bool down;

	mutex_lock(&rtrs_sessions_mutex);
	list_for_each_entry(clt, &rtrs_sessions, entry) {
		mutex_lock(&clt->paths_mutex);
		list_for_each_entry(path, &clt->paths_list, entry) {
			/*
			 * The endpoint and hca_port of a path found CONNECTED
			 * stay until the end of the RCU read section
			 */
			rcu_read_lock();
			down = rtrs_path_usable(path) &&
			       path->ep->ib_dev == d->dev &&
			       !ib_get_cached_port_state(d->dev, path->hca_port,
							 &st) &&
			       st != IB_PORT_ACTIVE;
			rcu_read_unlock();
			if (!down)
				continue;
			rtrs_path_err(path, "port %u is down\n",
				      path->hca_port);
			rtrs_path_error(path);
		}
		mutex_unlock(&clt->paths_mutex);
	}
	mutex_unlock(&rtrs_sessions_mutex);
}

static void rtrs_clt_ib_event(struct ib_event_handler *handler,
			      struct ib_event *ev)
{
	struct rtrs_clt_dev *d = container_of(handler, struct rtrs_clt_dev,
					      handler);

	if (ev->event == IB_EVENT_PORT_ERR)
		queue_work(rtrs_wq, &d->port_work);
}

static struct ib_client rtrs_clt_ib_client;

static int rtrs_clt_add_one(struct ib_device *dev)
{
	struct rtrs_clt_dev *d;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->dev = dev;
	INIT_WORK(&d->port_work, rtrs_clt_port_work);
	INIT_IB_EVENT_HANDLER(&d->handler, dev, rtrs_clt_ib_event);
	ib_set_client_data(dev, &rtrs_clt_ib_client, d);
	ib_register_event_handler(&d->handler);
	return 0;
}

/*
 * A device goes away: every path on it is torn down before we return, so
 * the CM finds no cm_id of ours; the paths then reconnect (maybe on
 * another device) as after any failure.
 */
static void rtrs_clt_remove_one(struct ib_device *dev, void *client_data)
{
	struct rtrs_clt_dev *d = client_data;
	struct rtrs_clt_sess *clt;
	struct rtrs_path *path;

	ib_unregister_event_handler(&d->handler);
	cancel_work_sync(&d->port_work);
	kfree(d);
	mutex_lock(&rtrs_sessions_mutex);
	list_for_each_entry(clt, &rtrs_sessions, entry) {
		mutex_lock(&clt->paths_mutex);
		list_for_each_entry(path, &clt->paths_list, entry)
			rtrs_path_device_removed(path, dev);
		mutex_unlock(&clt->paths_mutex);
	}
	mutex_unlock(&rtrs_sessions_mutex);
}

static struct ib_client rtrs_clt_ib_client = {
	.name	= "rtrs_client",
	.add	= rtrs_clt_add_one,
	.remove	= rtrs_clt_remove_one,
};

static int __init rtrs_clt_init(void)
{
	int err;

	/* unbound: a sweeper must not wait behind a poller spinning on its CPU */
	rtrs_wq = alloc_workqueue("rtrs_client_wq", WQ_UNBOUND | WQ_MEM_RECLAIM,
				  0);
	if (!rtrs_wq)
		return -ENOMEM;
	err = rtrs_clt_class_init();
	if (err)
		goto destroy_wq;
	rtrs_debugfs_init();
	err = ib_register_client(&rtrs_clt_ib_client);
	if (err)
		goto class_exit;
	return 0;

class_exit:
	rtrs_debugfs_exit();
	rtrs_clt_class_exit();
destroy_wq:
	destroy_workqueue(rtrs_wq);
	return err;
}

static void __exit rtrs_clt_exit(void)
{
	ib_unregister_client(&rtrs_clt_ib_client);
	rtrs_debugfs_exit();
	rtrs_clt_class_exit();
	destroy_workqueue(rtrs_wq);
}

module_init(rtrs_clt_init);
module_exit(rtrs_clt_exit);

MODULE_DESCRIPTION("RTRS client: RDMA transport under rnbd");
MODULE_LICENSE("GPL");
