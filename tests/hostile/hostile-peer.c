// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostile-peer - a user-space RTRS 2.0 server that can misbehave on command.
 *
 * It is the fuzzing peer of issue 19 ("a hostile or broken server cannot hurt
 * the client host"). Run on the bed's server VM (rdma_rxe), it listens with
 * the RDMA CM on the RTRS port, accepts the connections of a client path,
 * answers the info request with one descriptor covering queue_depth chunks of
 * one memory region, and serves I/O the way the upstream server does: a READ
 * is answered with an RDMA WRITE into the client's descriptor, a SEND with
 * invalidate when asked for, and a zero-length RDMA WRITE with immediate
 * carrying the status; a WRITE arrives by RDMA WRITE with immediate in our
 * chunk and is answered by the immediate alone. Heartbeats are sent and
 * answered. Above RTRS it speaks just enough rnbd (session info, open, I/O,
 * close) for rnbd-client's map_device to work against a memory-backed device.
 *
 * --mutate NAME makes it break one rule at a chosen moment (--after, --count);
 * --list prints the table. --check-inval probes, after a READ completed, an
 * RDMA WRITE to that READ's rkey, which the client must have invalidated: a
 * remote access error is the right outcome, a success is a client bug.
 *
 * One line of log per event on stdout, and a summary on exit (SIGTERM/SIGINT,
 * or --max-time). Exit status: 0, 1 on a setup error, 2 if a --check-inval
 * probe write succeeded.
 *
 * Single-threaded: one poll() loop over the CM event channel and the
 * completion channels. Every CM event is copied and acknowledged at once, so
 * any id can be destroyed from anywhere in the loop.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "hostile-proto.h"

#define MAX_DEVS	4
#define MAX_PATHS	8
#define RECV_BUF_SIZE	512
#define MAX_CHAIN	8
#define PROBE_DELAY_S	0.3

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* ------------------------------------------------------------------ */
/* mutations */

enum phase { PH_NONE, PH_CONN, PH_INFO, PH_IO, PH_GLOBAL };

enum mut {
	M_NONE,
	/* connect request: reject, or accept with a bad conn_rsp */
	M_REJ_ERRNO, M_REJ_SHORT, M_REJ_BAD_MAGIC, M_REJ_NO_DATA,
	M_ACC_ERRNO, M_ACC_QD, M_ACC_HDR, M_ACC_IO, M_ACC_QD_HDR,
	M_ACC_BAD_MAGIC, M_ACC_BAD_VERSION, M_ACC_SHORT, M_ACC_NEW_RKEY,
	M_REP_LATE,
	/* info response */
	M_INFO_TYPE, M_INFO_SG0, M_INFO_SG_BIG, M_INFO_SG_UNEVEN,
	M_INFO_LEN_ODD, M_INFO_LEN_SHORT, M_INFO_LEN0, M_INFO_SHORT,
	M_INFO_OVERLONG, M_INFO_NONE, M_INFO_DUP, M_DREQ_HANDSHAKE,
	/* I/O responses */
	M_RSP_ERRNO, M_RSP_BAD_ID, M_RSP_IDLE_ID, M_RSP_DUP, M_RSP_FORGE_NEXT,
	M_RSP_WRONG_CON, M_IMM_UNKNOWN, M_INV_WRONG, M_INV_BAD_KEY,
	M_INV_STALE, M_INV_REPLAY, M_INV_MISSING, M_RDMA_OVERRUN,
	M_RDMA_WRONG_ADDR, M_STALL, M_NO_RECV, M_SEND_PLAIN, M_RECONNECT,
	/* I/O responses of a path accepted with NEW_RKEY_F */
	M_RKEY_BAD, M_RKEY_IDLE, M_RKEY_RANGE, M_RKEY_WRONG,
	/* whole run */
	M_HB_SILENT, M_HB_FLOOD,
};

/* M_RECONNECT's argument: the queue depth and chunk size of the reconnect */
#define RECON_ARG(qd, chunk_kib)	((long)(qd) << 16 | (chunk_kib))
#define RECON_QD(a)			((uint32_t)((a) >> 16) & 0xffff)
#define RECON_CHUNK(a)			((uint32_t)((a) & 0xffff) * 1024)

struct mutation {
	const char *name;
	enum mut m;
	enum phase ph;
	long arg;
	const char *what;
};

static const struct mutation mutations[] = {
	{ "none", M_NONE, PH_NONE, 0, "well-behaved server" },
	{ "rej_errno_m30000", M_REJ_ERRNO, PH_CONN, -30000, "reject cid 0, conn_rsp errno -30000" },
	{ "rej_errno_m529", M_REJ_ERRNO, PH_CONN, -529, "reject cid 0, errno -529" },
	{ "rej_errno_m512", M_REJ_ERRNO, PH_CONN, -512, "reject cid 0, errno -512 (ERESTARTSYS)" },
	{ "rej_errno_m134", M_REJ_ERRNO, PH_CONN, -134, "reject cid 0, errno -134" },
	{ "rej_errno_p5", M_REJ_ERRNO, PH_CONN, 5, "reject cid 0, errno +5" },
	{ "rej_errno_0", M_REJ_ERRNO, PH_CONN, 0, "reject cid 0, errno 0" },
	{ "rej_errno_m110", M_REJ_ERRNO, PH_CONN, -110, "reject cid 0, errno -ETIMEDOUT (valid control)" },
	{ "rej_errno_m16", M_REJ_ERRNO, PH_CONN, -16, "reject cid 0, errno -EBUSY" },
	{ "rej_short", M_REJ_SHORT, PH_CONN, 0, "reject cid 0 with 2 bytes of private data" },
	{ "rej_bad_magic", M_REJ_BAD_MAGIC, PH_CONN, -5, "reject cid 0, wrong magic" },
	{ "rej_no_data", M_REJ_NO_DATA, PH_CONN, 0, "reject cid 0 with no private data" },
	{ "acc_errno_m30000", M_ACC_ERRNO, PH_CONN, -30000, "accept cid 0 with errno -30000" },
	{ "acc_errno_p5", M_ACC_ERRNO, PH_CONN, 5, "accept cid 0 with errno +5" },
	{ "acc_qd0", M_ACC_QD, PH_CONN, 0, "accept cid 0 with queue_depth 0" },
	{ "acc_qd1", M_ACC_QD, PH_CONN, 1, "accept cid 0 with queue_depth 1" },
	{ "acc_qd_huge", M_ACC_QD, PH_CONN, 65535, "accept cid 0 with queue_depth 65535" },
	{ "acc_hdr_huge", M_ACC_HDR, PH_CONN, 0x40000000, "accept cid 0 with max_hdr_size 1 GiB" },
	{ "acc_hdr0", M_ACC_HDR, PH_CONN, 0, "accept cid 0 with max_hdr_size 0" },
	{ "acc_io_huge", M_ACC_IO, PH_CONN, 0xffffffffL, "accept cid 0 with max_io_size 0xffffffff" },
	{ "acc_io0", M_ACC_IO, PH_CONN, 0, "accept cid 0 with max_io_size 0" },
	{ "acc_qd_hdr_huge", M_ACC_QD_HDR, PH_CONN, 0x100000, "accept cid 0, queue_depth 65535 x max_hdr_size 1 MiB" },
	{ "acc_bad_magic", M_ACC_BAD_MAGIC, PH_CONN, 0, "accept cid 0 with a wrong magic" },
	{ "acc_bad_version", M_ACC_BAD_VERSION, PH_CONN, 0, "accept cid 0 with version 3.0" },
	{ "acc_short", M_ACC_SHORT, PH_CONN, 0, "accept cid 0 with 4 bytes of private data" },
	{ "acc_new_rkey", M_ACC_NEW_RKEY, PH_CONN, 0, "accept with NEW_RKEY_F but never send rkey messages" },
	{ "rep_late", M_REP_LATE, PH_CONN, 29, "accept cid 0 only after --arg seconds (default 29; the client waits 30)" },
	{ "rep_late_over", M_REP_LATE, PH_CONN, 35, "accept cid 0 only after 35 s, past the client's 30 s" },
	{ "info_type", M_INFO_TYPE, PH_INFO, HN_RKEY_RSP, "info response with type RKEY_RSP" },
	{ "info_sg0", M_INFO_SG0, PH_INFO, 0, "info response with sg_cnt 0" },
	{ "info_sg_big", M_INFO_SG_BIG, PH_INFO, 0xffff, "info response claiming 65535 descriptors, carrying one" },
	{ "info_sg_uneven", M_INFO_SG_UNEVEN, PH_INFO, 3, "info response with sg_cnt not dividing queue_depth" },
	{ "info_len_odd", M_INFO_LEN_ODD, PH_INFO, 0, "info descriptor length not a chunk multiple" },
	{ "info_len_short", M_INFO_LEN_SHORT, PH_INFO, 0, "info descriptor one chunk short" },
	{ "info_len0", M_INFO_LEN0, PH_INFO, 0, "info descriptor of length 0" },
	{ "info_short", M_INFO_SHORT, PH_INFO, 4, "info response of 4 bytes" },
	{ "info_overlong", M_INFO_OVERLONG, PH_INFO, 0, "info response longer than the client's buffer" },
	{ "info_none", M_INFO_NONE, PH_INFO, 0, "no info response" },
	{ "info_dup", M_INFO_DUP, PH_INFO, 0, "the info response twice" },
	{ "dreq_handshake", M_DREQ_HANDSHAKE, PH_INFO, 0, "disconnect cid 0 instead of answering the info request" },
	{ "rsp_errno", M_RSP_ERRNO, PH_IO, 5, "I/O response with errno --arg (0..511, default 5)" },
	{ "rsp_errno_511", M_RSP_ERRNO, PH_IO, 511, "I/O response with errno 511" },
	{ "rsp_errno_134", M_RSP_ERRNO, PH_IO, 134, "I/O response with errno 134" },
	{ "rsp_bad_id", M_RSP_BAD_ID, PH_IO, 0x7ffff, "forged response for an out-of-range id, then the real one" },
	{ "rsp_idle_id", M_RSP_IDLE_ID, PH_IO, 0, "forged response for an idle id, then the real one" },
	{ "rsp_dup", M_RSP_DUP, PH_IO, 0, "the response immediate twice" },
	{ "rsp_forge_next", M_RSP_FORGE_NEXT, PH_IO, 1, "real response, then one for the next id (races its post)" },
	{ "rsp_wrong_con", M_RSP_WRONG_CON, PH_IO, 0, "response on another connection of the path" },
	{ "imm_unknown", M_IMM_UNKNOWN, PH_IO, 5, "an immediate of unknown type --arg (default 5) first" },
	{ "imm_type15", M_IMM_UNKNOWN, PH_IO, 15, "an immediate of type 15 first" },
	{ "inv_wrong", M_INV_WRONG, PH_IO, 0x100, "SEND_WITH_INV naming a neighbouring MR's rkey" },
	{ "inv_bad_key", M_INV_BAD_KEY, PH_IO, 0x80, "SEND_WITH_INV with the right MR, wrong key byte" },
	{ "inv_stale", M_INV_STALE, PH_IO, 0, "SEND_WITH_INV with the previous READ's rkey instead" },
	{ "inv_replay", M_INV_REPLAY, PH_IO, 0, "replay the previous READ's SEND_WITH_INV first" },
	{ "inv_missing", M_INV_MISSING, PH_IO, 0, "W_INV immediate without the SEND_WITH_INV" },
	{ "rdma_overrun", M_RDMA_OVERRUN, PH_IO, 4096, "RDMA WRITE 4 KiB past the client's descriptor" },
	{ "rdma_wrong_addr", M_RDMA_WRONG_ADDR, PH_IO, 4096, "RDMA WRITE 4 KiB before the descriptor" },
	{ "stall", M_STALL, PH_IO, 0, "never answer the request" },
	{ "no_recv", M_NO_RECV, PH_IO, 0, "stop posting receives on the path" },
	{ "send_no_imm", M_SEND_PLAIN, PH_IO, 8, "a plain SEND (no immediate) of --arg bytes (default 8) before the response" },
	{ "send_oversize", M_SEND_PLAIN, PH_IO, 4096, "a SEND of 4096 bytes, more than the client's receive buffer, before the response" },
	{ "reconnect_smaller", M_RECONNECT, PH_IO, RECON_ARG(64, 64), "cut the path; accept its reconnect with queue_depth 64, max_io_size 60 KiB" },
	{ "reconnect_io_smaller", M_RECONNECT, PH_IO, RECON_ARG(128, 64), "cut the path; accept its reconnect with max_io_size 60 KiB" },
	{ "reconnect_qd_bigger", M_RECONNECT, PH_IO, RECON_ARG(256, 128), "cut the path; accept its reconnect with queue_depth 256" },
	{ "rkey_bad", M_RKEY_BAD, PH_IO, 1, "NEW_RKEY_F path: the response's rkey message names id + --arg (default 1)" },
	{ "rkey_idle", M_RKEY_IDLE, PH_IO, 0, "NEW_RKEY_F path: a whole rkey response for an idle id first" },
	{ "rkey_range", M_RKEY_RANGE, PH_IO, 0xffff, "NEW_RKEY_F path: the response's rkey message names buf_id 65535" },
	{ "rkey_wrong", M_RKEY_WRONG, PH_IO, 0x80, "NEW_RKEY_F path: the response's rkey message carries a wrong key byte" },
	{ "hb_silent", M_HB_SILENT, PH_GLOBAL, 0, "never send nor answer heartbeats (on the --only-addr paths)" },
	{ "hb_flood", M_HB_FLOOD, PH_GLOBAL, 3, "once armed, heartbeats as fast as the send queue takes them for --arg s (default 3; on the --only-addr paths)" },
};

/* ------------------------------------------------------------------ */
/* state */

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
};

struct path;

/*
 * A session: what the paths of one client session share, found by the
 * conn_req's paths_uuid (its paths by their sess_uuid), like upstream's
 * server: the chunks (one memory area, each path registers its own MR on it,
 * since the paths may sit on different devices) and, above, the store.
 */
struct sess {
	bool used;
	int no;
	int refs;
	uint8_t uuid[16];
	uint8_t *chunks;
	size_t chunks_len;
};

struct con {
	struct rdma_cm_id *id;
	struct path *path;
	struct ibv_cq *cq;
	uint16_t cid;
	bool established;
	char *rbuf;
	struct ibv_mr *rmr;
	int nrecv;
	int send_out;
	int send_max;
};

struct probe {
	bool pending;
	double when;
	uint64_t addr;
	uint32_t key;
	uint16_t cid;
	uint16_t buf_id;
};

struct path {
	bool used;
	bool dying;
	int no;
	char why[128];
	uint8_t sess_uuid[16];
	uint16_t cid_num;
	struct con **cons;
	struct dev *dev;
	struct sess *sess;
	char addr[INET6_ADDRSTRLEN];	/* our address the path came in on */
	bool target;			/* --only-addr: mutations apply here */
	bool own_chunks;		/* limits too big for the session's area */
	uint8_t *chunks;
	size_t chunks_len;
	struct ibv_mr *cmr;
	uint8_t *ctrl;
	size_t ctrl_len;
	struct ibv_mr *ctrlmr;
	struct hn_rkey_rsp *rk;		/* NEW_RKEY_F: one message per chunk + forged */
	struct ibv_mr *rkmr;
	bool new_rkey;
	double accept_at;		/* rep_late: when to accept cid 0 */
	struct hn_conn_rsp late_rsp;
	uint8_t late_len;
	uint32_t qd, chunk_size;	/* real */
	uint32_t adv_qd, adv_chunk;	/* as told to the client */
	uint32_t adv_io, adv_hdr;
	uint32_t mem_bits;
	bool connected;
	bool recv_stopped;
	bool probed;
	char name[256];
	bool have_last_inv;
	uint32_t last_inv_key;
	int hb_missed;
	double hb_next;
	struct probe probe;
};

static struct {
	const struct mutation *mut;
	long arg;
	bool arg_set;
	long after;
	long count;
	bool check_inval;
	bool arm_on_signal;
	int port;
	uint32_t qd;
	uint32_t chunk_size;
	size_t store_size;
	double max_time;
	const char *pidfile;
	const char *only_addr;
	int verbose;
} opt = {
	.port = HN_PORT,
	.qd = 128,
	.chunk_size = 128 * 1024,
	.store_size = 64u << 20,
	.count = 1,
};

static struct {
	long conn_reqs, accepts, rejects, established, disconnects;
	long info_reqs, info_rsps;
	long reqs, reads, writes, rnbd_sess_info, rnbd_open, rnbd_close, rnbd_io;
	long bytes_read, bytes_written;
	long rsps, rsp_errors;
	long hb_sent, hb_acked, hb_got, hb_flood;
	long mutated;
	long probe_good, probe_bad, probe_other;
	long wc_errors, post_errors;
	long paths_killed;
} st;

static struct dev devs[MAX_DEVS];
static int ndevs;
static struct path paths[MAX_PATHS];
static int path_seq;
static struct sess sesss[MAX_PATHS];
static int sess_seq;
static struct rdma_event_channel *cm_ch;
static struct rdma_cm_id *listen_id;
static uint8_t *store;
static double t0;
/* set by signal handlers: the C standard's type for that */
static volatile sig_atomic_t stop_sig;
static volatile sig_atomic_t armed = 1;
/* counters of mutation opportunities per phase */
static long seen_conn, seen_info, seen_io, applied;
/* reconnect_*: the limits the next cid-0 accept gets (0: the usual ones) */
static uint32_t recon_qd, recon_chunk;
/* hb_flood: when it ends (0: not started), and whether that was logged */
static double flood_end;
static bool flood_done;

/* ------------------------------------------------------------------ */
/* helpers */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__printf(1, 2)
static void logf_(const char *fmt, ...)
{
	va_list ap;

	printf("[%9.3f] ", now() - t0);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#define LOG(...) logf_(__VA_ARGS__)

static uint32_t ilog2_u32(uint32_t v)
{
	uint32_t r = 0;

	while (v >>= 1)
		r++;
	return r;
}

static const char *mname(void)
{
	return opt.mut ? opt.mut->name : "none";
}

static long marg(void)
{
	return opt.arg_set ? opt.arg : opt.mut->arg;
}

/* the rkey_* rows need a path accepted with NEW_RKEY_F from the start */
static bool rkey_mode(void)
{
	return opt.mut && (opt.mut->m == M_RKEY_BAD || opt.mut->m == M_RKEY_IDLE ||
			   opt.mut->m == M_RKEY_RANGE || opt.mut->m == M_RKEY_WRONG);
}

/*
 * Is this opportunity of phase ph the one to break? Counts opportunities per
 * phase; applies after --after of them, --count times (0: always). With
 * --only-addr, only the opportunities of paths on that address (@here) count:
 * a multipath session then has one path misbehave and the other not.
 */
static bool mutate_now(enum phase ph, enum mut m, bool here)
{
	long *seen;

	if (!opt.mut || opt.mut->ph != ph || (m != M_NONE && opt.mut->m != m))
		return false;
	if (!here)
		return false;
	if (!armed)
		return false;
	switch (ph) {
	case PH_CONN:
		seen = &seen_conn;
		break;
	case PH_INFO:
		seen = &seen_info;
		break;
	case PH_IO:
		seen = &seen_io;
		break;
	default:
		return true;
	}
	if (++*seen <= opt.after)
		return false;
	if (opt.count && applied >= opt.count)
		return false;
	applied++;
	st.mutated++;
	return true;
}

static void uuid_str(const uint8_t *u, char *s)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(s + 2 * i, "%02x", u[i]);
}

/* our address of @id as text; an IPv4 client arrives v4-mapped on [::] */
static void local_addr_str(struct rdma_cm_id *id, char *s, size_t n)
{
	struct sockaddr *sa = rdma_get_local_addr(id);
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)sa;

	snprintf(s, n, "?");
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, s, n);
	else if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
		inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], s, n);
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &a6->sin6_addr, s, n);
}

/* may a mutation apply to a path on our address @addr (--only-addr)? */
static bool addr_targeted(const char *addr)
{
	return !opt.only_addr || !strcmp(opt.only_addr, addr);
}

/* ------------------------------------------------------------------ */
/* devices and paths */

static struct dev *dev_get(struct ibv_context *ctx)
{
	struct dev *d;
	int i, fl;

	for (i = 0; i < ndevs; i++)
		if (devs[i].ctx == ctx)
			return &devs[i];
	if (ndevs == MAX_DEVS)
		return NULL;
	d = &devs[ndevs];
	d->ctx = ctx;
	d->pd = ibv_alloc_pd(ctx);
	d->ch = ibv_create_comp_channel(ctx);
	if (!d->pd || !d->ch) {
		LOG("ERROR device %s: no PD or completion channel",
		    ibv_get_device_name(ctx->device));
		return NULL;
	}
	fl = fcntl(d->ch->fd, F_GETFL);
	fcntl(d->ch->fd, F_SETFL, fl | O_NONBLOCK);
	ndevs++;
	LOG("DEVICE %s opened", ibv_get_device_name(ctx->device));
	return d;
}

static void path_kill(struct path *p, const char *why)
{
	if (!p || p->dying)
		return;
	p->dying = true;
	snprintf(p->why, sizeof(p->why), "%s", why);
}

static void con_destroy(struct con *c)
{
	if (c->id) {
		if (c->established)
			rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	free(c->rbuf);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c);
}

static void path_destroy(struct path *p)
{
	int i;

	LOG("PATH %d down: %s (closing %u connections)", p->no, p->why,
	    p->cid_num);
	st.paths_killed++;
	for (i = 0; i < p->cid_num; i++)
		if (p->cons[i])
			con_destroy(p->cons[i]);
	free(p->cons);
	if (p->cmr)
		ibv_dereg_mr(p->cmr);
	if (p->own_chunks)
		free(p->chunks);
	if (p->sess && !--p->sess->refs) {
		LOG("SESSION %d closed: its last path is gone", p->sess->no);
		free(p->sess->chunks);
		memset(p->sess, 0, sizeof(*p->sess));
	}
	if (p->ctrlmr)
		ibv_dereg_mr(p->ctrlmr);
	free(p->ctrl);
	if (p->rkmr)
		ibv_dereg_mr(p->rkmr);
	free(p->rk);
	memset(p, 0, sizeof(*p));
}

static void reap_paths(void)
{
	int i;

	for (i = 0; i < MAX_PATHS; i++)
		if (paths[i].used && paths[i].dying)
			path_destroy(&paths[i]);
}

static struct sess *sess_find(const uint8_t *uuid)
{
	int i;

	for (i = 0; i < MAX_PATHS; i++)
		if (sesss[i].used && !memcmp(sesss[i].uuid, uuid, 16))
			return &sesss[i];
	return NULL;
}

/* a new session's chunk area: the usual limits' queue_depth x chunk size */
static struct sess *sess_new(const uint8_t *uuid)
{
	struct sess *s = NULL;
	int i;

	for (i = 0; i < MAX_PATHS; i++)
		if (!sesss[i].used) {
			s = &sesss[i];
			break;
		}
	if (!s)
		return NULL;
	s->chunks_len = (size_t)opt.qd * opt.chunk_size;
	if (posix_memalign((void **)&s->chunks, 4096, s->chunks_len)) {
		s->chunks = NULL;
		return NULL;
	}
	memset(s->chunks, 0, s->chunks_len);
	s->used = true;
	s->no = ++sess_seq;
	memcpy(s->uuid, uuid, 16);
	LOG("SESSION %d new: %zu KiB of chunks shared by its paths", s->no,
	    s->chunks_len >> 10);
	return s;
}

static struct path *path_find(const struct sess *s, const uint8_t *uuid)
{
	int i;

	for (i = 0; s && i < MAX_PATHS; i++)
		if (paths[i].used && !paths[i].dying && paths[i].sess == s &&
		    !memcmp(paths[i].sess_uuid, uuid, 16))
			return &paths[i];
	return NULL;
}

static struct path *path_new(struct sess *s, const uint8_t *uuid,
			     uint16_t cid_num, struct dev *d, uint32_t qd,
			     uint32_t chunk_size)
{
	struct path *p = NULL;
	uint32_t k;
	int i;

	for (i = 0; i < MAX_PATHS; i++)
		if (!paths[i].used) {
			p = &paths[i];
			break;
		}
	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->cons = calloc(cid_num, sizeof(*p->cons));
	if (!p->cons)
		return NULL;
	p->used = true;
	p->no = ++path_seq;
	p->sess = s;
	s->refs++;
	memcpy(p->sess_uuid, uuid, 16);
	p->cid_num = cid_num;
	p->dev = d;
	p->qd = qd;
	p->chunk_size = chunk_size;
	p->adv_qd = p->qd;
	p->adv_chunk = p->chunk_size;
	p->adv_hdr = HN_MAX_HDR;
	p->adv_io = p->chunk_size - HN_MAX_HDR;
	p->chunks_len = (size_t)p->qd * p->chunk_size;
	if (p->chunks_len <= s->chunks_len) {
		p->chunks = s->chunks;
	} else {
		/* a reconnect_* path bigger than the session's area */
		p->own_chunks = true;
		if (posix_memalign((void **)&p->chunks, 4096, p->chunks_len)) {
			p->chunks = NULL;
			goto fail;
		}
		memset(p->chunks, 0, p->chunks_len);
	}
	p->cmr = ibv_reg_mr(d->pd, p->chunks, p->chunks_len,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ);
	/* room for the info response, also when it is made too long */
	p->ctrl_len = sizeof(struct hn_info_rsp) +
		      sizeof(struct hn_sg_desc) * (65536 + 64);
	p->ctrl = calloc(1, p->ctrl_len);
	if (!p->cmr || !p->ctrl)
		goto fail;
	p->ctrlmr = ibv_reg_mr(d->pd, p->ctrl, p->ctrl_len,
			       IBV_ACCESS_LOCAL_WRITE);
	if (!p->ctrlmr)
		goto fail;
	if (rkey_mode()) {
		/* the rkey message of each chunk, and 4 slots for forged ones */
		p->new_rkey = true;
		p->rk = calloc(p->qd + 4, sizeof(*p->rk));
		if (!p->rk)
			goto fail;
		p->rkmr = ibv_reg_mr(d->pd, p->rk, (p->qd + 4) * sizeof(*p->rk),
				     IBV_ACCESS_LOCAL_WRITE);
		if (!p->rkmr)
			goto fail;
		for (k = 0; k < p->qd + 4; k++) {
			p->rk[k].type = htole16(HN_RKEY_RSP);
			p->rk[k].buf_id = htole16((uint16_t)k);
			p->rk[k].rkey = htole32(p->cmr->rkey);
		}
	}
	return p;
fail:
	LOG("ERROR path memory: %s", strerror(errno));
	path_kill(p, "no memory");
	return NULL;
}

/* chunk bits from the queue depth the client was told */
static void path_set_bits(struct path *p)
{
	uint32_t qd = p->adv_qd;
	uint32_t cb = qd > 1 ? ilog2_u32(qd - 1) + 1 : 1;

	p->mem_bits = cb < 28 ? 28 - cb : 0;
}

/* ------------------------------------------------------------------ */
/* posting */

enum wr_kind { WK_RECV = 1, WK_SEND, WK_PROBE };

static uint64_t wr_id(enum wr_kind k, uint32_t a)
{
	return (uint64_t)k << 32 | a;
}

static int post_recv(struct con *c, int idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + (size_t)idx * RECV_BUF_SIZE),
		.length = RECV_BUF_SIZE,
		.lkey = c->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id(WK_RECV, idx),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int ret = ibv_post_recv(c->id->qp, &wr, &bad);

	if (ret) {
		st.post_errors++;
		LOG("ERROR path %d cid %u: posting a receive: %s", c->path->no, c->cid,
		    strerror(ret));
	}
	return ret;
}

/* post a chain; every WR signalled so send-queue room is easy to count */
static int post_chain(struct con *c, struct ibv_send_wr *wrs, int n,
		      const char *what)
{
	struct ibv_send_wr *bad;
	int i, ret;

	if (!n)
		return 0;
	if (c->send_out + n > c->send_max) {
		st.post_errors++;
		LOG("ERROR path %d cid %u: send queue full (%d + %d > %d), dropping %s",
		    c->path->no, c->cid, c->send_out, n, c->send_max, what);
		return -1;
	}
	for (i = 0; i < n; i++) {
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		wrs[i].send_flags |= IBV_SEND_SIGNALED;
		if (!wrs[i].wr_id)
			wrs[i].wr_id = wr_id(WK_SEND, 0);
	}
	ret = ibv_post_send(c->id->qp, wrs, &bad);
	if (ret) {
		st.post_errors++;
		LOG("ERROR path %d cid %u: post_send %s: %s", c->path->no,
		    c->cid, what, strerror(ret));
		path_kill(c->path, "post_send failed");
		return -1;
	}
	c->send_out += n;
	return 0;
}

static void wr_imm(struct ibv_send_wr *w, uint32_t imm)
{
	memset(w, 0, sizeof(*w));
	w->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w->imm_data = htonl(imm);
	w->num_sge = 0;
}

static void wr_send_inv(struct ibv_send_wr *w, uint32_t key)
{
	memset(w, 0, sizeof(*w));
	w->opcode = IBV_WR_SEND_WITH_INV;
	w->invalidate_rkey = key;
	w->num_sge = 0;
}

static int send_hb(struct con *c, uint32_t type)
{
	struct ibv_send_wr w;

	wr_imm(&w, hn_imm(type, 0));
	return post_chain(c, &w, 1, type == HN_IMM_HB_MSG ? "HB_MSG" : "HB_ACK");
}

/* ------------------------------------------------------------------ */
/* connection manager */

static int listen_start(void)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };

	cm_ch = rdma_create_event_channel();
	if (!cm_ch) {
		LOG("ERROR rdma_create_event_channel: %s", strerror(errno));
		return -1;
	}
	if (rdma_create_id(cm_ch, &listen_id, NULL, RDMA_PS_TCP)) {
		LOG("ERROR rdma_create_id: %s", strerror(errno));
		return -1;
	}
	a6.sin6_port = htons(opt.port);
	a6.sin6_addr = in6addr_any;
	if (rdma_bind_addr(listen_id, (struct sockaddr *)&a6)) {
		LOG("bind [::]:%d failed (%s), trying 0.0.0.0", opt.port,
		    strerror(errno));
		a4.sin_port = htons(opt.port);
		if (rdma_bind_addr(listen_id, (struct sockaddr *)&a4)) {
			LOG("ERROR rdma_bind_addr port %d: %s", opt.port,
			    strerror(errno));
			return -1;
		}
	}
	if (rdma_listen(listen_id, 64)) {
		LOG("ERROR rdma_listen: %s", strerror(errno));
		return -1;
	}
	fcntl(cm_ch->fd, F_SETFL, fcntl(cm_ch->fd, F_GETFL) | O_NONBLOCK);
	LOG("LISTEN port %d (RDMA CM, RC), queue_depth %u, chunk %u, store %zu MiB, mutation %s%s",
	    opt.port, opt.qd, opt.chunk_size, opt.store_size >> 20, mname(),
	    opt.check_inval ? ", check-inval" : "");
	return 0;
}

static void rej(struct rdma_cm_id *id, const void *pd, uint8_t len,
		const char *why)
{
	st.rejects++;
	LOG("REJECT %s (private data %u bytes)", why, len);
	rdma_reject(id, pd, len);
	rdma_destroy_id(id);
}

static void rej_errno(struct rdma_cm_id *id, int err, const char *why)
{
	struct hn_conn_rsp r = {
		.magic = htole16(HN_MAGIC),
		.version = htole16(HN_VERSION),
		.errno_ = htole16((uint16_t)(int16_t)err),
	};

	rej(id, &r, sizeof(r), why);
}

static struct con *con_create(struct path *p, struct rdma_cm_id *id,
			      uint16_t cid)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct con *c = calloc(1, sizeof(*c));
	int nr, ns, i;

	if (!c)
		return NULL;
	c->id = id;
	c->path = p;
	c->cid = cid;
	id->context = c;
	nr = (cid ? (int)p->qd : HN_SERVICE_QD) + 32;
	ns = 6 * (int)p->qd + 64;
	c->nrecv = nr;
	c->send_max = ns;
	c->rbuf = calloc(nr, RECV_BUF_SIZE);
	if (!c->rbuf)
		goto fail;
	c->rmr = ibv_reg_mr(p->dev->pd, c->rbuf, (size_t)nr * RECV_BUF_SIZE,
			    IBV_ACCESS_LOCAL_WRITE);
	c->cq = ibv_create_cq(id->verbs, nr + ns, c, p->dev->ch, 0);
	if (!c->rmr || !c->cq)
		goto fail;
	ibv_req_notify_cq(c->cq, 0);
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = ns;
	qa.cap.max_recv_wr = nr;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, p->dev->pd, &qa)) {
		LOG("ERROR rdma_create_qp: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < nr; i++)
		if (post_recv(c, i))
			goto fail;
	return c;
fail:
	id->context = NULL;
	c->id = NULL;	/* the caller rejects and destroys the id */
	if (id->qp)
		rdma_destroy_qp(id);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	free(c->rbuf);
	free(c);
	return NULL;
}

static void accept_con(struct path *p, struct con *c,
		       const struct hn_conn_rsp *rsp, uint8_t len)
{
	struct rdma_conn_param cp = { 0 };

	cp.private_data = rsp;
	cp.private_data_len = len;
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_accept(c->id, &cp)) {
		LOG("ERROR rdma_accept cid %u: %s", c->cid, strerror(errno));
		path_kill(p, "rdma_accept failed");
		return;
	}
	st.accepts++;
	LOG("ACCEPT path %d cid %u", p->no, c->cid);
}

static void on_connect_request(struct rdma_cm_id *id, const uint8_t *pdata,
			       uint8_t plen)
{
	struct hn_conn_req req;
	struct hn_conn_rsp rsp = { 0 };
	uint8_t rsp_len = sizeof(rsp);
	uint32_t qd = opt.qd, chunk = opt.chunk_size;
	char us[33], su[33], addr[INET6_ADDRSTRLEN];
	struct path *p;
	struct sess *s;
	struct dev *d;
	struct con *c;
	uint16_t cid, cid_num;
	bool mut = false;
	long a = 0;

	st.conn_reqs++;
	if (plen < sizeof(req)) {
		rej_errno(id, -ECONNRESET, "connect request with short private data");
		return;
	}
	memcpy(&req, pdata, sizeof(req));
	cid = le16toh(req.cid);
	cid_num = le16toh(req.cid_num);
	uuid_str(req.sess_uuid, us);
	uuid_str(req.paths_uuid, su);
	local_addr_str(id, addr, sizeof(addr));
	LOG("CONNECT_REQUEST cid %u/%u recon_cnt %u first_conn %u path %s session %s on %s magic 0x%x version 0x%x",
	    cid, cid_num, le16toh(req.recon_cnt), req.flags & HN_FIRST_CONN,
	    us, su, addr, le16toh(req.magic), le16toh(req.version));
	if (le16toh(req.magic) != HN_MAGIC ||
	    le16toh(req.version) >> 8 != HN_VERSION >> 8 ||
	    cid_num > HN_MAX_CONNS || cid >= cid_num) {
		rej_errno(id, -ECONNRESET, "invalid connect request");
		return;
	}
	d = dev_get(id->verbs);
	if (!d) {
		rej_errno(id, -ENOMEM, "no device");
		return;
	}
	s = sess_find(req.paths_uuid);
	if (cid == 0) {
		p = path_find(s, req.sess_uuid);
		if (p) {
			/* the session, even if this was its only path, stays for the new instance */
			s->refs++;
			path_kill(p, "client reconnects the path");
			path_destroy(p);
			s->refs--;
		}
		if (mutate_now(PH_CONN, M_NONE, addr_targeted(addr))) {
			a = marg();
			mut = true;
			switch (opt.mut->m) {
			case M_REJ_ERRNO:
				LOG("MUTATE %s: reject with errno %ld", mname(), a);
				rej_errno(id, (int)a, "mutation");
				return;
			case M_REJ_SHORT:
				LOG("MUTATE %s: reject with 2 bytes", mname());
				rsp.magic = htole16(HN_MAGIC);
				rej(id, &rsp, 2, "mutation");
				return;
			case M_REJ_BAD_MAGIC:
				LOG("MUTATE %s: reject with a wrong magic", mname());
				rsp.magic = htole16(0xBAD1);
				rsp.version = htole16(HN_VERSION);
				rsp.errno_ = htole16((uint16_t)(int16_t)a);
				rej(id, &rsp, sizeof(rsp), "mutation");
				return;
			case M_REJ_NO_DATA:
				LOG("MUTATE %s: reject without private data", mname());
				rej(id, NULL, 0, "mutation");
				return;
			default:
				break;
			}
		}
		if (recon_qd && !mut && addr_targeted(addr)) {
			qd = recon_qd;
			chunk = recon_chunk;
			recon_qd = 0;
			LOG("MUTATE %s: the reconnect gets queue_depth %u, chunk %u (max_io_size %u)",
			    opt.mut ? mname() : "none", qd, chunk, chunk - HN_MAX_HDR);
		}
		if (!s && !(req.flags & HN_FIRST_CONN)) {
			/* as upstream: only a first connection creates a session */
			rej_errno(id, -ENXIO, "not the first connection of an unknown session");
			return;
		}
		if (!s)
			s = sess_new(req.paths_uuid);
		p = s ? path_new(s, req.sess_uuid, cid_num, d, qd, chunk) : NULL;
		if (!p) {
			if (s && !s->refs) {
				free(s->chunks);
				memset(s, 0, sizeof(*s));
			}
			rej_errno(id, -ENOMEM, "no session or path slot or memory");
			return;
		}
		snprintf(p->addr, sizeof(p->addr), "%s", addr);
		p->target = addr_targeted(addr);
		if (mut) {
			switch (opt.mut->m) {
			case M_ACC_QD:
				p->adv_qd = (uint32_t)a;
				break;
			case M_ACC_HDR:
				p->adv_hdr = (uint32_t)a;
				break;
			case M_ACC_IO:
				p->adv_io = (uint32_t)a;
				break;
			case M_ACC_QD_HDR:
				p->adv_qd = 65535;
				p->adv_hdr = (uint32_t)a;
				break;
			default:
				break;
			}
			p->adv_chunk = p->adv_io + p->adv_hdr;
		}
		path_set_bits(p);
		LOG("PATH %d new: session %d on %s, %u connections, queue_depth %u, chunk %u, chunks rkey 0x%x at 0x%" PRIxPTR "%s%s",
		    p->no, s->no, p->addr, cid_num, p->qd, p->chunk_size, p->cmr->rkey,
		    (uintptr_t)p->chunks, p->own_chunks ? " (own chunks)" : "",
		    opt.only_addr && p->target ? ", mutation target" : "");
	} else {
		p = path_find(s, req.sess_uuid);
		if (!p) {
			rej_errno(id, -ECONNRESET, "cid > 0 of an unknown path");
			return;
		}
		if (cid_num != p->cid_num || p->cons[cid] || p->dev != d) {
			rej_errno(id, -ECONNRESET, "connection does not fit its path");
			return;
		}
	}
	c = con_create(p, id, cid);
	if (!c) {
		rej_errno(id, -ENOMEM, "connection setup failed");
		if (cid == 0)
			path_kill(p, "service connection setup failed");
		return;
	}
	p->cons[cid] = c;

	rsp.magic = htole16(HN_MAGIC);
	rsp.version = htole16(HN_VERSION);
	rsp.queue_depth = htole16((uint16_t)p->adv_qd);
	rsp.max_io_size = htole32(p->adv_io);
	rsp.max_hdr_size = htole32(p->adv_hdr);
	if (p->new_rkey)
		rsp.flags = htole32(HN_NEW_RKEY);
	if (mut && cid == 0) {
		switch (opt.mut->m) {
		case M_ACC_ERRNO:
			rsp.errno_ = htole16((uint16_t)(int16_t)a);
			break;
		case M_ACC_BAD_MAGIC:
			rsp.magic = htole16(0xBAD1);
			break;
		case M_ACC_BAD_VERSION:
			rsp.version = htole16(0x0300);
			break;
		case M_ACC_SHORT:
			rsp_len = 4;
			break;
		case M_ACC_NEW_RKEY:
			rsp.flags = htole32(HN_NEW_RKEY);
			break;
		default:
			break;
		}
		LOG("MUTATE %s: accept with errno %d queue_depth %u max_io_size %u max_hdr_size %u flags 0x%x magic 0x%x version 0x%x len %u",
		    mname(), (int16_t)le16toh(rsp.errno_), le16toh(rsp.queue_depth),
		    le32toh(rsp.max_io_size), le32toh(rsp.max_hdr_size),
		    le32toh(rsp.flags), le16toh(rsp.magic), le16toh(rsp.version),
		    rsp_len);
		if (opt.mut->m == M_REP_LATE) {
			/* timers() accepts it; the client may give up first */
			p->late_rsp = rsp;
			p->late_len = rsp_len;
			p->accept_at = now() + (double)a;
			LOG("MUTATE %s: accepting cid 0 of path %d in %ld s", mname(),
			    p->no, a);
			return;
		}
	}
	accept_con(p, c, &rsp, rsp_len);
}

static void on_cm_event(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct con *c = id ? id->context : NULL;
	enum rdma_cm_event_type type = ev->event;
	int status = ev->status;
	uint8_t pd[256];
	uint8_t plen = 0;

	if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		plen = ev->param.conn.private_data_len;
		if (plen && ev->param.conn.private_data)
			memcpy(pd, ev->param.conn.private_data, plen);
		else
			plen = 0;
	}
	rdma_ack_cm_event(ev);

	switch (type) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		on_connect_request(id, pd, plen);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!c)
			break;
		c->established = true;
		st.established++;
		LOG("ESTABLISHED path %d cid %u", c->path->no, c->cid);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		st.disconnects++;
		if (!c)
			break;
		LOG("DISCONNECTED path %d cid %u", c->path->no, c->cid);
		path_kill(c->path, "client disconnected");
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		LOG("CM_EVENT %s status %d%s", rdma_event_str(type), status,
		    c ? "" : " (no connection)");
		if (c)
			path_kill(c->path, rdma_event_str(type));
		break;
	}
}

/* ------------------------------------------------------------------ */
/* info exchange */

static void on_info_req(struct con *c, const uint8_t *buf, uint32_t len)
{
	struct path *p = c->path;
	struct hn_info_rsp *r = (struct hn_info_rsp *)p->ctrl;
	struct hn_info_req req;
	struct ibv_send_wr w[2] = { 0 };
	struct ibv_sge sge;
	uint32_t sg_cnt = 1, ndesc = 1, i, total;
	int nw = 1;
	uint64_t per;
	size_t sz;

	st.info_reqs++;
	if (len < sizeof(req) || le16toh(((const uint16_t *)buf)[0]) != HN_INFO_REQ) {
		LOG("PROTOCOL path %d: bad info request (%u bytes, type %u)",
		    p->no, len, len >= 2 ? le16toh(((const uint16_t *)buf)[0]) : 0);
		path_kill(p, "bad info request");
		return;
	}
	memcpy(&req, buf, sizeof(req));
	req.pathname[sizeof(req.pathname) - 1] = 0;
	snprintf(p->name, sizeof(p->name), "%s", (char *)req.pathname);
	LOG("INFO_REQ path %d session '%s'", p->no, p->name);

	memset(r, 0, sizeof(*r) + sizeof(struct hn_sg_desc) * 4);
	r->type = htole16(HN_INFO_RSP);
	total = p->adv_qd * p->adv_chunk;
	r->desc[0].addr = htole64((uintptr_t)p->chunks);
	r->desc[0].key = htole32(p->cmr->rkey);
	r->desc[0].len = htole32(total);
	sz = sizeof(*r) + sizeof(struct hn_sg_desc);
	if (mutate_now(PH_INFO, M_NONE, p->target)) {
		switch (opt.mut->m) {
		case M_INFO_NONE:
			LOG("MUTATE %s: no info response", mname());
			return;
		case M_DREQ_HANDSHAKE:
			LOG("MUTATE %s: disconnecting cid 0 of path %d instead of the info response",
			    mname(), p->no);
			if (rdma_disconnect(c->id))
				LOG("ERROR rdma_disconnect: %s", strerror(errno));
			return;
		case M_INFO_DUP:
			nw = 2;
			break;
		case M_INFO_TYPE:
			r->type = htole16((uint16_t)marg());
			break;
		case M_INFO_SG0:
			sg_cnt = 0;
			ndesc = 0;
			break;
		case M_INFO_SG_BIG:
			sg_cnt = (uint32_t)marg();
			break;
		case M_INFO_SG_UNEVEN:
			/* split the chunks over marg() descriptors, unevenly */
			sg_cnt = ndesc = (uint32_t)marg();
			per = (uint64_t)p->adv_chunk;
			for (i = 0; i < ndesc; i++) {
				uint64_t n = i + 1 < ndesc ? 1 : p->adv_qd - (ndesc - 1);

				r->desc[i].addr = htole64((uintptr_t)p->chunks + i * per);
				r->desc[i].key = htole32(p->cmr->rkey);
				r->desc[i].len = htole32((uint32_t)(n * per));
			}
			break;
		case M_INFO_LEN_ODD:
			r->desc[0].len = htole32(total - 512);
			break;
		case M_INFO_LEN_SHORT:
			r->desc[0].len = htole32(total - p->adv_chunk);
			break;
		case M_INFO_LEN0:
			r->desc[0].len = 0;
			break;
		case M_INFO_SHORT:
			sz = (size_t)marg();
			break;
		case M_INFO_OVERLONG:
			/* more than the 8 + 16 * queue_depth the client posted */
			ndesc = p->adv_qd + 64;
			for (i = 1; i < ndesc; i++)
				r->desc[i] = r->desc[0];
			break;
		default:
			break;
		}
		if (opt.mut->m != M_INFO_SHORT)
			sz = sizeof(*r) + sizeof(struct hn_sg_desc) * ndesc;
		LOG("MUTATE %s: info response type %u sg_cnt %u, %u descriptors, %zu bytes",
		    mname(), le16toh(r->type), sg_cnt, ndesc, sz);
	}
	r->sg_cnt = htole16((uint16_t)sg_cnt);
	sge.addr = (uintptr_t)p->ctrl;
	sge.length = (uint32_t)sz;
	sge.lkey = p->ctrlmr->lkey;
	for (i = 0; i < (uint32_t)nw; i++) {
		w[i].opcode = IBV_WR_SEND;
		w[i].sg_list = &sge;
		w[i].num_sge = 1;
	}
	if (nw > 1)
		LOG("MUTATE %s: the info response sent %d times", mname(), nw);
	if (post_chain(c, w, nw, "INFO_RSP"))
		return;
	st.info_rsps++;
	p->connected = true;
	p->hb_next = now() + HN_HB_INTERVAL_MS / 1000.0;
	LOG("INFO_RSP path %d: sg_cnt %u desc[0] addr 0x%" PRIx64 " key 0x%x len %u; path connected",
	    p->no, sg_cnt, le64toh(r->desc[0].addr), le32toh(r->desc[0].key),
	    le32toh(r->desc[0].len));
}

/* ------------------------------------------------------------------ */
/* rnbd on top */

struct io_ctx {
	struct path *p;
	uint32_t buf_id;
	bool read;
	uint8_t *chunk;
	uint32_t data_len;
	const uint8_t *usr;
	uint32_t usr_len;
	uint16_t rnbd_type;
	bool rnbd_io_read;
};

static int rnbd_serve(struct io_ctx *x)
{
	struct hn_rnbd_hdr h;
	struct hn_rnbd_io io;
	struct hn_rnbd_open om;
	struct hn_rnbd_open_rsp orsp;
	struct hn_rnbd_sess_info si, sir;
	uint64_t off, len;
	uint32_t op;

	if (x->usr_len < sizeof(h)) {
		LOG("RNBD path %d id %u: user message of %u bytes", x->p->no,
		    x->buf_id, x->usr_len);
		return -EINVAL;
	}
	memcpy(&h, x->usr, sizeof(h));
	x->rnbd_type = le16toh(h.type);
	switch (x->rnbd_type) {
	case HN_RNBD_SESS_INFO:
		st.rnbd_sess_info++;
		memset(&si, 0, sizeof(si));
		memcpy(&si, x->usr, x->usr_len < sizeof(si) ? x->usr_len : sizeof(si));
		LOG("RNBD SESS_INFO path %d id %u ver %u", x->p->no, x->buf_id, si.ver);
		if (!x->read || x->data_len < sizeof(sir))
			return -EINVAL;
		memset(&sir, 0, sizeof(sir));
		sir.hdr.type = htole16(HN_RNBD_SESS_INFO_RSP);
		sir.ver = si.ver < 2 ? si.ver : 2;
		memcpy(x->chunk, &sir, sizeof(sir));
		return 0;
	case HN_RNBD_OPEN:
		st.rnbd_open++;
		memset(&om, 0, sizeof(om));
		memcpy(&om, x->usr, x->usr_len < sizeof(om) ? x->usr_len : sizeof(om));
		om.dev_name[sizeof(om.dev_name) - 1] = 0;
		LOG("RNBD OPEN path %d id %u device '%s' mode %u", x->p->no,
		    x->buf_id, om.dev_name, om.access_mode);
		if (!x->read || x->data_len < sizeof(orsp))
			return -EINVAL;
		memset(&orsp, 0, sizeof(orsp));
		orsp.hdr.type = htole16(HN_RNBD_OPEN_RSP);
		orsp.device_id = htole32(0);
		orsp.nsectors = htole64(opt.store_size / 512);
		orsp.max_hw_sectors = htole32((x->p->chunk_size - HN_MAX_HDR) / 512);
		orsp.logical_block_size = htole16(512);
		orsp.physical_block_size = htole16(512);
		orsp.max_segments = htole16(128);
		memcpy(x->chunk, &orsp, sizeof(orsp));
		return 0;
	case HN_RNBD_CLOSE:
		st.rnbd_close++;
		LOG("RNBD CLOSE path %d id %u", x->p->no, x->buf_id);
		return 0;
	case HN_RNBD_IO:
		st.rnbd_io++;
		memset(&io, 0, sizeof(io));
		memcpy(&io, x->usr, x->usr_len < sizeof(io) ? x->usr_len : sizeof(io));
		op = le32toh(io.rw) & HN_RNBD_OP_MASK;
		off = le64toh(io.sector) * 512;
		len = le32toh(io.bi_size);
		if (opt.verbose || st.reqs <= 32)
			LOG("RNBD IO path %d id %u op %u sector %" PRIu64 " len %" PRIu64,
			    x->p->no, x->buf_id, op, off / 512, len);
		if (op == HN_RNBD_OP_FLUSH)
			return 0;
		if (off > opt.store_size || len > opt.store_size - off)
			return -EIO;
		switch (op) {
		case HN_RNBD_OP_READ:
			if (!x->read || x->data_len != len)
				return -EINVAL;
			memcpy(x->chunk, store + off, len);
			x->rnbd_io_read = true;
			st.bytes_read += len;
			return 0;
		case HN_RNBD_OP_WRITE:
			if (x->read || x->data_len != len)
				return -EINVAL;
			memcpy(store + off, x->chunk, len);
			st.bytes_written += len;
			return 0;
		case HN_RNBD_OP_DISCARD:
		case HN_RNBD_OP_SECURE_ERASE:
		case HN_RNBD_OP_WRITE_ZEROES:
			memset(store + off, 0, len);
			return 0;
		default:
			return -EINVAL;
		}
	default:
		LOG("RNBD path %d id %u: unknown message type %u", x->p->no,
		    x->buf_id, x->rnbd_type);
		return -EINVAL;
	}
}

/* ------------------------------------------------------------------ */
/* I/O */

static struct con *other_con(struct con *c)
{
	struct path *p = c->path;
	int i;

	for (i = 1; i <= p->cid_num; i++) {
		struct con *o = p->cons[(c->cid + i) % p->cid_num];

		if (o && o != c && o->established)
			return o;
	}
	return c;
}

static void respond(struct con *c, struct io_ctx *x,
		    const struct hn_read_msg *rd, const struct hn_sg_desc *desc,
		    int err)
{
	struct path *p = c->path;
	struct ibv_send_wr w[MAX_CHAIN];
	struct ibv_sge sge, xs[2];
	uint32_t type = HN_IMM_IO_RSP, id = x->buf_id, e = err < 0 ? -err : err;
	uint32_t key = 0;
	uint64_t raddr = 0;
	uint32_t rlen = 0;
	bool has_data = x->read && desc;
	bool inval = has_data && (le16toh(rd->flags) & HN_NEED_INVAL);
	enum mut m = M_NONE;
	struct con *rc = c;
	int n = 0;

	if (mutate_now(PH_IO, M_NONE, p->target))
		m = opt.mut->m;
	if (has_data) {
		key = le32toh(desc->key);
		raddr = le64toh(desc->addr);
		rlen = le32toh(desc->len);
		if (!rlen || rlen > p->chunk_size) {
			LOG("PROTOCOL path %d id %u: read descriptor of %u bytes",
			    p->no, id, rlen);
			if (!e)
				e = EINVAL;
		}
	}
	switch (m) {
	case M_NONE:
		break;
	case M_STALL:
		LOG("MUTATE %s: no answer to id %u", mname(), id);
		return;
	case M_NO_RECV:
		LOG("MUTATE %s: path %d stops posting receives (id %u answered)",
		    mname(), p->no, id);
		p->recv_stopped = true;
		break;
	case M_RSP_ERRNO:
		e = (uint32_t)marg();
		LOG("MUTATE %s: id %u answered with errno %u", mname(), id, e);
		break;
	case M_RSP_BAD_ID:
	case M_RSP_IDLE_ID:
	{
		uint32_t fid = m == M_RSP_BAD_ID ? (uint32_t)marg() :
			       (id + p->qd / 2) % p->qd;

		LOG("MUTATE %s: forged response for id %u before the real one for id %u",
		    mname(), fid, id);
		wr_imm(&w[n++], hn_rsp_imm(HN_IMM_IO_RSP, 0, fid));
		break;
	}
	case M_IMM_UNKNOWN:
		LOG("MUTATE %s: immediate of type %ld before the response to id %u",
		    mname(), marg(), id);
		wr_imm(&w[n++], hn_imm((uint32_t)marg(), id));
		break;
	case M_RSP_WRONG_CON:
		rc = other_con(c);
		LOG("MUTATE %s: response to id %u (cid %u) sent on cid %u",
		    mname(), id, c->cid, rc->cid);
		break;
	case M_SEND_PLAIN:
		xs[0].addr = (uintptr_t)p->ctrl;
		xs[0].length = (uint32_t)marg() < p->ctrl_len ? (uint32_t)marg() :
			       (uint32_t)p->ctrl_len;
		xs[0].lkey = p->ctrlmr->lkey;
		memset(&w[n], 0, sizeof(w[n]));
		w[n].opcode = IBV_WR_SEND;
		w[n].sg_list = &xs[0];
		w[n].num_sge = xs[0].length ? 1 : 0;
		n++;
		LOG("MUTATE %s: a SEND of %u bytes without immediate before the response to id %u",
		    mname(), xs[0].length, id);
		break;
	case M_RECONNECT:
		recon_qd = RECON_QD(marg());
		recon_chunk = RECON_CHUNK(marg());
		LOG("MUTATE %s: id %u unanswered, path %d cut; its reconnect gets queue_depth %u, chunk %u",
		    mname(), id, p->no, recon_qd, recon_chunk);
		path_kill(p, "mutation: path cut before a reconnect with other limits");
		return;
	case M_RKEY_IDLE:
	{
		struct hn_rkey_rsp *f = &p->rk[p->qd + applied % 4];
		uint32_t fid = (id + p->qd / 2) % p->qd;

		*f = p->rk[fid];
		xs[0].addr = (uintptr_t)f;
		xs[0].length = sizeof(*f);
		xs[0].lkey = p->rkmr->lkey;
		memset(&w[n], 0, sizeof(w[n]));
		w[n].opcode = IBV_WR_SEND_WITH_IMM;
		w[n].imm_data = htonl(hn_rsp_imm(HN_IMM_IO_RSP, 0, fid));
		w[n].sg_list = &xs[0];
		w[n].num_sge = 1;
		n++;
		LOG("MUTATE %s: rkey response for idle id %u before the real one for id %u",
		    mname(), fid, id);
		break;
	}
	case M_INV_REPLAY:
		if (p->have_last_inv) {
			LOG("MUTATE %s: replaying SEND_WITH_INV of rkey 0x%x before id %u",
			    mname(), p->last_inv_key, id);
			wr_send_inv(&w[n++], p->last_inv_key);
		} else {
			LOG("MUTATE %s: no earlier READ rkey to replay yet", mname());
		}
		break;
	default:
		break;
	}

	if (has_data && !e) {
		uint32_t l = rlen;
		uint64_t a = raddr;

		if (m == M_RDMA_OVERRUN) {
			l = rlen + (uint32_t)marg();
			if (l > p->chunk_size)
				l = p->chunk_size;
			LOG("MUTATE %s: RDMA WRITE of %u bytes into a %u byte descriptor (id %u)",
			    mname(), l, rlen, id);
		} else if (m == M_RDMA_WRONG_ADDR) {
			a = raddr - (uint64_t)marg();
			LOG("MUTATE %s: RDMA WRITE to 0x%" PRIx64 ", descriptor at 0x%" PRIx64 " (id %u)",
			    mname(), a, raddr, id);
		}
		memset(&w[n], 0, sizeof(w[n]));
		sge.addr = (uintptr_t)x->chunk;
		sge.length = l;
		sge.lkey = p->cmr->lkey;
		w[n].opcode = IBV_WR_RDMA_WRITE;
		w[n].sg_list = &sge;
		w[n].num_sge = 1;
		w[n].wr.rdma.remote_addr = a;
		w[n].wr.rdma.rkey = key;
		n++;
	}
	if (inval) {
		uint32_t ik = key;

		type = HN_IMM_IO_RSP_INV;
		if (m == M_INV_WRONG || m == M_INV_BAD_KEY) {
			ik = m == M_INV_WRONG ? key + (uint32_t)marg() :
			     key ^ (uint32_t)marg();
			LOG("MUTATE %s: SEND_WITH_INV rkey 0x%x instead of 0x%x (id %u)",
			    mname(), ik, key, id);
		} else if (m == M_INV_STALE) {
			if (p->have_last_inv) {
				ik = p->last_inv_key;
				LOG("MUTATE %s: SEND_WITH_INV of the previous rkey 0x%x instead of 0x%x (id %u)",
				    mname(), ik, key, id);
			} else {
				LOG("MUTATE %s: no earlier READ rkey yet, sent the right one", mname());
			}
		}
		if (m == M_INV_MISSING)
			LOG("MUTATE %s: W_INV immediate without SEND_WITH_INV (id %u, rkey 0x%x)",
			    mname(), id, key);
		else
			wr_send_inv(&w[n++], ik);
		p->have_last_inv = true;
		p->last_inv_key = key;
	}
	if (e > HN_RSP_ERR_MASK)
		e = HN_RSP_ERR_MASK;
	wr_imm(&w[n], hn_rsp_imm(type, e, id));
	if (p->new_rkey) {
		/* NEW_RKEY_F: the answer is a SEND WITH IMM naming the chunk's rkey */
		struct hn_rkey_rsp *msg = &p->rk[id];

		if (m == M_RKEY_BAD || m == M_RKEY_RANGE || m == M_RKEY_WRONG) {
			msg = &p->rk[p->qd + applied % 4];
			*msg = p->rk[id];
			if (m == M_RKEY_BAD)
				msg->buf_id = htole16((uint16_t)((id + (uint32_t)marg()) % p->qd));
			else if (m == M_RKEY_RANGE)
				msg->buf_id = htole16((uint16_t)marg());
			else
				msg->rkey = htole32(p->cmr->rkey ^ (uint32_t)marg());
			LOG("MUTATE %s: response to id %u with rkey message buf_id %u rkey 0x%x",
			    mname(), id, le16toh(msg->buf_id), le32toh(msg->rkey));
		}
		xs[1].addr = (uintptr_t)msg;
		xs[1].length = sizeof(*msg);
		xs[1].lkey = p->rkmr->lkey;
		w[n].opcode = IBV_WR_SEND_WITH_IMM;
		w[n].sg_list = &xs[1];
		w[n].num_sge = 1;
	}
	n++;
	if (m == M_RSP_DUP) {
		LOG("MUTATE %s: response to id %u sent twice", mname(), id);
		wr_imm(&w[n++], hn_rsp_imm(type, e, id));
	} else if (m == M_RSP_FORGE_NEXT) {
		uint32_t fid = (id + (uint32_t)marg()) % p->qd;

		LOG("MUTATE %s: after id %u, a forged response for id %u", mname(), id, fid);
		wr_imm(&w[n++], hn_rsp_imm(HN_IMM_IO_RSP, 0, fid));
	}
	if (e)
		st.rsp_errors++;
	st.rsps++;
	if (opt.verbose || e || m != M_NONE || st.reqs <= 32)
		LOG("RESPONSE path %d cid %u id %u errno %u%s%s", p->no, rc->cid,
		    id, e, has_data ? " with data" : "", inval ? ", invalidate" : "");
	if (post_chain(rc, w, n, "response"))
		return;

	if (opt.check_inval && armed && x->rnbd_io_read && has_data && !e && !p->probed &&
	    !p->probe.pending) {
		p->probe.pending = true;
		p->probe.when = now() + PROBE_DELAY_S;
		p->probe.addr = raddr;
		p->probe.key = key;
		p->probe.cid = c->cid;
		p->probe.buf_id = (uint16_t)id;
		LOG("CHECK-INVAL path %d: will write to id %u's rkey 0x%x at 0x%" PRIx64 " in %.1f s",
		    p->no, id, key, raddr, PROBE_DELAY_S);
	}
}

static void on_io_req(struct con *c, uint32_t payload)
{
	struct path *p = c->path;
	struct io_ctx x = { .p = p };
	uint32_t id = payload >> p->mem_bits;
	uint32_t off = payload & ((1u << p->mem_bits) - 1);
	const struct hn_read_msg *rd = NULL;
	const struct hn_sg_desc *desc = NULL;
	uint8_t *chunk, *hdr;
	uint16_t type, sg_cnt;
	int err;

	st.reqs++;
	if (!p->connected || id >= p->qd || off + sizeof(struct hn_read_msg) > p->chunk_size) {
		LOG("PROTOCOL path %d cid %u: request id %u offset %u out of range (qd %u)",
		    p->no, c->cid, id, off, p->qd);
		path_kill(p, "bad request immediate");
		return;
	}
	chunk = p->chunks + (size_t)id * p->chunk_size;
	hdr = chunk + off;
	type = le16toh(*(uint16_t *)hdr);
	x.buf_id = id;
	x.chunk = chunk;
	if (type == HN_READ) {
		rd = (const struct hn_read_msg *)hdr;
		x.read = true;
		x.usr_len = le16toh(rd->usr_len);
		sg_cnt = le16toh(rd->sg_cnt);
		if (sg_cnt > 1 || off + sizeof(*rd) + sg_cnt * sizeof(*desc) > p->chunk_size) {
			LOG("PROTOCOL path %d id %u: READ with sg_cnt %u", p->no, id, sg_cnt);
			path_kill(p, "bad read message");
			return;
		}
		if (sg_cnt)
			desc = rd->desc;
		st.reads++;
	} else if (type == HN_WRITE) {
		x.usr_len = le16toh(((const struct hn_write_msg *)hdr)->usr_len);
		st.writes++;
	} else {
		LOG("PROTOCOL path %d id %u: unknown message type %u at offset %u",
		    p->no, id, type, off);
		path_kill(p, "bad request type");
		return;
	}
	if (x.usr_len > off) {
		LOG("PROTOCOL path %d id %u: usr_len %u > offset %u", p->no, id,
		    x.usr_len, off);
		path_kill(p, "bad usr_len");
		return;
	}
	x.data_len = off - x.usr_len;
	x.usr = chunk + x.data_len;
	if (desc && le32toh(desc->len) < x.data_len)
		x.data_len = le32toh(desc->len);
	err = rnbd_serve(&x);
	respond(c, &x, rd, desc, err);
}

/* ------------------------------------------------------------------ */
/* completions */

static void run_probe(struct path *p)
{
	struct con *c = p->cons[p->probe.cid];
	struct ibv_send_wr w = { 0 };
	struct ibv_sge sge;
	/* the first 8 bytes of the last chunk: no request uses them now */
	uint8_t *src = p->chunks + p->chunks_len - p->chunk_size;

	p->probe.pending = false;
	p->probed = true;
	if (!c || !c->established)
		return;
	memcpy(src, "HOSTILE!", 8);
	sge.addr = (uintptr_t)src;
	sge.length = 8;
	sge.lkey = p->cmr->lkey;
	w.opcode = IBV_WR_RDMA_WRITE;
	w.sg_list = &sge;
	w.num_sge = 1;
	w.wr.rdma.remote_addr = p->probe.addr;
	w.wr.rdma.rkey = p->probe.key;
	w.wr_id = wr_id(WK_PROBE, p->probe.buf_id);
	LOG("CHECK-INVAL path %d cid %u: RDMA WRITE 8 bytes to old rkey 0x%x at 0x%" PRIx64,
	    p->no, c->cid, p->probe.key, p->probe.addr);
	post_chain(c, &w, 1, "probe");
}

static void on_wc(struct con *c, struct ibv_wc *wc)
{
	struct path *p = c->path;
	enum wr_kind k = (enum wr_kind)(wc->wr_id >> 32);
	uint32_t a = (uint32_t)wc->wr_id;
	uint32_t imm, t;

	if (k != WK_RECV)
		c->send_out--;
	if (k == WK_PROBE) {
		if (wc->status == IBV_WC_REM_ACCESS_ERR) {
			st.probe_good++;
			LOG("CHECK-INVAL path %d: write to the old rkey of id %u failed with %s: the client invalidated it (good)",
			    p->no, a, ibv_wc_status_str(wc->status));
		} else if (wc->status == IBV_WC_SUCCESS) {
			st.probe_bad++;
			LOG("CHECK-INVAL path %d: CLIENT BUG: write to the old rkey of id %u SUCCEEDED",
			    p->no, a);
		} else {
			st.probe_other++;
			LOG("CHECK-INVAL path %d: inconclusive, write to old rkey of id %u: %s",
			    p->no, a, ibv_wc_status_str(wc->status));
		}
		path_kill(p, "check-inval probe done (its QP is in error now)");
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR) {
			st.wc_errors++;
			LOG("WC_ERROR path %d cid %u: %s (opcode %d, vendor 0x%x)",
			    p->no, c->cid, ibv_wc_status_str(wc->status),
			    wc->opcode, wc->vendor_err);
		}
		path_kill(p, "work completion error");
		return;
	}
	if (k != WK_RECV)
		return;

	if (wc->opcode == IBV_WC_RECV) {
		if (c->cid == 0 && !p->connected)
			on_info_req(c, (uint8_t *)c->rbuf + (size_t)a * RECV_BUF_SIZE,
				    wc->byte_len);
		else
			LOG("PROTOCOL path %d cid %u: unexpected SEND of %u bytes",
			    p->no, c->cid, wc->byte_len);
	} else if (wc->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		imm = ntohl(wc->imm_data);
		t = imm >> 28;
		p->hb_missed = 0;
		switch (t) {
		case HN_IMM_IO_REQ:
			on_io_req(c, imm & HN_IMM_PAYLOAD_MASK);
			break;
		case HN_IMM_HB_MSG:
			st.hb_got++;
			if (opt.verbose)
				LOG("HB_MSG path %d cid %u", p->no, c->cid);
			if (!(opt.mut && opt.mut->m == M_HB_SILENT && p->target))
				send_hb(c, HN_IMM_HB_ACK);
			break;
		case HN_IMM_HB_ACK:
			st.hb_acked++;
			if (opt.verbose)
				LOG("HB_ACK path %d cid %u", p->no, c->cid);
			break;
		default:
			LOG("PROTOCOL path %d cid %u: immediate of type %u", p->no,
			    c->cid, t);
			break;
		}
	} else {
		LOG("PROTOCOL path %d cid %u: receive opcode %d", p->no, c->cid,
		    wc->opcode);
	}
	if (!p->dying && !p->recv_stopped)
		post_recv(c, (int)a);
}

static void drain_channel(struct dev *d)
{
	struct ibv_cq *cq;
	void *ctx;
	struct ibv_wc wc[32];
	int n, i;

	while (!ibv_get_cq_event(d->ch, &cq, &ctx)) {
		struct con *c = ctx;

		ibv_ack_cq_events(cq, 1);
		ibv_req_notify_cq(cq, 0);
		while ((n = ibv_poll_cq(cq, 32, wc)) > 0)
			for (i = 0; i < n; i++)
				on_wc(c, &wc[i]);
	}
}

/* ------------------------------------------------------------------ */
/* timers: heartbeats, probes */

/* hb_flood: fill the send queue of each connection of @p with heartbeats */
static void hb_flood(struct path *p)
{
	struct ibv_send_wr w[16];
	int i, k, room;

	for (i = 0; i < p->cid_num; i++) {
		struct con *c = p->cons[i];

		if (!c || !c->established)
			continue;
		/* leave room for the responses to the requests in flight */
		room = c->send_max - c->send_out - 4 * (int)p->qd;
		while (room >= (int)ARRAY_SIZE(w) && !p->dying) {
			for (k = 0; k < (int)ARRAY_SIZE(w); k++)
				wr_imm(&w[k], hn_imm(HN_IMM_HB_MSG, 0));
			if (post_chain(c, w, ARRAY_SIZE(w), "HB_MSG flood"))
				return;
			st.hb_flood += ARRAY_SIZE(w);
			room -= ARRAY_SIZE(w);
		}
	}
}

/* hb_flood, once armed: returns when to come back */
static double hb_flood_tick(double t, double next)
{
	int i;

	if (!opt.mut || opt.mut->m != M_HB_FLOOD || !armed || flood_done)
		return next;
	if (!flood_end) {
		flood_end = t + (double)marg();
		st.mutated++;
		LOG("MUTATE %s: heartbeats as fast as the send queues take them for %ld s",
		    mname(), marg());
	}
	if (t >= flood_end) {
		flood_done = true;
		LOG("MUTATE %s: flood over, %ld heartbeats sent", mname(), st.hb_flood);
		return next;
	}
	for (i = 0; i < MAX_PATHS; i++)
		if (paths[i].used && !paths[i].dying && paths[i].connected &&
		    paths[i].target)
			hb_flood(&paths[i]);
	/* the send completions make room again */
	return t + 0.001 < next ? t + 0.001 : next;
}

static double timers(void)
{
	double t = now(), next = t + 1.0;
	int i;

	for (i = 0; i < MAX_PATHS; i++) {
		struct path *p = &paths[i];
		struct con *c0;

		if (!p->used || p->dying)
			continue;
		if (p->accept_at) {
			if (t >= p->accept_at) {
				p->accept_at = 0;
				if (p->cons[0] && p->cons[0]->id) {
					LOG("MUTATE %s: accepting cid 0 of path %d now", mname(), p->no);
					accept_con(p, p->cons[0], &p->late_rsp, p->late_len);
				}
			} else if (p->accept_at < next) {
				next = p->accept_at;
			}
		}
		if (p->probe.pending) {
			if (t >= p->probe.when)
				run_probe(p);
			else if (p->probe.when < next)
				next = p->probe.when;
		}
		c0 = p->cons[0];
		if (!p->connected || !c0 || !c0->established)
			continue;
		if (opt.mut && opt.mut->m == M_HB_SILENT && p->target)
			continue;
		if (t >= p->hb_next) {
			p->hb_next = t + HN_HB_INTERVAL_MS / 1000.0;
			if (p->hb_missed > HN_HB_MISSED_MAX) {
				LOG("HEARTBEAT path %d: client silent for %d intervals",
				    p->no, p->hb_missed);
				path_kill(p, "heartbeat timeout");
				continue;
			}
			if (p->hb_missed) {
				p->hb_missed++;
			} else if (!send_hb(c0, HN_IMM_HB_MSG)) {
				st.hb_sent++;
				p->hb_missed = 1;
			}
		}
		if (p->hb_next < next)
			next = p->hb_next;
	}
	return hb_flood_tick(t, next);
}

/* ------------------------------------------------------------------ */

static void summary(void)
{
	LOG("SUMMARY mutation=%s applied=%ld conn_reqs=%ld accepts=%ld rejects=%ld established=%ld disconnects=%ld paths_closed=%ld info_reqs=%ld info_rsps=%ld",
	    mname(), st.mutated, st.conn_reqs, st.accepts, st.rejects,
	    st.established, st.disconnects, st.paths_killed, st.info_reqs,
	    st.info_rsps);
	LOG("SUMMARY requests=%ld reads=%ld writes=%ld rnbd_sess_info=%ld rnbd_open=%ld rnbd_close=%ld rnbd_io=%ld bytes_read=%ld bytes_written=%ld responses=%ld error_responses=%ld",
	    st.reqs, st.reads, st.writes, st.rnbd_sess_info, st.rnbd_open,
	    st.rnbd_close, st.rnbd_io, st.bytes_read, st.bytes_written,
	    st.rsps, st.rsp_errors);
	LOG("SUMMARY hb_sent=%ld hb_flood=%ld hb_acked=%ld hb_received=%ld wc_errors=%ld post_errors=%ld check_inval_good=%ld check_inval_CLIENT_BUG=%ld check_inval_inconclusive=%ld",
	    st.hb_sent, st.hb_flood, st.hb_acked, st.hb_got, st.wc_errors, st.post_errors,
	    st.probe_good, st.probe_bad, st.probe_other);
}

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void on_arm(int sig)
{
	(void)sig;
	armed = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"hostile-peer [options]\n"
		"  --mutate NAME     misbehave as NAME (see --list)\n"
		"  --arg N           override the mutation's argument\n"
		"  --after N         let N opportunities of the mutation's kind pass first (default 0)\n"
		"  --count N         apply it N times (default 1; 0: every time)\n"
		"  --check-inval     after the first rnbd READ of each path, RDMA WRITE to its old rkey\n"
		"  --arm-on-signal   behave until SIGUSR1 arrives, then mutate (and check-inval)\n"
		"  --port N          RDMA CM port (default %d)\n"
		"  --queue-depth N   chunks per path (default 128, 2..65535)\n"
		"  --chunk-kib N     chunk size in KiB, a power of two >= 8 (default 128)\n"
		"  --size-mib N      memory-backed device size (default 64)\n"
		"  --max-time S      exit after S seconds\n"
		"  --pidfile F       write our pid to F\n"
		"  --only-addr A     conn/info/io mutations only on paths to our address A\n"
		"  --verbose         log every request and heartbeat\n"
		"  --list            print the mutation table\n", HN_PORT);
}

static int parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mutate", 1, NULL, 'm' }, { "arg", 1, NULL, 'a' },
		{ "after", 1, NULL, 'A' }, { "count", 1, NULL, 'c' },
		{ "check-inval", 0, NULL, 'I' }, { "port", 1, NULL, 'p' },
		{ "queue-depth", 1, NULL, 'q' }, { "chunk-kib", 1, NULL, 'k' },
		{ "size-mib", 1, NULL, 's' }, { "max-time", 1, NULL, 't' },
		{ "pidfile", 1, NULL, 'P' }, { "verbose", 0, NULL, 'v' },
		{ "list", 0, NULL, 'l' }, { "help", 0, NULL, 'h' },
		{ "arm-on-signal", 0, NULL, 'S' }, { "only-addr", 1, NULL, 'O' },
		{ NULL, 0, NULL, 0 }
	};
	size_t i;
	int o;
	long v;

	while ((o = getopt_long(argc, argv, "m:a:A:c:Ip:q:k:s:t:P:vlhSO:", lo, NULL)) != -1) {
		switch (o) {
		case 'm':
			for (i = 0; i < ARRAY_SIZE(mutations); i++)
				if (!strcmp(optarg, mutations[i].name))
					opt.mut = &mutations[i];
			if (!opt.mut) {
				fprintf(stderr, "unknown mutation '%s' (--list)\n", optarg);
				return -1;
			}
			if (opt.mut->m == M_NONE)
				opt.mut = NULL;
			break;
		case 'a':
			opt.arg = strtol(optarg, NULL, 0);
			opt.arg_set = true;
			break;
		case 'A':
			opt.after = strtol(optarg, NULL, 0);
			break;
		case 'c':
			opt.count = strtol(optarg, NULL, 0);
			break;
		case 'I':
			opt.check_inval = true;
			break;
		case 'S':
			opt.arm_on_signal = true;
			break;
		case 'p':
			opt.port = (int)strtol(optarg, NULL, 0);
			break;
		case 'q':
			v = strtol(optarg, NULL, 0);
			if (v < 2 || v > 65535)
				return -1;
			opt.qd = (uint32_t)v;
			break;
		case 'k':
			v = strtol(optarg, NULL, 0);
			if (v < 8 || v > 1024 || (v & (v - 1)))
				return -1;
			opt.chunk_size = (uint32_t)v * 1024;
			break;
		case 's':
			v = strtol(optarg, NULL, 0);
			if (v < 1 || v > 4096)
				return -1;
			opt.store_size = (size_t)v << 20;
			break;
		case 't':
			opt.max_time = strtod(optarg, NULL);
			break;
		case 'P':
			opt.pidfile = optarg;
			break;
		case 'O':
			opt.only_addr = optarg;
			break;
		case 'v':
			opt.verbose++;
			break;
		case 'l':
			for (i = 0; i < ARRAY_SIZE(mutations); i++)
				printf("%-20s %-6s %s\n", mutations[i].name,
				       mutations[i].ph == PH_CONN ? "conn" :
				       mutations[i].ph == PH_INFO ? "info" :
				       mutations[i].ph == PH_IO ? "io" :
				       mutations[i].ph == PH_GLOBAL ? "global" : "-",
				       mutations[i].what);
			exit(0);
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind != argc)
		return -1;
	if (ilog2_u32(opt.qd - 1) + 1 + ilog2_u32(opt.chunk_size - 1) + 1 > 28) {
		fprintf(stderr, "queue depth x chunk size do not fit the immediate\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pf[1 + MAX_DEVS];
	struct rdma_cm_event *ev;
	double next, t;
	bool was_armed = false;
	int i, n, ms;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now();
	if (parse_args(argc, argv)) {
		usage(stderr);
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_arm;
	sigaction(SIGUSR1, &sa, NULL);
	if (opt.arm_on_signal)
		armed = 0;
	signal(SIGPIPE, SIG_IGN);
	store = calloc(1, opt.store_size);
	if (!store) {
		LOG("ERROR no memory for the %zu MiB store", opt.store_size >> 20);
		return 1;
	}
	if (opt.pidfile) {
		f = fopen(opt.pidfile, "w");
		if (f) {
			fprintf(f, "%d\n", getpid());
			fclose(f);
		}
	}
	if (opt.mut)
		LOG("MUTATION %s (%s), arg %ld, after %ld, count %ld", opt.mut->name,
		    opt.mut->what, marg(), opt.after, opt.count);
	if (listen_start())
		return 1;

	while (!stop_sig) {
		t = now();
		if (armed && !was_armed) {
			was_armed = true;
			if (opt.arm_on_signal)
				LOG("ARMED by SIGUSR1");
		}
		if (opt.max_time > 0 && t - t0 >= opt.max_time) {
			LOG("EXIT: --max-time %.0f s reached", opt.max_time);
			break;
		}
		next = timers();
		reap_paths();
		ms = (int)((next - now()) * 1000);
		if (ms < 0)
			ms = 0;
		pf[0].fd = cm_ch->fd;
		pf[0].events = POLLIN;
		for (i = 0; i < ndevs; i++) {
			pf[1 + i].fd = devs[i].ch->fd;
			pf[1 + i].events = POLLIN;
		}
		n = poll(pf, 1 + ndevs, ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			LOG("ERROR poll: %s", strerror(errno));
			break;
		}
		for (i = 0; i < ndevs; i++)
			drain_channel(&devs[i]);
		while (!rdma_get_cm_event(cm_ch, &ev))
			on_cm_event(ev);
		reap_paths();
	}
	if (stop_sig)
		LOG("EXIT: signal %d", (int)stop_sig);
	for (i = 0; i < MAX_PATHS; i++)
		if (paths[i].used) {
			path_kill(&paths[i], "peer exits");
			path_destroy(&paths[i]);
		}
	summary();
	if (listen_id)
		rdma_destroy_id(listen_id);
	return st.probe_bad ? 2 : 0;
}
