// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-msgs.c - wire layouts, the messages the client builds (compared with
 * byte arrays written from the offset tables of the protocol sheet) and the
 * validators of everything the server sends.
 */
#include "test.h"

#define OFF(type, field)	offsetof(struct type, field)

void test_layout(void)
{
	CHECK_EQ(sizeof(struct rtrs_sg_desc), 16);
	CHECK_EQ(OFF(rtrs_sg_desc, addr), 0);
	CHECK_EQ(OFF(rtrs_sg_desc, key), 8);
	CHECK_EQ(OFF(rtrs_sg_desc, len), 12);

	CHECK_EQ(sizeof(struct rtrs_msg_conn_req), 56);
	CHECK_EQ(OFF(rtrs_msg_conn_req, __cma_version), 0);
	CHECK_EQ(OFF(rtrs_msg_conn_req, __ip_version), 1);
	CHECK_EQ(OFF(rtrs_msg_conn_req, magic), 2);
	CHECK_EQ(OFF(rtrs_msg_conn_req, version), 4);
	CHECK_EQ(OFF(rtrs_msg_conn_req, cid), 6);
	CHECK_EQ(OFF(rtrs_msg_conn_req, cid_num), 8);
	CHECK_EQ(OFF(rtrs_msg_conn_req, recon_cnt), 10);
	CHECK_EQ(OFF(rtrs_msg_conn_req, sess_uuid), 12);
	CHECK_EQ(OFF(rtrs_msg_conn_req, paths_uuid), 28);
	CHECK_EQ(OFF(rtrs_msg_conn_req, flags), 44);
	CHECK_EQ(OFF(rtrs_msg_conn_req, reserved), 45);

	CHECK_EQ(sizeof(struct rtrs_msg_conn_rsp), 56);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, magic), 0);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, version), 2);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, errno), 4);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, queue_depth), 6);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, max_io_size), 8);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, max_hdr_size), 12);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, flags), 16);
	CHECK_EQ(OFF(rtrs_msg_conn_rsp, reserved), 20);

	CHECK_EQ(sizeof(struct rtrs_msg_info_req), 272);
	CHECK_EQ(OFF(rtrs_msg_info_req, pathname), 2);
	CHECK_EQ(OFF(rtrs_msg_info_req, reserved), 257);

	CHECK_EQ(sizeof(struct rtrs_msg_info_rsp), 8);
	CHECK_EQ(OFF(rtrs_msg_info_rsp, sg_cnt), 2);
	CHECK_EQ(OFF(rtrs_msg_info_rsp, desc), 8);

	CHECK_EQ(sizeof(struct rtrs_msg_rkey_rsp), 8);
	CHECK_EQ(OFF(rtrs_msg_rkey_rsp, buf_id), 2);
	CHECK_EQ(OFF(rtrs_msg_rkey_rsp, rkey), 4);

	CHECK_EQ(sizeof(struct rtrs_msg_rdma_read), 8);
	CHECK_EQ(OFF(rtrs_msg_rdma_read, usr_len), 2);
	CHECK_EQ(OFF(rtrs_msg_rdma_read, flags), 4);
	CHECK_EQ(OFF(rtrs_msg_rdma_read, sg_cnt), 6);
	CHECK_EQ(OFF(rtrs_msg_rdma_read, desc), 8);

	CHECK_EQ(sizeof(struct rtrs_msg_rdma_write), 4);
	CHECK_EQ(OFF(rtrs_msg_rdma_write, usr_len), 2);

	CHECK_EQ(sizeof(uuid_t), 16);
	CHECK_EQ(__alignof__(uuid_t), 1);

	/* constants of the sheet, section 1.1/1.2 */
	CHECK_EQ(RTRS_PROTO_VER, 0x0200);
	CHECK_EQ(RTRS_MAGIC, 0x1BBD);
	CHECK_EQ(RTRS_MSG_INFO_REQ, 0);
	CHECK_EQ(RTRS_MSG_INFO_RSP, 1);
	CHECK_EQ(RTRS_MSG_WRITE, 2);
	CHECK_EQ(RTRS_MSG_READ, 3);
	CHECK_EQ(RTRS_MSG_RKEY_RSP, 4);
	CHECK_EQ(RTRS_MSG_NEED_INVAL_F, 1);
	CHECK_EQ(RTRS_MSG_NEW_RKEY_F, 2);
	CHECK_EQ(RTRS_IO_REQ_IMM, 0);
	CHECK_EQ(RTRS_IO_RSP_IMM, 1);
	CHECK_EQ(RTRS_IO_RSP_W_INV_IMM, 2);
	CHECK_EQ(RTRS_HB_MSG_IMM, 8);
	CHECK_EQ(RTRS_HB_ACK_IMM, 9);
}

static void test_conn_req(void)
{
	static const u8 want[56] = {
		0x00, 0x00,			/* cma, ip version */
		0xbd, 0x1b,			/* magic */
		0x00, 0x02,			/* version 2.0 */
		0x03, 0x00,			/* cid 3 */
		0x09, 0x00,			/* cid_num 9 */
		0x34, 0x12,			/* recon_cnt 0x1234 */
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
		0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
		0x01,				/* first_conn */
	};
	u8 want2[56];
	uuid_t path, sess;
	union {
		struct rtrs_msg_conn_req req;
		u8 b[56];
	} u;
	int i;

	for (i = 0; i < 16; i++) {
		path.b[i] = i;
		sess.b[i] = 0xf0 + i;
	}
	memset(&u, 0xa5, sizeof(u));
	rtrs_conn_req_init(&u.req, 3, 9, 0x1234, &path, &sess, true);
	CHECK_MEM(u.b, want, sizeof(want));

	/* not first: byte 44 is 0; every reserved byte is cleared */
	memcpy(want2, want, sizeof(want2));
	want2[6] = 0xff;
	want2[7] = 0xff;
	want2[8] = 0x00;
	want2[9] = 0x10;
	want2[10] = 0;
	want2[11] = 0;
	want2[44] = 0;
	memset(&u, 0xff, sizeof(u));
	rtrs_conn_req_init(&u.req, 0xffff, 0x1000, 0, &path, &sess, false);
	CHECK_MEM(u.b, want2, sizeof(want2));
}

/* A valid accept: qd 512, 124 KiB + 4 KiB = 128 KiB chunks, NEW_RKEY */
static const u8 good_rsp[56] = {
	0xbd, 0x1b, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02,
	0x00, 0xf0, 0x01, 0x00,		/* max_io_size 126976 */
	0x00, 0x10, 0x00, 0x00,		/* max_hdr_size 4096 */
	0x02, 0x00, 0x00, 0x00,		/* flags NEW_RKEY */
};

static int parse_rsp(const u8 *bytes, size_t len, struct rtrs_conn_params *p)
{
	union {
		struct rtrs_msg_conn_rsp rsp;
		u8 b[64];
	} u;

	memset(&u, 0, sizeof(u));
	memcpy(u.b, bytes, len > 56 ? 56 : len);
	return rtrs_conn_rsp_parse(&u, len, p);
}

static int parse_rsp_with(size_t off, size_t n, u32 v)
{
	struct rtrs_conn_params p;
	u8 b[56];

	memcpy(b, good_rsp, sizeof(b));
	if (n == 2)
		put16(b + off, v);
	else
		put32(b + off, v);
	return parse_rsp(b, sizeof(b), &p);
}

static void test_conn_rsp(void)
{
	struct rtrs_conn_params p;
	u8 b[56];

	memset(&p, 0, sizeof(p));
	CHECK_EQ(parse_rsp(good_rsp, 56, &p), 0);
	CHECK_EQ(p.queue_depth, 512);
	CHECK_EQ(p.max_io_size, 126976);
	CHECK_EQ(p.max_hdr_size, 4096);
	CHECK_EQ(p.chunk_size, 131072);
	CHECK_EQ(p.flags, RTRS_MSG_NEW_RKEY_F);
	CHECK_EQ(p.imm_shift, 19);
	/* longer private data (IB CM pads to its own size) is fine */
	CHECK_EQ(parse_rsp(good_rsp, 64, &p), 0);

	CHECK_EQ(parse_rsp(good_rsp, 55, &p), -ECONNRESET);
	CHECK_EQ(parse_rsp(good_rsp, 0, &p), -ECONNRESET);
	CHECK_EQ(rtrs_conn_rsp_parse(NULL, 56, &p), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(0, 2, 0x1bbe), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(0, 2, 0xbd1b), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(2, 2, 0x0300), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(2, 2, 0x0100), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(2, 2, 0x0002), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(2, 2, 0x0201), 0);	/* minor ignored */
	CHECK_EQ(parse_rsp_with(2, 2, 0x02ff), 0);

	/*
	 * errno: -1..-133 is passed on; any other value is a protocol error,
	 * so that no kernel-internal errno (-512 ERESTARTSYS, -529
	 * EIOCBQUEUED) or non-IS_ERR() value (-30000) reaches a caller
	 */
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-ENXIO), -ENXIO);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-ECONNRESET), -ECONNRESET);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-EBUSY), -EBUSY);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-1), -1);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-133), -133);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-134), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-512), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-529), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, (u16)-30000), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, 0x8000), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, 5), -EPROTO);
	CHECK_EQ(parse_rsp_with(4, 2, 0x7fff), -EPROTO);
	{
		/* every 16-bit value: never outside -1..-133 or 0 */
		int v, ok = 1;

		for (v = 0; v <= 0xffff; v++) {
			int r = parse_rsp_with(4, 2, (u16)v);

			ok &= r == 0 || (r < 0 && r >= -RTRS_ERRNO_MAX);
		}
		CHECK(ok);
	}

	/* queue depth */
	CHECK_EQ(parse_rsp_with(6, 2, 0), -EPROTO);
	CHECK_EQ(parse_rsp_with(6, 2, 1), -EPROTO);	/* hangs rnbd's map */
	CHECK_EQ(parse_rsp_with(6, 2, 2), 0);
	CHECK_EQ(parse_rsp_with(6, 2, 2048), 0);	/* 11 + 17 = 28 */
	CHECK_EQ(parse_rsp_with(6, 2, 2049), -EPROTO);	/* 12 + 17 */
	CHECK_EQ(parse_rsp_with(6, 2, 65535), -EPROTO);

	/* max_hdr_size: at least a read header with one desc, <= 64 KiB */
	CHECK_EQ(parse_rsp_with(12, 4, 0), -EPROTO);
	CHECK_EQ(parse_rsp_with(12, 4, 23), -EPROTO);
	CHECK_EQ(parse_rsp_with(12, 4, 24), 0);
	CHECK_EQ(parse_rsp_with(12, 4, 65536), 0);
	CHECK_EQ(parse_rsp_with(12, 4, 65537), -EPROTO);
	CHECK_EQ(parse_rsp_with(12, 4, 0xffffffff), -EPROTO);

	/* max_io_size, and the sum overflowing */
	CHECK_EQ(parse_rsp_with(8, 4, 0), -EPROTO);
	CHECK_EQ(parse_rsp_with(8, 4, 1), 0);
	CHECK_EQ(parse_rsp_with(8, 4, 0xffffffff), -EPROTO);
	CHECK_EQ(parse_rsp_with(8, 4, 0xffffffff - 4096 + 1), -EPROTO);
	/* no overflow, but too big for the immediate */
	CHECK_EQ(parse_rsp_with(8, 4, 0xffffffff - 4096), -EPROTO);
	/* 512 chunks: 9 bits, so chunks up to 2^19 bytes */
	CHECK_EQ(parse_rsp_with(8, 4, (1U << 19) - 4096), 0);
	CHECK_EQ(parse_rsp_with(8, 4, (1U << 19) - 4096 + 1), -EPROTO);

	/* exact values land in the params */
	memcpy(b, good_rsp, sizeof(b));
	put16(b + 6, 2);
	put32(b + 8, 8192 - 24);
	put32(b + 12, 24);
	put32(b + 16, 0x80000001);
	CHECK_EQ(parse_rsp(b, sizeof(b), &p), 0);
	CHECK_EQ(p.queue_depth, 2);
	CHECK_EQ(p.chunk_size, 8192);
	CHECK_EQ(p.flags, 0x80000001);
	CHECK_EQ(p.imm_shift, 27);
}

static void test_conn_rej(void)
{
	union {
		u8 b[148];
		u64 align;
	} u;

	memset(&u, 0, sizeof(u));
	put16(u.b, RTRS_MAGIC);
	put16(u.b + 2, RTRS_PROTO_VER);
	put16(u.b + 4, (u16)-ENXIO);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -ENXIO);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 148), -ENXIO);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 6), -ENXIO);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 5), -ECONNRESET);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 0), -ECONNRESET);
	CHECK_EQ(rtrs_conn_rej_errno(NULL, 56), -ECONNRESET);
	put16(u.b + 4, (u16)-EBUSY);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -EBUSY);
	put16(u.b + 4, 0xffff);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -1);
	put16(u.b + 4, 0x8000);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -EPROTO);
	put16(u.b + 4, (u16)-133);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -133);
	put16(u.b + 4, (u16)-134);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -EPROTO);
	put16(u.b + 4, (u16)-529);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -EPROTO);
	put16(u.b + 4, (u16)-30000);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -EPROTO);
	/* zero or positive errno is not an error code */
	put16(u.b + 4, 0);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -ECONNRESET);
	put16(u.b + 4, 22);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -ECONNRESET);
	/* the magic must match; the version is not looked at */
	put16(u.b + 4, (u16)-ENXIO);
	put16(u.b + 2, 0x0700);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -ENXIO);
	put16(u.b, 0x1bbc);
	CHECK_EQ(rtrs_conn_rej_errno(u.b, 56), -ECONNRESET);
}

static void test_info_req(void)
{
	union {
		struct rtrs_msg_info_req req;
		u8 b[272];
	} u;
	u8 want[272];
	char name[300];

	memset(want, 0, sizeof(want));
	memcpy(want + 2, "sess-1", 6);
	memset(&u, 0xee, sizeof(u));
	CHECK_EQ(rtrs_info_req_init(&u.req, "sess-1"), 0);
	CHECK_MEM(u.b, want, sizeof(want));

	memset(name, 'n', sizeof(name));
	name[254] = '\0';
	memset(want, 0, sizeof(want));
	memcpy(want + 2, name, 254);
	memset(&u, 0xee, sizeof(u));
	CHECK_EQ(rtrs_info_req_init(&u.req, name), 0);
	CHECK_MEM(u.b, want, sizeof(want));

	name[254] = 'n';
	name[255] = '\0';
	CHECK_EQ(rtrs_info_req_init(&u.req, name), -EINVAL);
	name[255] = 'n';
	name[299] = '\0';
	CHECK_EQ(rtrs_info_req_init(&u.req, name), -EINVAL);
	CHECK_EQ(rtrs_info_req_init(&u.req, ""), 0);
	memset(want, 0, sizeof(want));
	CHECK_MEM(u.b, want, sizeof(want));
}

#define MAX_DESCS	8

struct info_buf {
	union {
		struct rtrs_msg_info_rsp rsp;
		u8 b[8 + 16 * MAX_DESCS];
	};
};

static size_t info_rsp(struct info_buf *m, unsigned int cnt,
		       const u64 *addr, const u32 *len)
{
	unsigned int i;

	memset(m, 0, sizeof(*m));
	put16(m->b, RTRS_MSG_INFO_RSP);
	put16(m->b + 2, cnt);
	for (i = 0; i < cnt; i++) {
		put64(m->b + 8 + 16 * i, addr[i]);
		put32(m->b + 8 + 16 * i + 8, 0x100 + i);
		put32(m->b + 8 + 16 * i + 12, len[i]);
	}
	return 8 + 16 * cnt;
}

static void test_info_rsp(void)
{
	struct rtrs_conn_params p = { .queue_depth = 4, .chunk_size = 8192 };
	struct rtrs_rbuf rb[6];
	struct info_buf m;
	u64 a[MAX_DESCS];
	u32 l[MAX_DESCS];
	size_t n;
	int i, ok;

	/* one MR per chunk (always_invalidate=Y) */
	for (i = 0; i < 4; i++) {
		a[i] = 0x10000000ULL * (i + 1);
		l[i] = 8192;
	}
	n = info_rsp(&m, 4, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	for (i = 0, ok = 1; i < 4; i++)
		ok &= rb[i].addr == a[i] && rb[i].rkey == 0x100U + i;
	CHECK(ok);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n + 100, &p, rb, p.queue_depth), 0);

	/* one MR for everything */
	a[0] = 0xffff888000000000ULL;
	l[0] = 4 * 8192;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	for (i = 0, ok = 1; i < 4; i++)
		ok &= rb[i].addr == a[0] + 8192ULL * i && rb[i].rkey == 0x100;
	CHECK(ok);

	/* uneven: 3 + 1 chunks (qd % sg_cnt == 0 is not required) */
	p.queue_depth = 5;
	a[0] = 0x1000000;
	l[0] = 3 * 8192;
	a[1] = 0x9000000;
	l[1] = 2 * 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rb[0].addr, 0x1000000);
	CHECK_EQ(rb[2].addr, 0x1000000 + 2 * 8192);
	CHECK_EQ(rb[2].rkey, 0x100);
	CHECK_EQ(rb[3].addr, 0x9000000);
	CHECK_EQ(rb[4].addr, 0x9000000 + 8192);
	CHECK_EQ(rb[4].rkey, 0x101);
	l[0] = 4 * 8192;
	l[1] = 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rb[4].addr, 0x9000000);

	/* too many chunks: nothing past rbufs[qd - 1] is written */
	p.queue_depth = 4;
	memset(rb, 0x5a, sizeof(rb));
	l[0] = 3 * 8192;
	l[1] = 3 * 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rb[4].addr, 0x5a5a5a5a5a5a5a5aULL);
	l[0] = 5 * 8192;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rb[4].addr, 0x5a5a5a5a5a5a5a5aULL);
	/* more descriptors than chunks */
	for (i = 0; i < 5; i++)
		l[i] = 8192;
	n = info_rsp(&m, 5, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rb[4].addr, 0x5a5a5a5a5a5a5a5aULL);

	/* too few */
	l[0] = 3 * 8192;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	n = info_rsp(&m, 3, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);

	/* lengths that are 0 or not a multiple of the chunk */
	l[0] = 2 * 8192;
	l[1] = 0;
	l[2] = 2 * 8192;
	n = info_rsp(&m, 3, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	l[0] = 2 * 8192 + 1;
	l[1] = 2 * 8192 - 1;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	l[0] = 4096;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);

	/* sg_cnt 0, bad type, short buffers */
	l[0] = 4 * 8192;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n - 1, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rtrs_info_rsp_parse(&m, 8, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rtrs_info_rsp_parse(&m, 7, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rtrs_info_rsp_parse(&m, 0, &p, rb, p.queue_depth), -EPROTO);
	CHECK_EQ(rtrs_info_rsp_parse(NULL, n, &p, rb, p.queue_depth), -EPROTO);
	put16(m.b, RTRS_MSG_RKEY_RSP);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	n = info_rsp(&m, 0, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, sizeof(m), &p, rb, p.queue_depth), -EPROTO);
	/* sg_cnt says 2, only 1 desc received */
	l[0] = 2 * 8192;
	l[1] = 2 * 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n - 16, &p, rb, p.queue_depth), -EPROTO);

	/* addresses must not wrap */
	a[0] = U64_MAX - 3 * 8192;
	l[0] = 4 * 8192;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rb[3].addr, U64_MAX);
	a[0] = U64_MAX - 3 * 8192 + 1;
	n = info_rsp(&m, 1, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	a[0] = 0x1000;
	a[1] = U64_MAX;
	l[0] = 3 * 8192;
	l[1] = 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), 0);
	CHECK_EQ(rb[3].addr, U64_MAX);
	l[0] = 2 * 8192;
	l[1] = 2 * 8192;
	n = info_rsp(&m, 2, a, l);
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);

	/* big chunks and the largest queue */
	p.queue_depth = 512;
	p.chunk_size = 131072;
	{
		static struct rtrs_rbuf big[512];

		a[0] = 0x100000000ULL;
		l[0] = 256 * 131072;
		a[1] = 0x900000000ULL;
		l[1] = 256 * 131072;
		n = info_rsp(&m, 2, a, l);
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, p.queue_depth), 0);
		CHECK_EQ(big[255].addr, 0x100000000ULL + 255ULL * 131072);
		CHECK_EQ(big[256].addr, 0x900000000ULL);
		CHECK_EQ(big[511].addr, 0x900000000ULL + 255ULL * 131072);
		CHECK_EQ(big[511].rkey, 0x101);

		/*
		 * a client that uses fewer chunks than the server has gets
		 * only those, and the whole table is still checked
		 */
		memset(big, 0xa5, sizeof(big));
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, 300), 0);
		CHECK_EQ(big[299].addr, 0x900000000ULL + 43ULL * 131072);
		CHECK_EQ(big[300].addr, 0xa5a5a5a5a5a5a5a5ULL);
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, 1), 0);
		CHECK_EQ(big[0].addr, 0x100000000ULL);
		put32(m.b + 8 + 16 + 12, 255 * 131072);
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, 300), -EPROTO);
		put32(m.b + 8 + 16 + 12, 256 * 131072);
		/* more entries than the server has chunks: refused */
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, 513), -EPROTO);
		CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, big, 0), -EPROTO);
	}

	/* unusable params */
	p.queue_depth = 0;
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
	p.queue_depth = 4;
	p.chunk_size = 0;
	CHECK_EQ(rtrs_info_rsp_parse(&m, n, &p, rb, p.queue_depth), -EPROTO);
}

static void test_rkey_rsp(void)
{
	union {
		struct rtrs_msg_rkey_rsp rsp;
		u8 b[16];
	} u;
	u32 rkey = 0;

	memset(&u, 0, sizeof(u));
	put16(u.b, RTRS_MSG_RKEY_RSP);
	put16(u.b + 2, 7);
	put32(u.b + 4, 0xdeadbe01);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 512, 7, &rkey), 0);
	CHECK_EQ(rkey, 0xdeadbe01);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 16, 8, 7, &rkey), 0);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 7, 512, 7, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 0, 512, 7, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(NULL, 8, 512, 7, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 512, 6, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 512, 7 + 65536, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 7, 7, &rkey), -EPROTO);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 0, 7, &rkey), -EPROTO);
	put16(u.b, RTRS_MSG_INFO_RSP);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 512, 7, &rkey), -EPROTO);
	put16(u.b, RTRS_MSG_RKEY_RSP);
	put16(u.b + 2, 65535);
	put32(u.b + 4, 1);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 65535, 65535, &rkey), -EPROTO);
	put16(u.b + 2, 65534);
	CHECK_EQ(rtrs_rkey_rsp_parse(&u, 8, 65535, 65534, &rkey), 0);
	CHECK_EQ(rkey, 1);
}

static void test_io_hdrs(void)
{
	static const u8 want_rd[24] = {
		0x03, 0x00, 0x80, 0x00, 0x01, 0x00, 0x01, 0x00,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0x44, 0x33, 0x22, 0x11, 0x00, 0x00, 0x02, 0x00,
	};
	static const u8 want_rd0[8] = {
		0x03, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	};
	static const u8 want_wr[4] = { 0x02, 0x00, 0x34, 0x12 };
	union {
		struct rtrs_msg_rdma_read rd;
		struct rtrs_msg_rdma_write wr;
		u8 b[32];
	} u;

	memset(&u, 0xcc, sizeof(u));
	CHECK_EQ(rtrs_read_msg_init(&u.rd, 128, 0x0102030405060708ULL,
				    0x11223344, 131072, true), 24);
	CHECK_MEM(u.b, want_rd, sizeof(want_rd));
	CHECK_EQ(u.b[24], 0xcc);

	/* without NEED_INVAL only the flags differ */
	memset(&u, 0xcc, sizeof(u));
	CHECK_EQ(rtrs_read_msg_init(&u.rd, 128, 0x0102030405060708ULL,
				    0x11223344, 131072, false), 24);
	CHECK_EQ(u.b[4], 0x00);
	CHECK_MEM(u.b + 5, want_rd + 5, sizeof(want_rd) - 5);

	memset(&u, 0xcc, sizeof(u));
	CHECK_EQ(rtrs_read_msg_init(&u.rd, 256, 0x1234, 0x99, 0, true), 8);
	CHECK_MEM(u.b, want_rd0, sizeof(want_rd0));
	CHECK_EQ(u.b[8], 0xcc);

	memset(&u, 0xcc, sizeof(u));
	CHECK_EQ(rtrs_write_msg_init(&u.wr, 0x1234), 4);
	CHECK_MEM(u.b, want_wr, sizeof(want_wr));
	CHECK_EQ(u.b[4], 0xcc);
}

void test_msgs(void)
{
	test_conn_req();
	test_conn_rsp();
	test_conn_rej();
	test_info_req();
	test_info_rsp();
	test_rkey_rsp();
	test_io_hdrs();
}
