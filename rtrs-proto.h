/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The RTRS wire protocol, version 2.0, as the client sees it.
 *
 * Everything that crosses the wire is declared here: the CM private data of
 * connect and accept/reject, the control messages on the service connection,
 * the I/O message headers placed in server chunks, and the 32-bit immediate
 * data. All multi-byte fields are little-endian; the immediate is big-endian
 * on the wire like every verbs immediate.
 *
 * This header and rtrs.c build both in the kernel and on the host, so the
 * encoders and the validators of everything the server sends us are unit
 * tested without hardware (tests/unit/). Nothing here may depend on verbs.
 */
#ifndef RTRS_PROTO_H
#define RTRS_PROTO_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/uuid.h>
#include <linux/socket.h>
#include <linux/build_bug.h>
#include <linux/bitops.h>
#else
#include "host-compat.h"
#endif

struct rtrs_addr;

#define RTRS_PROTO_VER_MAJOR	2
#define RTRS_PROTO_VER_MINOR	0
#define RTRS_PROTO_VER		((RTRS_PROTO_VER_MAJOR << 8) | RTRS_PROTO_VER_MINOR)
#define RTRS_MAGIC		0x1BBD

/* queue_depth travels as le16; chunk ids must fit the immediate too */
#define RTRS_MAX_QUEUE_DEPTH	65535
/*
 * A session of one chunk hangs rnbd's map (ours and upstream's client
 * alike, seen with the fuzzing peer): refused, so the map fails instead
 */
#define RTRS_MIN_QUEUE_DEPTH	2
#define RTRS_IMM_TYPE_BITS	4
#define RTRS_IMM_PAYLOAD_BITS	28
#define RTRS_IMM_PAYLOAD_MASK	((1U << RTRS_IMM_PAYLOAD_BITS) - 1)

/* The server posts this many receives on the service connection */
#define RTRS_SERVICE_QUEUE_DEPTH	512
#define RTRS_MAX_PATHS		128
/* The server refuses more connections per path than this */
#define RTRS_MAX_CONNS		4096
#define RTRS_MIN_CHUNK_SIZE	8192
#define RTRS_HB_INTERVAL_MS	5000
#define RTRS_HB_MISSED_MAX	5
/* Session names are sent in a NAME_MAX (255) byte field, NUL included */
#define RTRS_SESSNAME_SIZE	255

/*
 * The largest errno user space knows (EHWPOISON); a server's errno beyond
 * it reaches nobody (rtrs_peer_errno())
 */
#define RTRS_ERRNO_MAX		133

/* The io response immediate: 9 bits of |errno|, 19 bits of chunk id */
#define RTRS_IO_RSP_ID_BITS	19
#define RTRS_IO_RSP_ID_MASK	((1U << RTRS_IO_RSP_ID_BITS) - 1)
#define RTRS_IO_RSP_ERR_MASK	0x1FFU

enum rtrs_msg_types {
	RTRS_MSG_INFO_REQ,
	RTRS_MSG_INFO_RSP,
	RTRS_MSG_WRITE,
	RTRS_MSG_READ,
	RTRS_MSG_RKEY_RSP,
};

enum rtrs_msg_flags {
	/* in rtrs_msg_rdma_read.flags: invalidate my rkey when done */
	RTRS_MSG_NEED_INVAL_F = 1 << 0,
	/* in rtrs_msg_conn_rsp.flags: chunk rkeys change, see rkey_rsp */
	RTRS_MSG_NEW_RKEY_F = 1 << 1,
};

/* The top four bits of every immediate */
enum rtrs_imm_type {
	RTRS_IO_REQ_IMM       = 0,
	RTRS_IO_RSP_IMM       = 1,
	RTRS_IO_RSP_W_INV_IMM = 2,
	RTRS_HB_MSG_IMM       = 8,
	RTRS_HB_ACK_IMM       = 9,
};

/* Byte 44 of the connect request */
#define RTRS_CONN_REQ_FIRST_CONN	0x01

struct rtrs_sg_desc {
	__le64	addr;
	__le32	key;
	__le32	len;
};

/* CM private data of rdma_connect(); 56 bytes is what every CM carries */
struct rtrs_msg_conn_req {
	/* the CM parses these two for AF_IB with an IP service id: keep 0 */
	u8	__cma_version;
	u8	__ip_version;
	__le16	magic;
	__le16	version;
	__le16	cid;
	__le16	cid_num;
	__le16	recon_cnt;
	uuid_t	sess_uuid;	/* the path, stable across its reconnects */
	uuid_t	paths_uuid;	/* the session, shared by all its paths */
	u8	flags;		/* RTRS_CONN_REQ_FIRST_CONN */
	u8	reserved[11];
};

/* CM private data of the server's accept, or of its consumer reject */
struct rtrs_msg_conn_rsp {
	__le16	magic;
	__le16	version;
	__le16	errno;		/* 0, or a negative errno in 16 bits */
	__le16	queue_depth;
	__le32	max_io_size;
	__le32	max_hdr_size;
	__le32	flags;
	u8	reserved[36];
};

struct rtrs_msg_info_req {
	__le16	type;
	u8	pathname[RTRS_SESSNAME_SIZE];
	u8	reserved[15];
};

struct rtrs_msg_info_rsp {
	__le16	type;
	__le16	sg_cnt;
	u8	reserved[4];
	struct rtrs_sg_desc desc[];
};

struct rtrs_msg_rkey_rsp {
	__le16	type;
	__le16	buf_id;
	__le32	rkey;
};

struct rtrs_msg_rdma_read {
	__le16	type;
	__le16	usr_len;
	__le16	flags;
	__le16	sg_cnt;
	struct rtrs_sg_desc desc[];
};

struct rtrs_msg_rdma_write {
	__le16	type;
	__le16	usr_len;
};

static_assert(sizeof(struct rtrs_sg_desc) == 16);
static_assert(sizeof(struct rtrs_msg_conn_req) == 56);
static_assert(sizeof(struct rtrs_msg_conn_rsp) == 56);
static_assert(sizeof(struct rtrs_msg_info_req) == 272);
static_assert(sizeof(struct rtrs_msg_info_rsp) == 8);
static_assert(sizeof(struct rtrs_msg_rkey_rsp) == 8);
static_assert(sizeof(struct rtrs_msg_rdma_read) == 8);
static_assert(sizeof(struct rtrs_msg_rdma_write) == 4);

/* Limits a session works with, negotiated by the conn_rsp of connection 0 */
struct rtrs_conn_params {
	u16	queue_depth;	/* number of server chunks = permits */
	u32	max_io_size;	/* data bytes per request */
	u32	max_hdr_size;	/* user message + rtrs header bytes */
	u32	chunk_size;	/* max_io_size + max_hdr_size */
	u32	flags;		/* RTRS_MSG_NEW_RKEY_F */
	u32	imm_shift;	/* rtrs_imm_shift(queue_depth) */
};

/* One server chunk: where request @buf_id's message goes */
struct rtrs_rbuf {
	u64	addr;
	u32	rkey;
};

/* ------------------------------------------------------------ immediates */

static inline u32 rtrs_imm(u32 type, u32 payload)
{
	return (type << RTRS_IMM_PAYLOAD_BITS) | (payload & RTRS_IMM_PAYLOAD_MASK);
}

static inline u32 rtrs_imm_type(u32 imm)
{
	return imm >> RTRS_IMM_PAYLOAD_BITS;
}

static inline u32 rtrs_imm_payload(u32 imm)
{
	return imm & RTRS_IMM_PAYLOAD_MASK;
}

/* Bits needed to number @n items 0..n-1 (0 for n <= 1) */
static inline u32 rtrs_bits_for(u32 n)
{
	return n > 1 ? fls(n - 1) : 0;
}

/*
 * Where a request immediate's chunk id starts: the payload bits below it
 * hold the offset in the chunk. Fixed by the server's queue depth, so it is
 * computed once per connect (rtrs_conn_params.imm_shift), not per I/O.
 */
static inline u32 rtrs_imm_shift(u32 queue_depth)
{
	return RTRS_IMM_PAYLOAD_BITS - rtrs_bits_for(queue_depth);
}

/* ---------------------------------------------------------- rtrs.c */

int rtrs_peer_errno(int err);
int rtrs_check_limits(u32 queue_depth, u32 chunk_size);
void rtrs_conn_req_init(struct rtrs_msg_conn_req *req, u16 cid, u16 cid_num,
			u16 recon_cnt, const uuid_t *path_uuid,
			const uuid_t *sess_uuid, bool first_conn);
int rtrs_conn_rsp_parse(const void *data, size_t len,
			struct rtrs_conn_params *p);
int rtrs_conn_rej_errno(const void *data, size_t len);
int rtrs_info_req_init(struct rtrs_msg_info_req *req, const char *sessname);
int rtrs_info_rsp_parse(const void *data, size_t len,
			const struct rtrs_conn_params *p,
			struct rtrs_rbuf *rbufs, u32 nr);
int rtrs_clt_addr_to_sockaddr(const char *str, size_t len, u16 port,
			      struct rtrs_addr *addr);
int rtrs_sessname_check(const char *name);

/* ------------------------------------------------ rtrs.c, per I/O */

/*
 * Each I/O builds or checks these, so they are inline here rather than in
 * rtrs.c: as calls they cost each 4k read some 50 instructions of calls,
 * prologues and stack traffic for their results (bench/insn).
 */

/**
 * rtrs_rkey_rsp_parse() - check a new chunk rkey sent with an I/O response
 * @data: the received rkey response
 * @len: bytes received
 * @queue_depth: number of chunks of the session
 * @imm_buf_id: the chunk id of the immediate that came with the message
 * @rkey: set to the new rkey of the chunk on success
 *
 * Context: any context.
 * Return: 0 on success; -EPROTO if @len is below 8, the type is not
 * RTRS_MSG_RKEY_RSP, buf_id is not below @queue_depth or differs from
 * @imm_buf_id.
 */
static inline int rtrs_rkey_rsp_parse(const void *data, size_t len,
				      u16 queue_depth, u32 imm_buf_id,
				      u32 *rkey)
{
	const struct rtrs_msg_rkey_rsp *rsp = data;
	u16 buf_id;

	if (!data || len < sizeof(*rsp))
		return -EPROTO;
	if (le16_to_cpu(rsp->type) != RTRS_MSG_RKEY_RSP)
		return -EPROTO;
	buf_id = le16_to_cpu(rsp->buf_id);
	if (buf_id >= queue_depth || buf_id != imm_buf_id)
		return -EPROTO;
	*rkey = le32_to_cpu(rsp->rkey);
	return 0;
}

/**
 * rtrs_io_req_imm() - immediate of an I/O request
 * @buf_id: the chunk the request was written to
 * @offset: where in the chunk the rtrs message header starts
 * @p: session limits (queue_depth, chunk_size and imm_shift are used)
 * @imm: set to the immediate, in host byte order (post it with
 *	cpu_to_be32())
 *
 * The chunk id goes in the high bits of the payload, as many as the queue
 * depth needs, and the offset in the remaining low bits.
 *
 * Context: any context.
 * Return: 0 on success; -EINVAL if @buf_id is not below queue_depth, @offset
 * is not below chunk_size, or (only for limits that rtrs_check_limits() would
 * refuse) @offset does not fit the bits left for it.
 */
static inline int rtrs_io_req_imm(u32 buf_id, u32 offset,
				  const struct rtrs_conn_params *p, u32 *imm)
{
	if (buf_id >= p->queue_depth || offset >= p->chunk_size)
		return -EINVAL;
	if (offset >> p->imm_shift)
		return -EINVAL;
	*imm = rtrs_imm(RTRS_IO_REQ_IMM, (buf_id << p->imm_shift) + offset);
	return 0;
}

/**
 * rtrs_io_rsp_parse() - decode the payload of an I/O response immediate
 * @payload: the low 28 bits of the immediate
 * @queue_depth: number of chunks of the session
 * @buf_id: set to the chunk id
 * @err: set to the status of the request: 0, an errno in -1..-133, or
 *	-EPROTO for any other value the server sent (rtrs_peer_errno())
 *
 * @buf_id and @err are set even when the id is out of range, so the caller
 * can log them.
 *
 * Context: any context.
 * Return: 0, or -EPROTO if the chunk id is not below @queue_depth.
 */
static inline int rtrs_io_rsp_parse(u32 payload, u16 queue_depth,
				    u32 *buf_id, int *err)
{
	u32 e = (payload >> RTRS_IO_RSP_ID_BITS) & RTRS_IO_RSP_ERR_MASK;

	*buf_id = payload & RTRS_IO_RSP_ID_MASK;
	*err = e ? rtrs_peer_errno(-(int)e) : 0;
	return *buf_id < queue_depth ? 0 : -EPROTO;
}

/**
 * rtrs_read_msg_init() - build the header of a READ request
 * @msg: where the header goes (room for one descriptor is needed if @len)
 * @usr_len: length of the user message placed before the header
 * @addr: address of the client MR the server writes the data to
 * @key: rkey of that MR
 * @len: data length; 0 for a request without data
 * @need_inval: with data, ask the server to invalidate @key when it is done
 *	(RTRS_MSG_NEED_INVAL_F)
 *
 * Context: any context.
 * Return: the number of header bytes written: 8 without data, 24 with one
 * descriptor.
 */
static inline size_t rtrs_read_msg_init(struct rtrs_msg_rdma_read *msg,
					u16 usr_len, u64 addr, u32 key,
					u32 len, bool need_inval)
{
	msg->type = cpu_to_le16(RTRS_MSG_READ);
	msg->usr_len = cpu_to_le16(usr_len);
	if (!len) {
		msg->flags = cpu_to_le16(0);
		msg->sg_cnt = cpu_to_le16(0);
		return sizeof(*msg);
	}
	msg->flags = cpu_to_le16(need_inval ? RTRS_MSG_NEED_INVAL_F : 0);
	msg->sg_cnt = cpu_to_le16(1);
	msg->desc[0].addr = cpu_to_le64(addr);
	msg->desc[0].key = cpu_to_le32(key);
	msg->desc[0].len = cpu_to_le32(len);
	return sizeof(*msg) + sizeof(msg->desc[0]);
}

/**
 * rtrs_write_msg_init() - build the header of a WRITE request
 * @msg: where the header goes, after the data and the user message
 * @usr_len: length of the user message
 *
 * Context: any context.
 * Return: the number of header bytes written (4).
 */
static inline size_t rtrs_write_msg_init(struct rtrs_msg_rdma_write *msg,
					 u16 usr_len)
{
	msg->type = cpu_to_le16(RTRS_MSG_WRITE);
	msg->usr_len = cpu_to_le16(usr_len);
	return sizeof(*msg);
}

/* Multipath policies, with the numbers the sysfs file shows */
enum rtrs_mp_policy {
	MP_POLICY_RR,
	MP_POLICY_MIN_INFLIGHT,
	MP_POLICY_MIN_LATENCY,
};

int rtrs_parse_mp_policy(const char *buf, size_t count,
			 enum rtrs_mp_policy *policy);
int rtrs_parse_max_reconnect_attempts(const char *buf, int *val);
int rtrs_parse_io_hold_sec(const char *buf, int *val);
int rtrs_parse_io_timeout_sec(const char *buf, unsigned int *val);

/* io_hold_sec: -1 (until closed), 0 (off) or up to a day */
#define RTRS_IO_HOLD_MAX_SEC	86400
/* io_timeout_sec: 0 (off) or up to a day */
#define RTRS_IO_TIMEOUT_MAX_SEC	86400

#endif /* RTRS_PROTO_H */
