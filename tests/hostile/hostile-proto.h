/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The wire messages the hostile peer speaks, restated for
 * user space: RTRS 2.0 (CM private data, service messages, chunk headers,
 * immediates) and the few rnbd messages that ride on RTRS as user messages.
 *
 * Written from the protocol facts in the project's fact sheet
 * (/work/shared/rtrs-protocol.md, section 1) and from the rnbd message
 * layouts; sizes are checked below. Every multi-byte field is little-endian;
 * immediates are big-endian on the wire. Nothing here depends on verbs.
 */
#ifndef HOSTILE_PROTO_H
#define HOSTILE_PROTO_H

#include <assert.h>
#include <stdint.h>

#define HN_MAGIC		0x1BBD
#define HN_VERSION		0x0200	/* 2.0 */
#define HN_PORT			1234
#define HN_MAX_CONNS		4096
#define HN_SERVICE_QD		512
#define HN_HB_INTERVAL_MS	5000
#define HN_HB_MISSED_MAX	5
#define HN_MAX_HDR		4096

/* message types at the start of service messages and chunk headers */
enum {
	HN_INFO_REQ	= 0,
	HN_INFO_RSP	= 1,
	HN_WRITE	= 2,
	HN_READ		= 3,
	HN_RKEY_RSP	= 4,
};

#define HN_NEED_INVAL	(1 << 0)	/* read message flags */
#define HN_NEW_RKEY	(1 << 1)	/* conn_rsp flags */
#define HN_FIRST_CONN	0x01		/* conn_req flags byte */

/* top four bits of an immediate */
enum {
	HN_IMM_IO_REQ	= 0,
	HN_IMM_IO_RSP	= 1,
	HN_IMM_IO_RSP_INV = 2,
	HN_IMM_HB_MSG	= 8,
	HN_IMM_HB_ACK	= 9,
};

#define HN_IMM_PAYLOAD_MASK	0x0FFFFFFFu
#define HN_RSP_ID_MASK		0x7FFFFu	/* 19 bits of chunk id */
#define HN_RSP_ERR_MASK		0x1FFu		/* 9 bits of |errno| */

static inline uint32_t hn_imm(uint32_t type, uint32_t payload)
{
	return (type & 0xF) << 28 | (payload & HN_IMM_PAYLOAD_MASK);
}

static inline uint32_t hn_rsp_imm(uint32_t type, uint32_t err, uint32_t id)
{
	return hn_imm(type, (err & HN_RSP_ERR_MASK) << 19 | (id & HN_RSP_ID_MASK));
}

struct hn_sg_desc {
	uint64_t addr;
	uint32_t key;
	uint32_t len;
};

struct hn_conn_req {
	uint8_t  cma_version;
	uint8_t  ip_version;
	uint16_t magic;
	uint16_t version;
	uint16_t cid;
	uint16_t cid_num;
	uint16_t recon_cnt;
	uint8_t  sess_uuid[16];
	uint8_t  paths_uuid[16];
	uint8_t  flags;
	uint8_t  reserved[11];
};

struct hn_conn_rsp {
	uint16_t magic;
	uint16_t version;
	uint16_t errno_;	/* negative errno in 16 bits, 0 on accept */
	uint16_t queue_depth;
	uint32_t max_io_size;
	uint32_t max_hdr_size;
	uint32_t flags;
	uint8_t  reserved[36];
};

struct hn_info_req {
	uint16_t type;
	uint8_t  pathname[255];
	uint8_t  reserved[15];
};

struct hn_info_rsp {
	uint16_t type;
	uint16_t sg_cnt;
	uint8_t  reserved[4];
	struct hn_sg_desc desc[];
};

struct hn_read_msg {
	uint16_t type;
	uint16_t usr_len;
	uint16_t flags;
	uint16_t sg_cnt;
	struct hn_sg_desc desc[];
};

struct hn_write_msg {
	uint16_t type;
	uint16_t usr_len;
};

/* with NEW_RKEY_F: the payload of the SEND WITH IMM that answers a request */
struct hn_rkey_rsp {
	uint16_t type;
	uint16_t buf_id;
	uint32_t rkey;
};

/* rnbd messages (protocol 2) */
enum {
	HN_RNBD_SESS_INFO	= 0,
	HN_RNBD_SESS_INFO_RSP	= 1,
	HN_RNBD_OPEN		= 2,
	HN_RNBD_OPEN_RSP	= 3,
	HN_RNBD_IO		= 4,
	HN_RNBD_CLOSE		= 5,
};

enum {
	HN_RNBD_OP_READ		= 0,
	HN_RNBD_OP_WRITE	= 1,
	HN_RNBD_OP_FLUSH	= 2,
	HN_RNBD_OP_DISCARD	= 3,
	HN_RNBD_OP_SECURE_ERASE	= 4,
	HN_RNBD_OP_WRITE_ZEROES	= 5,
};
#define HN_RNBD_OP_MASK	0xFFu

struct hn_rnbd_hdr {
	uint16_t type;
	uint16_t pad;
};

struct hn_rnbd_sess_info {
	struct hn_rnbd_hdr hdr;
	uint8_t ver;
	uint8_t reserved[31];
};

struct hn_rnbd_open {
	struct hn_rnbd_hdr hdr;
	uint8_t access_mode;
	uint8_t resv1;
	char    dev_name[255];
	uint8_t reserved[3];
};

struct hn_rnbd_close {
	struct hn_rnbd_hdr hdr;
	uint32_t device_id;
};

struct hn_rnbd_open_rsp {
	struct hn_rnbd_hdr hdr;
	uint32_t device_id;
	uint64_t nsectors;
	uint32_t max_hw_sectors;
	uint32_t max_write_zeroes_sectors;
	uint32_t max_discard_sectors;
	uint32_t discard_granularity;
	uint32_t discard_alignment;
	uint16_t physical_block_size;
	uint16_t logical_block_size;
	uint16_t max_segments;
	uint16_t secure_discard;
	uint8_t  obsolete_rotational;
	uint8_t  cache_policy;
	uint8_t  reserved[10];
};

struct hn_rnbd_io {
	struct hn_rnbd_hdr hdr;
	uint32_t device_id;
	uint64_t sector;
	uint32_t rw;
	uint32_t bi_size;
	uint16_t prio;
};

static_assert(sizeof(struct hn_sg_desc) == 16, "sg_desc");
static_assert(sizeof(struct hn_conn_req) == 56, "conn_req");
static_assert(sizeof(struct hn_conn_rsp) == 56, "conn_rsp");
static_assert(sizeof(struct hn_info_req) == 272, "info_req");
static_assert(sizeof(struct hn_info_rsp) == 8, "info_rsp");
static_assert(sizeof(struct hn_read_msg) == 8, "read_msg");
static_assert(sizeof(struct hn_write_msg) == 4, "write_msg");
static_assert(sizeof(struct hn_rkey_rsp) == 8, "rkey_rsp");
static_assert(sizeof(struct hn_rnbd_sess_info) == 36, "sess_info");
static_assert(sizeof(struct hn_rnbd_open) == 264, "open");
static_assert(sizeof(struct hn_rnbd_close) == 8, "close");
static_assert(sizeof(struct hn_rnbd_open_rsp) == 56, "open_rsp");
static_assert(sizeof(struct hn_rnbd_io) == 32, "io");

#endif /* HOSTILE_PROTO_H */
