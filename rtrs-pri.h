/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrs-pri.h - the objects of the RTRS client and who owns them.
 *
 * A session (struct rtrs_clt_sess) is what the user opens: a name, a pool
 * of permits and a list of paths. A permit is one server chunk: its mem_id
 * is at once the tag of the user's request, the index of the request slot
 * in every path and the chunk id on the wire.
 *
 * A path (struct rtrs_path) is one src/dst pair. It survives reconnects;
 * what it builds when it connects (connections, PD, request slots, the
 * server's chunk table, the limits agreed with the server) is one object,
 * the endpoint (struct rtrs_ep), allocated by the connect and freed whole
 * by the teardown, which accepts any partial state and may run any number
 * of times. Between a teardown and the next connect a path has no
 * endpoint.
 *
 * A connection (struct rtrs_con) is one RC QP with its CQ and cm_id.
 * Connection 0 carries the control traffic and the heartbeat, connections
 * 1..nr_cpu_ids the I/O of one CPU each, and the rest are polled queues
 * (see "Polled queues" in rtrs-clt.c).
 *
 * Each request slot (struct rtrs_req) owns a fast-registration MR, a header
 * buffer and the ib_cqe of everything it posts, so that a completion always
 * names the object it belongs to.
 *
 * LOCK ORDER (outer first; no other nesting exists):
 *   rtrs_sessions_mutex (rtrs-clt.c: the list of sessions)
 *   > rtrs_clt_sess.path_op_mutex (a whole open/add_path/remove_path)
 *   > rtrs_clt_sess.paths_mutex (paths_list changes)
 *   > rtrs_path.init_mutex (one connect or teardown of a path)
 *   > rtrs_clt_sess.link_mutex (link events and the hold state; the
 *     user's link_ev runs under it) and rtrs_clt_sess.limits_mutex
 *   > spinlocks, never nested in each other: rtrs_path.state_lock,
 *     rtrs_con.poll_lock, rtrs_clt_sess.held_lock.
 * paths_list is read under rcu_read_lock(); a path is posted to or polled
 * only while CONNECTED inside one, which is what the teardown waits for.
 * A path's endpoint (rtrs_path.ep) is set and cleared under init_mutex;
 * outside it, it is used only where it cannot go away: see struct rtrs_ep.
 * A request slot's state has no lock: see rtrs-io.c.
 *
 * The header is grouped by the file that implements each part.
 */
#ifndef RTRS_PRI_H
#define RTRS_PRI_H

#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/sbitmap.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/percpu.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "rtrs-proto.h"
#include <rtrs.h>

/* Each CM step and the info exchange may take this long */
#define RTRS_CONNECT_TIMEOUT_MS		30000
/* Largest scatterlist of one request, as upstream advertises */
#define RTRS_MAX_SEGMENTS		128
/* Pages are mapped at this granularity: rnbd's virt_boundary */
#define RTRS_MR_PAGE_SIZE		SZ_4K
/* Send SGEs: the header, and unregistered WRITE data when it fits */
#define RTRS_MAX_SEND_SGE		16
/* Every receive buffer holds an rkey_rsp, the largest small message */
#define RTRS_RX_SIZE			sizeof(struct rtrs_msg_rkey_rsp)
/* A CPU that polled this recently posts its I/O on a polled queue */
#define RTRS_POLL_HINT_MS		100
/* A polled queue nobody polled for this long is reaped by its sweeper */
#define RTRS_POLL_SWEEP_MS		4
/* Completions one direct poll reaps at most, so a flood cannot hold a CPU */
#define RTRS_POLL_BUDGET		256
/*
 * What a server can make a path allocate is bounded by what we use, not by
 * what it offers: at most this many request slots (a server may offer up
 * to 65535 chunks; upstream's default is 512), and header buffers of at
 * most this size (upstream's server asks for PAGE_SIZE; rnbd's messages
 * take a few hundred bytes). A path then holds at most 1024 MRs and 4 MiB
 * of headers, instead of 65535 MRs and 256 MiB.
 */
#define RTRS_CLT_MAX_QUEUE_DEPTH	1024
#define RTRS_CLT_MAX_HDR_SIZE		SZ_4K

enum rtrs_path_state {
	RTRS_PATH_CONNECTING,
	RTRS_PATH_CONNECTING_ERR,
	RTRS_PATH_RECONNECTING,
	RTRS_PATH_CONNECTED,
	RTRS_PATH_CLOSING,
	RTRS_PATH_CLOSED,
	RTRS_PATH_DEAD,
};

struct rtrs_path;
struct rtrs_con;

/**
 * struct rtrs_permit - a chunk of the server, lent to one user request
 * @mem_id: the chunk id, the request slot index in every path
 * @cpu_id: the CPU that took the permit; picks the I/O connection
 * @con_type: %RTRS_ADMIN_CON or %RTRS_IO_CON
 * @in_flight: 1 from the start of the rtrs_clt_request() that used it to
 *	its conf_fn call (rtrs_clt_conf()); the check that every request
 *	completes exactly once
 * @map_word: the permits map's word that holds @mem_id's bit
 * @map_bit: @mem_id's bit in @map_word
 *
 * @map_word and @map_bit are sbitmap_test_bit()'s word and bit, found once at
 * allocation (the map is never resized), so that every put tests its bit
 * without sbitmap's index arithmetic (bench/insn).
 *
 * The user's pdu (rtrs_clt_open()'s @pdu_sz bytes) follows the struct.
 */
struct rtrs_permit {
	unsigned int		mem_id;
	unsigned int		cpu_id;
	enum rtrs_clt_con_type	con_type;
	atomic_t		in_flight;
	unsigned long		*map_word;
	unsigned int		map_bit;
};

/*
 * Where the poster of a request slot is; arbitrates with a response that
 * arrives while ib_post_send() has not returned yet (a forged one, or a
 * real one on a fast peer), so that exactly one side finishes the request
 */
enum rtrs_req_posting {
	RTRS_POST_DONE,		/* posted: responses are handled as they come */
	RTRS_POST_BUSY,		/* in ib_post_send() */
	RTRS_POST_ANSWERED,	/* a response came meanwhile: the poster does it */
	RTRS_POST_FAILED,	/* the post failed: any response was forged */
};

/* What a request slot is waiting for */
enum rtrs_req_state {
	RTRS_REQ_IDLE,
	RTRS_REQ_POSTED,	/* sent, no response yet */
	RTRS_REQ_INVALIDATING,	/* response in, LOCAL_INV in flight */
};

/**
 * struct rtrs_req - one request slot of a path, indexed by permit mem_id
 * @path: owner
 * @con: the connection the request was posted on
 * @permit: the permit of the request in flight
 * @ops: the user's completion
 * @state: see enum rtrs_req_state; changed only in the completion context
 *	of @con, by the poster for a response that came during its post
 *	(@posting), or by the path teardown once every QP is drained
 * @posting: enum rtrs_req_posting
 * @status: the server's answer, kept while the MR is being invalidated
 * @rsp_inv: the answer said the server invalidated @mr (IO_RSP_W_INV)
 * @posted_at: jiffies of the post, for the I/O timeout
 * @posted_ns: ktime_get_ns() of the post if the rtrs_req_done trace event
 *	was enabled then, else 0
 * @srv_inv: a SEND_WITH_INV naming @mr's current key came while the
 *	request was in flight on @con: the device has invalidated it
 * @need_inval: the request asked the server to invalidate @mr
 *	(RTRS_MSG_NEED_INVAL_F), which a server always answers with
 *	IO_RSP_W_INV
 * @dir: READ or WRITE
 * @mr: fast-registration MR for the data
 * @mr_valid: @mr holds a registration that nobody has invalidated yet
 * @hdr: user message and rtrs header, DMA-mapped to the device
 * @hdr_dma: bus address of @hdr
 * @hdr_sync: @hdr needs a DMA sync before each post (rtrs_dma_need_sync())
 * @usr_len: bytes of user message at the start of @hdr
 * @data_len: data bytes of the request
 * @sgl: the user's data pages
 * @sg_cnt: number of entries in @sgl
 * @nents: number of DMA-mapped entries of @sgl (0: not mapped)
 * @reg_cqe: completion of the REG_MR work request
 * @inv_cqe: completion of the LOCAL_INV work request
 * @io_cqe: completion of the RDMA WRITE WITH IMM carrying the request
 * @sge: the SGEs of that work request
 * @reg_wr: the REG_MR work request of @mr, built once (rtrs_frwr_init());
 *	each registration sets its key and access
 * @io_wr: the RDMA WRITE WITH IMM, built once (rtrs_req_init_io_wr()); each
 *	post sets its SGE count, immediate, remote address and rkey, and
 *	clears its flags
 * @stale_inv_wr: the LOCAL_INV that rtrs_frwr_chain() puts first when the
 *	MR is still registered from a failed post
 * @bad_wr: where ib_post_send() names the first work request of a post it
 *	did not take, for rtrs_frwr_restore()
 *
 * @stale_inv_wr and @bad_wr belong to the one post of the slot under way;
 * in the slot rather than on the poster's stack, so that the post has no
 * address-taken local: no stack protector and no zeroing of it per I/O.
 */
struct rtrs_req {
	struct rtrs_path	*path;
	struct rtrs_con		*con;
	struct rtrs_permit	*permit;
	struct rtrs_clt_req_ops	ops;
	enum rtrs_req_state	state;
	atomic_t		posting;
	int			status;
	bool			rsp_inv;
	bool			srv_inv;
	bool			need_inval;
	unsigned long		posted_at;
	u64			posted_ns;
	int			dir;
	struct ib_mr		*mr;
	bool			mr_valid;
	void			*hdr;
	u64			hdr_dma;
	bool			hdr_sync;
	u32			usr_len;
	u32			data_len;
	struct scatterlist	*sgl;
	unsigned int		sg_cnt;
	int			nents;
	struct ib_cqe		reg_cqe;
	struct ib_cqe		inv_cqe;
	struct ib_cqe		io_cqe;
	struct ib_sge		sge[RTRS_MAX_SEND_SGE];
	struct ib_reg_wr	reg_wr;
	struct ib_rdma_wr	io_wr;
	struct ib_send_wr	stale_inv_wr;
	const struct ib_send_wr	*bad_wr;
};

/**
 * struct rtrs_rx - one posted receive; the buffers of a connection are one
 * DMA-mapped array, @idx picks ours
 * @cqe: its completion, rtrs_rx_done()
 * @con: the connection it is posted on
 * @idx: which buffer of @con's array
 * @sge: our buffer, for @wr
 * @wr: the receive work request, built once with the buffers and posted
 *	again as it is (each I/O re-posts one or two receives)
 * @bad_wr: ib_post_recv()'s out-parameter; here rather than on the stack
 *	of the completion handler that re-posts, which then needs no stack
 *	protector
 */
struct rtrs_rx {
	struct ib_cqe		cqe;
	struct rtrs_con		*con;
	u32			idx;
	struct ib_sge		sge;
	struct ib_recv_wr	wr;
	const struct ib_recv_wr	*bad_wr;
};

/**
 * struct rtrs_con - one RC connection of a path
 * @path: owner
 * @cid: index in the path; 0 is the service connection
 * @cpu: the CPU whose I/O this connection carries
 * @cm_id: rdma_cm identifier; owns the QP
 * @qp: the queue pair
 * @cq: its completion queue, shared by send and receive
 * @nr_cqe: size of @cq
 * @polled: @cq is IB_POLL_DIRECT, reaped by rtrs_clt_rdma_cq_direct()
 * @poll_lock: serialises direct polling
 * @last_poll: jiffies of the last direct poll of @cq
 * @polled_inflight: requests in flight on a polled @cq
 * @sweep_dwork: reaps a polled @cq that nobody polls while requests are
 *	in flight on it
 * @cm_done: a CM step finished, @cm_err says how
 * @cm_err: 0 or the errno of the last CM step
 * @rsp: the server's accept parameters, copied from the ESTABLISHED event
 * @established: the CM connection is up (until DISCONNECTED)
 * @rx: receive descriptors; @rx_buf holds their RTRS_RX_SIZE buffers
 * @rx_num: number of receives kept posted
 * @rx_buf: receive buffers
 * @rx_dma: bus address of @rx_buf
 * @rx_sync: @rx_buf needs DMA syncs around each receive
 *	(rtrs_dma_need_sync())
 * @wr_cnt: sends posted, to signal one in @signal_interval
 * @signal_interval: rtrs_ep.signal_interval once the server's queue depth
 *	is known, 1 before; kept here so that a post reads it with no
 *	pointer chase
 */
struct rtrs_con {
	struct rtrs_path	*path;
	unsigned int		cid;
	unsigned int		cpu;
	struct rdma_cm_id	*cm_id;
	struct ib_qp		*qp;
	struct ib_cq		*cq;
	u32			nr_cqe;
	bool			polled;
	spinlock_t		poll_lock; /* one direct poller at a time */
	unsigned long		last_poll;
	atomic_t		polled_inflight;
	struct delayed_work	sweep_dwork;
	struct completion	cm_done;
	int			cm_err;
	struct rtrs_conn_params	rsp;
	bool			established;
	struct rtrs_rx		*rx;
	u32			rx_num;
	void			*rx_buf;
	u64			rx_dma;
	bool			rx_sync;
	atomic_t		wr_cnt;
	u32			signal_interval;
};

/*
 * Counters shown in sysfs (paths/<path>/stats/), per CPU. cpu_migr_from
 * is bumped by the CPU that saw a completion meant for this one, so it is
 * atomic; the others are only touched by their own CPU.
 */
struct rtrs_path_stats_pcpu {
	u64		read_cnt;
	u64		read_bytes;
	u64		write_cnt;
	u64		write_bytes;
	atomic64_t	cpu_migr_from;
	u64		cpu_migr_to;
};

struct rtrs_path_stats {
	struct rtrs_path_stats_pcpu __percpu *pcpu;
	atomic64_t	failover_cnt;
	int		reconnect_ok;	/* successful reconnects; 0 after the first connect */
	int		reconnect_fail;
};

/**
 * struct rtrs_ep - what one connect of a path builds; freed whole
 * @path: owner
 * @ib_dev: the device all connections are on
 * @pd: protection domain of this path alone, so that no other path's QP
 *	can reach its MRs
 * @cons: the path's rtrs_path.con_num connections
 * @cpu_con: the interrupt-driven I/O connection of each CPU, nr_cpu_ids
 *	entries, set once all connections exist: a post looks its
 *	connection up instead of computing it
 * @params: what the server accepted with (from connection 0)
 * @queue_depth: request slots and chunks this path uses: the server's
 *	queue depth, at most %RTRS_CLT_MAX_QUEUE_DEPTH
 * @hdr_size: bytes of each slot's header buffer: the server's
 *	max_hdr_size, at most %RTRS_CLT_MAX_HDR_SIZE
 * @max_io: data bytes of one request on this path: the server's
 *	max_io_size, at most what one MR maps
 * @signal_interval: signal one send in this many
 * @max_pages_per_mr: pages one request MR maps
 * @max_send_sge: SGEs one send may carry on the I/O connections
 * @reqs: @queue_depth request slots
 * @mr_slots: the slots by their MR's key index (the rkey without its low
 *	8 bits, which are ours to change): finds the request a server's
 *	invalidation names
 * @rbufs: the server's chunk table, its first @queue_depth entries
 * @info_rsp: receive buffer of the info response
 * @info_rsp_dma: its bus address
 * @info_rsp_len: its size
 * @info_req: the info request we send
 * @info_req_dma: its bus address
 * @info_cqe: completion of the info response receive
 * @info_tx_cqe: completion of the info request send
 * @info_done: the info exchange finished, @info_err says how
 * @info_err: 0 or why the exchange failed
 *
 * rtrs_path_connect() allocates it and sets rtrs_path.ep before it builds
 * anything, so that rtrs_path_teardown() finds and frees whatever a failed
 * connect got to, and a new connect never starts from what the last one
 * left. Both run under rtrs_path.init_mutex. Outside it an endpoint is
 * used only by who cannot outlive it:
 *
 * - completion handlers of its QPs, and CM handlers of its cm_ids: the
 *   teardown drains every QP and destroys every cm_id before it frees;
 * - the heartbeat work: the teardown cancels it first;
 * - rcu_read_lock() sections that found the path CONNECTED (posting,
 *   polling, the other paths' limits, the port event work): the teardown
 *   runs only after the path left CONNECTED, and waits out RCU readers
 *   before it frees;
 * - a request slot's failover: the teardown hands its requests back
 *   before it frees.
 *
 * Whatever must be read with no endpoint (sysfs while disconnected, the
 * log prefix) is kept in struct rtrs_path.
 */
struct rtrs_ep {
	struct rtrs_path	*path;
	struct ib_device	*ib_dev;
	struct ib_pd		*pd;
	struct rtrs_con		**cons;
	struct rtrs_con		**cpu_con;
	struct rtrs_conn_params	params;
	u32			queue_depth;
	u32			hdr_size;
	u32			max_io;
	u32			signal_interval;
	u32			max_pages_per_mr;
	u32			max_send_sge;
	struct rtrs_req		*reqs;
	struct xarray		mr_slots;
	struct rtrs_rbuf	*rbufs;
	void			*info_rsp;
	u64			info_rsp_dma;
	size_t			info_rsp_len;
	struct rtrs_msg_info_req *info_req;
	u64			info_req_dma;
	struct ib_cqe		info_cqe;
	struct ib_cqe		info_tx_cqe;
	struct completion	info_done;
	int			info_err;
};

/**
 * struct rtrs_path - one path of a session
 * @clt: the session
 * @entry: in @clt->paths_list (RCU)
 * @kobj: paths/<src>@<dst>/ in sysfs; its release frees the path
 * @kobj_stats: paths/<src>@<dst>/stats/
 * @sysfs_added: @kobj is in sysfs
 * @src_addr: local address; the one actually used once connected
 * @dst_addr: the server
 * @has_src: the user named a source address
 * @uuid: identifies the path to the server across reconnects
 * @state: enum rtrs_path_state, under @state_lock
 * @state_lock: protects @state
 * @init_mutex: one connect or teardown at a time; guards @ep
 * @ep: what the current connect built; NULL from a teardown to the next
 *	connect (see struct rtrs_ep for who may use it when)
 * @hca_name: the device's name, from the last connect that got one: sysfs
 *	shows it and every log line of the path starts with it, also while
 *	the path has no endpoint
 * @hca_port: port number used by the last connect, kept for sysfs like
 *	@hca_name; the port event work reads it only with @ep
 * @con_num: connections: 1 + @irq_con_num - 1 + poll queues; fixed when
 *	the path is allocated, the same for every connect
 * @irq_con_num: connection 0 and the interrupt-driven I/O connections;
 *	fixed like @con_num
 * @recon_cnt: connects of this path so far, sent in every conn_req
 * @first_conn: may create the session on the server
 * @hb_dwork: heartbeat tick
 * @hb_missed: ticks without anything received
 * @last_rx: jiffies of the last receive from the server
 * @hb_last_sent: when the last heartbeat went out
 * @hb_cur_latency: last heartbeat round trip, ns
 * @hb_cqe: completion of heartbeat sends
 * @hb_ack_cqe: completion of our heartbeat acks, each one signalled
 * @hb_ack_busy: an ack is in flight; heartbeats that arrive meanwhile are
 *	not answered again (it answers them too), so that a server sending
 *	heartbeats without pause cannot fill connection 0's send queue
 * @err_work: tears the connections down after a failure
 * @reconnect_dwork: connects again after the delay
 * @reconnect_attempts: failed attempts since the last success
 * @inflight: requests in flight on this path; input of min-inflight
 * @stats: counters for sysfs
 * @up: counted in the session's connected paths
 */
struct rtrs_path {
	struct rtrs_clt_sess	*clt;
	struct list_head	entry;
	struct kobject		kobj;
	struct kobject		kobj_stats;
	bool			sysfs_added;
	struct sockaddr_storage	src_addr;
	struct sockaddr_storage	dst_addr;
	bool			has_src;
	uuid_t			uuid;
	enum rtrs_path_state	state;
	spinlock_t		state_lock; /* guards state */
	struct mutex		init_mutex; /* connect vs teardown, ep */
	struct rtrs_ep		*ep;
	char			hca_name[IB_DEVICE_NAME_MAX];
	u32			hca_port;
	unsigned int		con_num;
	unsigned int		irq_con_num;
	u16			recon_cnt;
	bool			first_conn;
	struct delayed_work	hb_dwork;
	atomic_t		hb_missed;
	unsigned long		last_rx;
	ktime_t			hb_last_sent;
	s64			hb_cur_latency;
	struct ib_cqe		hb_cqe;
	struct ib_cqe		hb_ack_cqe;
	atomic_t		hb_ack_busy;
	struct work_struct	err_work;
	struct delayed_work	reconnect_dwork;
	unsigned int		reconnect_attempts;
	atomic_t		inflight;
	struct rtrs_path_stats	stats;
	bool			up;
};

/*
 * Where a session is in an outage while it holds I/O (io_hold_sec). The
 * state changes under the session's link_mutex, which also orders the
 * link events it sends; readers outside use READ_ONCE().
 */
enum rtrs_hold_state {
	RTRS_HOLD_NONE,		/* a path is up, or nothing is held */
	RTRS_HOLD_HOLDING,	/* no path: requests wait, the user is not told */
	RTRS_HOLD_RESUMING,	/* a path is back: control messages first */
	RTRS_HOLD_EXPIRED,	/* held too long: failed, user told DISCONNECTED */
};

/**
 * struct rtrs_req_args - a user request before a request slot holds it
 * @sgl: the data pages
 * @ops: the user's completion
 * @sg_cnt: entries of @sgl
 * @data_len: data bytes
 * @usr_len: bytes of user message
 * @hdr_len: bytes of the rtrs header after the user message
 *	(rtrs_msg_hdr_len())
 * @dir: READ or WRITE
 *
 * What rtrs_clt_request() checked, handed to rtrs_req_post() for each path
 * it tries: only these fields, not a whole struct rtrs_req (whose SGE
 * array alone is 256 bytes) built on the stack for every request.
 *
 * @ops is not the first field: x86-64 gcc aligns a local struct to 16 bytes
 * when its first field is a 16-byte struct like @ops (the first field's
 * mode decides), and on the kernel's 8-byte aligned stack that costs the
 * functions keeping one on the stack (rtrs_clt_request(),
 * rtrs_clt_failover()) a frame pointer and a realignment per call
 * (bench/insn).
 */
struct rtrs_req_args {
	struct scatterlist	*sgl;
	struct rtrs_clt_req_ops	ops;
	unsigned int		sg_cnt;
	u32			data_len;
	u32			usr_len;
	u32			hdr_len;
	int			dir;
};

/**
 * rtrs_msg_hdr_len() - bytes of the rtrs header of a request
 * @dir: READ or WRITE
 * @data_len: data bytes of the request
 *
 * Return: the size of the message the server finds after the user's.
 */
static inline u32 rtrs_msg_hdr_len(int dir, size_t data_len)
{
	if (dir == WRITE)
		return sizeof(struct rtrs_msg_rdma_write);
	return sizeof(struct rtrs_msg_rdma_read) +
	       (data_len ? sizeof(struct rtrs_sg_desc) : 0);
}

/**
 * struct rtrs_held - a request kept while no path is connected
 * @entry: in the session's @held list
 * @permit: the user's permit, still lent out
 * @tmpl: what the request was (ops, direction, data, lengths)
 * @usr: copy of the user message (@tmpl.usr_len bytes): the slot it was
 *	posted from dies with its path
 */
struct rtrs_held {
	struct list_head	entry;
	struct rtrs_permit	*permit;
	struct rtrs_req_args	tmpl;
	u8			usr[];
};

/**
 * struct rtrs_poll_hint - which polled queue a CPU polled last, and when
 * @stamp: jiffies of that poll
 * @slot: index of the polled queue among a path's polled connections
 */
struct rtrs_poll_hint {
	unsigned long	stamp;
	unsigned int	slot;
};

/**
 * struct rtrs_clt_sess - a session: what rtrs_clt_open() returns
 * @dev: /sys/class/rtrs-client/<sessname>; its release frees the session
 * @entry: in the global list of sessions (device removal walks it)
 * @sessname: the name, sent to the server as pathname
 * @uuid: identifies the session to the server (paths_uuid)
 * @port: server port
 * @ops: the user's link event callback
 * @paths_mutex: serialises adding and removing paths
 * @path_op_mutex: held for a whole add_path or remove_path, so that
 *	rtrs_clt_close() can wait for them before it destroys the paths
 * @closing: rtrs_clt_close() has begun; under @path_op_mutex
 * @paths_list: the paths (RCU)
 * @paths_num: entries of @paths_list
 * @pcpu_path: round-robin cursor per CPU
 * @mp_policy: enum rtrs_mp_policy (READ_ONCE/WRITE_ONCE)
 * @reconnect_delay_sec: pause before a reconnect
 * @max_reconnect_attempts: -1 forever, 0 never
 * @nr_poll_queues: polled connections per path
 * @poll_hint: per CPU, the polled queue its I/O goes to while it polls
 * @poll_direct: completions reaped by rtrs_clt_rdma_cq_direct()
 * @poll_swept: completions of polled queues reaped by their sweepers
 * @debugfs: the session's debugfs directory
 * @queue_depth: permits; fixed by the first path that connected
 * @max_io_size: data bytes per request, the minimum over paths
 * @max_segments: scatterlist entries per request, the minimum over paths
 * @max_hdr_size: user message + header bytes, from the server
 * @pdu_sz: user bytes after each permit
 * @permits: @queue_depth permits of sizeof(permit) + @pdu_sz bytes each
 * @permits_map: which permits are lent out
 * @permits_used: permits lent out; rtrs_clt_close() waits (wait_var_event())
 *	for it to come down to 0
 * @io_permits_used: permits lent out for I/O (%RTRS_IO_CON), at most
 *	@queue_depth - 1
 * @permit_wq: rtrs_clt_get_permit() with %RTRS_PERMIT_WAIT waits here
 * @limits_mutex: serialises merging the limits of connecting paths
 * @link_mutex: serialises link events
 * @paths_up: connected paths, for the link events
 * @opened: rtrs_clt_open() is done; link events may be sent
 * @io_hold_sec: how long requests wait for a path when none is connected:
 *	0 fail at once (upstream's way), -1 until the session is closed
 * @hold_state: enum rtrs_hold_state, under @link_mutex
 * @hold_since: jiffies when the current outage began
 * @held_lock: protects @held and @held_num
 * @held: requests kept during the outage (struct rtrs_held)
 * @held_num: entries of @held
 * @hold_dwork: fails what is held when @io_hold_sec runs out
 * @resume_dwork: re-issues what is held once the user's control messages
 *	after a reconnect are answered
 * @resume_clear: checks in a row that found no control message in flight
 * @hold_stats: outages held, ended by a reconnect, expired; requests held
 * @io_timeout_sec: a path whose oldest request has been unanswered this
 *	long is failed (rtrs-path.c); 0: never
 * @reqs: indexed by RTRS_REQS_*: requests accepted by rtrs_clt_request(),
 *	conf_fn calls, completions refused because their permit had no
 *	request in flight (a double completion; never expected), paths
 *	failed by the I/O timeout
 * @kobj_paths: /sys/class/rtrs-client/<sessname>/paths
 */
struct rtrs_clt_sess {
	struct device		dev;
	struct list_head	entry;
	char			sessname[RTRS_SESSNAME_SIZE];
	uuid_t			uuid;
	u16			port;
	struct rtrs_clt_ops	ops;
	struct mutex		paths_mutex; /* add/remove path */
	struct mutex		path_op_mutex; /* sysfs path operations */
	bool			closing;
	struct list_head	paths_list;
	size_t			paths_num;
	struct rtrs_path __rcu * __percpu *pcpu_path;
	int			mp_policy;
	u8			reconnect_delay_sec;
	int			max_reconnect_attempts;
	u32			nr_poll_queues;
	struct rtrs_poll_hint __percpu *poll_hint;
	atomic64_t		poll_direct;
	atomic64_t		poll_swept;
	struct dentry		*debugfs;
	u32			queue_depth;
	u32			max_io_size;
	u32			max_segments;
	u32			max_hdr_size;
	size_t			pdu_sz;
	void			*permits;
	struct sbitmap_queue	permits_map;
	atomic_t		permits_used;
	atomic_t		io_permits_used;
	wait_queue_head_t	permit_wq;
	struct mutex		limits_mutex; /* queue_depth, max_* */
	struct mutex		link_mutex; /* orders link events */
	int			paths_up;
	bool			opened;
	int			io_hold_sec;
	int			hold_state;
	unsigned long		hold_since;
	spinlock_t		held_lock; /* held, held_num */
	struct list_head	held;
	u32			held_num;
	struct delayed_work	hold_dwork;
	struct delayed_work	resume_dwork;
	unsigned int		resume_clear;
	atomic64_t		hold_stats[4];
	unsigned int		io_timeout_sec;
	atomic64_t		reqs[4];
	struct kobject		*kobj_paths;
};

static inline struct rtrs_permit *rtrs_permit_at(struct rtrs_clt_sess *clt,
						 unsigned int i)
{
	return clt->permits + i * (sizeof(struct rtrs_permit) + clt->pdu_sz);
}

#define rtrs_path_log(level, p, fmt, ...)				\
	({								\
		const struct rtrs_path *__p = (p);			\
		level("%s %s: " fmt, __p->clt->sessname, __p->hca_name,	\
		      ##__VA_ARGS__);					\
	})
#define rtrs_path_err(p, fmt, ...) rtrs_path_log(pr_err, p, fmt, ##__VA_ARGS__)
#define rtrs_path_err_rl(p, fmt, ...)					\
	rtrs_path_log(pr_err_ratelimited, p, fmt, ##__VA_ARGS__)
#define rtrs_path_info(p, fmt, ...) rtrs_path_log(pr_info, p, fmt, ##__VA_ARGS__)

/*
 * rtrs-frwr.c: memory registration, the only place that builds REG/INV WRs
 * (with rtrs-frwr.h, its inline per-I/O part)
 */
/**
 * struct rtrs_frwr_saved - a slot's MR state before a post changes it
 * @key: the MR's key; rtrs_frwr_map() takes a fresh one
 * @valid: the MR is registered (an earlier post failed after its REG_MR)
 */
struct rtrs_frwr_saved {
	u32	key;
	bool	valid;
};

int rtrs_frwr_init(struct rtrs_req *req, struct ib_pd *pd, u32 max_pages);
void rtrs_frwr_release(struct rtrs_req *req);
int rtrs_frwr_local_inv(struct rtrs_req *req);

/*
 * The two one-line helpers below are inline: each I/O calls them, and a call
 * costs more instructions than their bodies (bench/insn/profile.py).
 */

/**
 * rtrs_frwr_save() - remember a slot's MR state before preparing a post
 * @req: the slot
 * @saved: filled for rtrs_frwr_chain() and rtrs_frwr_restore()
 */
static inline void rtrs_frwr_save(const struct rtrs_req *req,
				  struct rtrs_frwr_saved *saved)
{
	saved->key = req->mr->rkey;
	saved->valid = req->mr_valid;
}

/**
 * rtrs_frwr_is_ours() - does an invalidation by the server name our MR
 * @req: the slot
 * @rkey: the rkey the server's SEND_WITH_INV named
 *
 * Return: true if @rkey is the key of @req's registered MR: the device has
 * invalidated it, so it is free again.
 */
static inline bool rtrs_frwr_is_ours(const struct rtrs_req *req, u32 rkey)
{
	return req->mr_valid && rkey == req->mr->rkey;
}

void rtrs_frwr_restore(struct rtrs_req *req,
		       u32 saved_key, bool saved_valid,
		       const struct ib_send_wr *first,
		       const struct ib_send_wr *bad);

/* rtrs-conn.c: one connection's CM, QP, CQ and receives */
struct rtrs_con *rtrs_con_create(struct rtrs_path *path, unsigned int cid);
void rtrs_con_destroy(struct rtrs_con *con);
int rtrs_con_connect(struct rtrs_con *con);
void rtrs_con_disconnect(struct rtrs_con *con);

/**
 * rtrs_dma_need_sync() - does a streaming mapping need its syncs
 * @dev: the device it is mapped for
 * @addr: the mapping's bus address
 *
 * Decided once per mapping: a software device (rxe, siw) has no DMA, and a
 * DMA-coherent one without bounce buffers needs no sync either, whose
 * calls cost every I/O a few instructions (6.12) or an out-of-line call
 * each (6.1) for nothing.
 *
 * Return: true if the sync calls must be made.
 */
static inline bool rtrs_dma_need_sync(struct ib_device *dev, u64 addr)
{
	return !ib_uses_virt_dma(dev) && dma_need_sync(dev->dma_device, addr);
}

/**
 * rtrs_rx_buf() - the buffer of a receive, synced for the CPU
 * @rx: a completed receive
 *
 * Inline: a read's response calls it (bench/insn: the call cost as much as
 * the body).
 *
 * Return: RTRS_RX_SIZE bytes written by the device.
 */
static inline void *rtrs_rx_buf(struct rtrs_rx *rx)
{
	struct rtrs_con *con = rx->con;

	if (con->rx_sync)
		ib_dma_sync_single_for_cpu(con->path->ep->ib_dev, rx->sge.addr,
					   RTRS_RX_SIZE, DMA_FROM_DEVICE);
	return con->rx_buf + rx->idx * RTRS_RX_SIZE;
}

int rtrs_con_poll(struct rtrs_con *con);
void rtrs_con_polled_get(struct rtrs_con *con);
void rtrs_con_polled_put(struct rtrs_con *con);

/* rtrs-debugfs.c: fault injection for the two posts below */
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool rtrs_should_fail_post(void);
#else
static inline bool rtrs_should_fail_post(void) { return false; }
#endif

/*
 * The two posts below are inline: each I/O makes one send and one or two
 * receives, and a call of their own cost more instructions than their
 * bodies (bench/insn).
 *
 * They call the device's post_send/post_recv as ib_post_send() and
 * ib_post_recv() do, but always with an out-parameter of ours for the
 * failed work request. The wrappers fall back to a local of their own when
 * it is NULL, and as the kernel is built with
 * -fno-delete-null-pointer-checks the compiler keeps that local even for a
 * pointer that cannot be NULL: every caller, the request post and the
 * receive handler among them, then got a stack protector.
 */

/**
 * rtrs_con_post_recv() - (re)post one receive of a connection
 * @rx: the receive
 *
 * Context: any.
 * Return: 0 or the error of ib_post_recv().
 */
static inline int rtrs_con_post_recv(struct rtrs_rx *rx)
{
	struct rtrs_con *con = rx->con;

	if (rtrs_should_fail_post())
		return -ENOMEM;
	if (con->rx_sync)
		ib_dma_sync_single_for_device(con->path->ep->ib_dev,
					      rx->sge.addr, RTRS_RX_SIZE,
					      DMA_FROM_DEVICE);
	return con->qp->device->ops.post_recv(con->qp, &rx->wr, &rx->bad_wr);
}

/**
 * rtrs_con_post_send() - post a chain of sends, signalling some of them
 * @con: the connection
 * @first: first work request of the chain
 * @last: last work request of the chain; it is signalled once every
 *	signal_interval posts, so the send queue is reaped in time
 * @bad: on error, set to the first work request not posted (those before
 *	it are); not NULL
 *
 * Context: any.
 * Return: 0 or the error of ib_post_send().
 */
static inline int rtrs_con_post_send(struct rtrs_con *con,
				     struct ib_send_wr *first,
				     struct ib_send_wr *last,
				     const struct ib_send_wr **bad)
{
	if (rtrs_should_fail_post()) {
		*bad = first;
		return -ENOMEM;
	}
	if (atomic_inc_return(&con->wr_cnt) % con->signal_interval == 0)
		last->send_flags |= IB_SEND_SIGNALED;
	return con->qp->device->ops.post_send(con->qp, first, bad);
}

/* rtrs-path.c: path life cycle, handshake, heartbeat, recovery */
struct rtrs_path *rtrs_path_alloc(struct rtrs_clt_sess *clt,
				  const struct rtrs_addr *addr,
				  unsigned int nr_poll_queues);
void rtrs_path_free(struct rtrs_path *path);
void rtrs_path_release(struct rtrs_path *path);
void rtrs_path_device_removed(struct rtrs_path *path, struct ib_device *dev);
int rtrs_path_open(struct rtrs_path *path);
void rtrs_path_close(struct rtrs_path *path);
void rtrs_path_error(struct rtrs_path *path);
void rtrs_path_wc_failed(struct rtrs_path *path, struct ib_wc *wc,
			 const char *what);
bool rtrs_path_change_state(struct rtrs_path *path,
			    enum rtrs_path_state new_state);

/**
 * rtrs_path_state() - the current state of a path
 * @path: the path
 *
 * Inline: path selection and every receive read it (bench/insn: a call
 * costs more instructions than the load). Acquire, paired with the release
 * in rtrs_path_change_state(): who sees CONNECTED without a lock sees the
 * endpoint (&rtrs_path.ep) as the connect left it.
 *
 * Return: enum rtrs_path_state; may change right after.
 */
static inline enum rtrs_path_state rtrs_path_state(struct rtrs_path *path)
{
	return smp_load_acquire(&path->state); /* change_state's release */
}

int rtrs_path_reconnect_now(struct rtrs_path *path);
void rtrs_path_info_abort(struct rtrs_path *path, int err);
void rtrs_path_hb_rx(struct rtrs_path *path);
void rtrs_path_hb_ack(struct rtrs_path *path);
extern struct workqueue_struct *rtrs_wq;

/* rtrs-io.c: requests on the wire and their completions */
int rtrs_req_post(struct rtrs_path *path, struct rtrs_permit *permit,
		  const struct rtrs_req_args *tmpl, const struct kvec *vec,
		  size_t nr);
void rtrs_req_complete(struct rtrs_req *req, int status);
void rtrs_req_cancel(struct rtrs_req *req);
void rtrs_rx_done(struct ib_cq *cq, struct ib_wc *wc);
void rtrs_req_init_io_wr(struct rtrs_req *req);
void rtrs_path_fail_reqs(struct rtrs_path *path);
void rtrs_clt_conf(struct rtrs_clt_sess *clt, struct rtrs_permit *permit,
		   const struct rtrs_clt_req_ops *ops, int err);

/* Indexes of rtrs_clt_sess.hold_stats */
enum {
	RTRS_HOLD_STAT_STARTED,
	RTRS_HOLD_STAT_RESUMED,
	RTRS_HOLD_STAT_EXPIRED,
	RTRS_HOLD_STAT_REQS,
};

/* Indexes of rtrs_clt_sess.reqs */
enum {
	RTRS_REQS_ACCEPTED,
	RTRS_REQS_COMPLETED,
	RTRS_REQS_STRAY,
	RTRS_REQS_TIMED_OUT,
};

/* rtrs-clt.c: the session, permits, path selection, link events */
void rtrs_clt_path_up(struct rtrs_path *path);
void rtrs_clt_path_down(struct rtrs_path *path);
int rtrs_clt_set_limits(struct rtrs_path *path);
int rtrs_clt_failover(struct rtrs_req *req);
int rtrs_clt_add_path(struct rtrs_clt_sess *clt, const struct rtrs_addr *addr);
int rtrs_clt_remove_path(struct rtrs_path *path);
void rtrs_clt_release(struct rtrs_clt_sess *clt);
int rtrs_clt_set_io_hold(struct rtrs_clt_sess *clt, int sec);

/* rtrs-debugfs.c: what operators and tests may look at beyond sysfs */
void rtrs_debugfs_init(void);
void rtrs_debugfs_exit(void);
void rtrs_debugfs_add_sess(struct rtrs_clt_sess *clt);
void rtrs_debugfs_del_sess(struct rtrs_clt_sess *clt);

/* rtrs-clt-sysfs.c */
int rtrs_clt_class_init(void);
void rtrs_clt_class_exit(void);
int rtrs_clt_sysfs_create(struct rtrs_clt_sess *clt);
void rtrs_clt_sysfs_remove(struct rtrs_clt_sess *clt);
int rtrs_path_sysfs_create(struct rtrs_path *path);
void rtrs_path_sysfs_remove(struct rtrs_path *path);
void rtrs_clt_dev_init(struct rtrs_clt_sess *clt);
void rtrs_path_kobj_init(struct rtrs_path *path);

#endif /* RTRS_PRI_H */
