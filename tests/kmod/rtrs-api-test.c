// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-api-test.c - call the rtrs client API with bad input and report.
 *
 * A test module, loaded in the client VM by tests/vm/cases/api-bad-input.sh
 * next to our rtrs-client. It is not an rtrs user to copy from: it only
 * checks that every bad call returns the documented error, in bounded time,
 * without a crash. Each check prints one line
 *
 *	rtrs_api_test: PASS|FAIL <check>: ...
 *
 * and init returns 0 only if all of them passed (the case then unloads it).
 *
 * With server= set it also opens a real session and, after the checks that
 * need a connected path, waits up to cut_wait seconds for the test to take
 * the path down (its sysfs "disconnect" file); then it checks the calls
 * that need a session without a connected path.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/scatterlist.h>
#include <rtrs.h>
#include "rtrs-proto.h"

static char *server;
module_param(server, charp, 0444);
MODULE_PARM_DESC(server, "address of a running rtrs-server, e.g. ip:198.18.0.1 (empty: skip the session checks)");
static ushort port = 1234;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port of server= (default 1234)");
static char *noserver;
module_param(noserver, charp, 0444);
MODULE_PARM_DESC(noserver, "address and port where no rtrs-server listens, e.g. ip:198.18.0.1 with noserver_port");
static ushort noserver_port = 1299;
module_param(noserver_port, ushort, 0444);
MODULE_PARM_DESC(noserver_port, "port of noserver= (default 1299)");
static char *nohost;
module_param(nohost, charp, 0444);
MODULE_PARM_DESC(nohost, "an address of a link where no host answers, e.g. ip:198.18.0.9");
static uint cut_wait = 120;
module_param(cut_wait, uint, 0444);
MODULE_PARM_DESC(cut_wait, "seconds to wait for the test to disconnect the path (default 120)");
static bool holds = true;
module_param(holds, bool, 0444);
MODULE_PARM_DESC(holds, "rtrs-client holds I/O of a session without paths (its io_hold_sec is not 0): an I/O request is then kept (0) and completes with -ECONNABORTED when the session closes, instead of failing with -ECONNABORTED (default Y)");

#define SESSNAME "apitest"

static int failed;

static void check(const char *what, long got, long want)
{
	if (got == want) {
		pr_info("PASS %s: %ld\n", what, got);
	} else {
		pr_err("FAIL %s: got %ld, want %ld\n", what, got, want);
		failed++;
	}
}

static void api_link_ev(void *priv, enum rtrs_clt_link_ev ev)
{
	pr_info("link event %d\n", ev);
}

static struct rtrs_clt_ops api_ops = { .link_ev = api_link_ev };

/* Open with no reconnects; close again at once if it worked. */
static long open_err(const struct rtrs_clt_ops *ops, const char *name,
		     const struct rtrs_addr *paths, size_t cnt, u16 port)
{
	struct rtrs_clt_sess *sess;

	sess = rtrs_clt_open((struct rtrs_clt_ops *)ops, name, paths, cnt,
			     port, 64, 1, 0, 0);
	if (IS_ERR(sess))
		return PTR_ERR(sess);
	rtrs_clt_close(sess);
	return 0;
}

static void api_conf(void *priv, int errno)
{
	pr_err("FAIL a rejected request completed: %d\n", errno);
}

static struct rtrs_clt_req_ops api_req_ops = { .conf_fn = api_conf };

/* The request a session without paths keeps: its completion returns the permit */
struct api_held {
	struct rtrs_clt_sess	*sess;
	struct rtrs_permit	*permit;
	int			calls;
	int			err;
};

static void api_held_conf(void *priv, int errno)
{
	struct api_held *h = priv;

	h->calls++;
	h->err = errno;
	rtrs_clt_put_permit(h->sess, h->permit);
}

/* Arguments that must be refused before anything goes on the wire */
static void check_open_args(struct rtrs_addr *one)
{
	struct rtrs_clt_ops no_ev = { };
	struct rtrs_addr no_dst = { };
	struct rtrs_addr *many;
	char *name;
	size_t i;

	check("open: empty name", open_err(&api_ops, "", one, 1, port), -EINVAL);
	name = kmalloc(RTRS_SESSNAME_SIZE + 1, GFP_KERNEL);
	if (name) {
		memset(name, 'a', RTRS_SESSNAME_SIZE);
		name[RTRS_SESSNAME_SIZE] = '\0';
		check("open: name too long", open_err(&api_ops, name, one, 1, port),
		      -EINVAL);
		kfree(name);
	}
	check("open: name with '/'", open_err(&api_ops, "a/b", one, 1, port),
	      -EINVAL);
	check("open: name with '.'", open_err(&api_ops, "a.b", one, 1, port),
	      -EINVAL);
	check("open: no link_ev", open_err(&no_ev, SESSNAME, one, 1, port),
	      -EINVAL);
	check("open: 0 paths", open_err(&api_ops, SESSNAME, one, 0, port),
	      -EINVAL);
	check("open: NULL paths", open_err(&api_ops, SESSNAME, NULL, 1, port),
	      -EINVAL);
	check("open: NULL dst", open_err(&api_ops, SESSNAME, &no_dst, 1, port),
	      -EINVAL);
	many = kcalloc(RTRS_MAX_PATHS + 1, sizeof(*many), GFP_KERNEL);
	if (many) {
		for (i = 0; i <= RTRS_MAX_PATHS; i++)
			many[i] = *one;
		check("open: RTRS_MAX_PATHS + 1 paths",
		      open_err(&api_ops, SESSNAME, many, RTRS_MAX_PATHS + 1, port),
		      -EINVAL);
		kfree(many);
	}
}

/* A refused or unreachable server: an error, never a session */
static void check_no_server(const char *what, const char *str, u16 port,
			    struct rtrs_addr *addr)
{
	unsigned long t0 = jiffies;
	long err = open_err(&api_ops, SESSNAME, addr, 1, port);
	bool ok = err == -ECONNREFUSED || err == -ECONNRESET ||
		  err == -ETIMEDOUT || err == -EHOSTUNREACH ||
		  err == -ENETUNREACH;

	check(what, ok ? 0 : err, 0);
	pr_info("open to %s port %u failed with %ld after %u ms\n", str, port,
		err, jiffies_to_msecs(jiffies - t0));
}

/* Requests and queries on an open session, then without a connected path */
static void check_session(struct rtrs_addr *addr)
{
	struct rtrs_clt_sess *sess;
	struct rtrs_permit *permit;
	struct rtrs_attrs attrs;
	struct scatterlist sg;
	struct rtrs_clt_req_ops held_ops = { .conf_fn = api_held_conf };
	struct api_held held = { };
	struct kvec vec, wrap[2];
	unsigned long end;
	void *buf;
	long err;

	sess = rtrs_clt_open(&api_ops, SESSNAME, addr, 1, port, 64, 1, 0, 0);
	check("open: good session", PTR_ERR_OR_ZERO(sess), 0);
	if (IS_ERR(sess))
		return;
	check("open: same name again", open_err(&api_ops, SESSNAME, addr, 1, port),
	      -EEXIST);
	check("query: connected", rtrs_clt_query(sess, &attrs), 0);
	pr_info("queue_depth %u max_io_size %u max_segments %u\n",
		attrs.queue_depth, attrs.max_io_size, attrs.max_segments);

	permit = rtrs_clt_get_permit(sess, RTRS_IO_CON, RTRS_PERMIT_NOWAIT);
	check("get_permit: NOWAIT on an idle session", permit ? 0 : -ENOMEM, 0);
	buf = kzalloc(2 * PAGE_SIZE, GFP_KERNEL);
	if (!permit || !buf)
		goto close;
	/* the server's header room is at most a page; this one is too big */
	vec.iov_base = buf;
	vec.iov_len = PAGE_SIZE;
	check("request: oversized user message",
	      rtrs_clt_request(WRITE, &api_req_ops, sess, permit, &vec, 1, 0,
			       NULL, 0), -EMSGSIZE);
	vec.iov_len = 16;
	sg_init_one(&sg, buf, 2 * PAGE_SIZE);
	sg.length = attrs.max_io_size + PAGE_SIZE;
	check("request: data over max_io_size",
	      rtrs_clt_request(READ, &api_req_ops, sess, permit, &vec, 1,
			       sg.length, &sg, 1), -EMSGSIZE);
	check("request: bad direction",
	      rtrs_clt_request(2, &api_req_ops, sess, permit, &vec, 1, 0,
			       NULL, 0), -EINVAL);
	check("request: no ops",
	      rtrs_clt_request(WRITE, NULL, sess, permit, &vec, 1, 0, NULL, 0),
	      -EINVAL);
	/* two parts whose lengths add up to 16 in size_t arithmetic */
	wrap[0].iov_base = buf;
	wrap[0].iov_len = SIZE_MAX - 7;
	wrap[1].iov_base = buf;
	wrap[1].iov_len = 24;
	check("request: user message lengths that wrap around",
	      rtrs_clt_request(WRITE, &api_req_ops, sess, permit, wrap, 2, 0,
			       NULL, 0), -EMSGSIZE);

	pr_info("waiting %u s for the path to be disconnected\n", cut_wait);
	end = jiffies + cut_wait * HZ;
	while (!rtrs_clt_query(sess, &attrs) && time_before(jiffies, end))
		msleep(100);
	check("query: no connected path", rtrs_clt_query(sess, &attrs), -ECOMM);
	held.sess = sess;
	held.permit = permit;
	held_ops.priv = &held;
	err = rtrs_clt_request(WRITE, &held_ops, sess, permit, &vec, 1, 0,
			       NULL, 0);
	check("request: no connected path", err, holds ? 0 : -ECONNABORTED);
	if (!err)
		permit = NULL;	/* kept: its completion gives the permit back */
	check("request: on a permit whose request is kept",
	      permit ? 0 : rtrs_clt_request(WRITE, &api_req_ops, sess,
					    held.permit, &vec, 1, 0, NULL, 0),
	      permit ? 0 : -EBUSY);
	check("cq_direct: no connected path", rtrs_clt_rdma_cq_direct(sess, 0),
	      -1);
close:
	kfree(buf);
	if (permit)
		rtrs_clt_put_permit(sess, permit);
	rtrs_clt_close(sess);
	pr_info("session closed\n");
	check("kept request: completions at close", held.calls, holds ? 1 : 0);
	if (holds)
		check("kept request: its error at close", held.err,
		      -ECONNABORTED);
}

static int parse_addr(const char *str, u16 port, struct rtrs_addr *addr,
		      struct sockaddr_storage *dst)
{
	addr->src = NULL;
	addr->dst = dst;
	return rtrs_addr_to_sockaddr(str, strlen(str), port, addr);
}

static int __init rtrs_api_test_init(void)
{
	struct sockaddr_storage *dst;
	struct rtrs_addr addr;

	dst = kzalloc(sizeof(*dst), GFP_KERNEL);
	if (!dst)
		return -ENOMEM;
	check("parse: no prefix", parse_addr("198.18.0.1", port, &addr, dst),
	      -EPROTONOSUPPORT);
	check("parse: bad address", parse_addr("ip:1.2.3.4.5", port, &addr, dst),
	      -EINVAL);
	check("parse: ip:127.0.0.1", parse_addr("ip:127.0.0.1", port, &addr, dst),
	      0);
	check_open_args(&addr);
	if (noserver && *noserver) {
		check("parse: noserver", parse_addr(noserver, noserver_port, &addr, dst), 0);
		if (!failed)
			check_no_server("open: no server listens", noserver,
					noserver_port, &addr);
	}
	if (nohost && *nohost) {
		check("parse: nohost", parse_addr(nohost, port, &addr, dst), 0);
		if (!failed)
			check_no_server("open: no host answers", nohost, port,
					&addr);
	}
	if (server && *server) {
		check("parse: server", parse_addr(server, port, &addr, dst), 0);
		if (!failed)
			check_session(&addr);
	}
	kfree(dst);
	pr_info("%s\n", failed ? "FAILED" : "ALL PASSED");
	return failed ? -EINVAL : 0;
}

static void __exit rtrs_api_test_exit(void)
{
}

module_init(rtrs_api_test_init);
module_exit(rtrs_api_test_exit);
MODULE_DESCRIPTION("Bad-input checks of the RTRS client API (test only)");
MODULE_LICENSE("GPL");
