// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-imm.c - the 32-bit immediates: the limits check, the I/O request
 * encoding decoded the way the server decodes it, and the I/O response.
 */
#include "test.h"

/* Bits to number n items, counted the slow way */
static u32 slow_bits(u32 n)
{
	u32 b = 0;

	while (n > 1 && b < 32 && ((n - 1) >> b))
		b++;
	return b;
}

static void test_bits(void)
{
	static const u32 v[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 9, 511, 512, 513, 4096, 4097,
		65535, 65536, 65537, 131072, 131073, 0x80000000U, U32_MAX,
	};
	size_t i;
	int ok = 1;

	CHECK_EQ(rtrs_bits_for(0), 0);
	CHECK_EQ(rtrs_bits_for(1), 0);
	CHECK_EQ(rtrs_bits_for(2), 1);
	CHECK_EQ(rtrs_bits_for(512), 9);
	CHECK_EQ(rtrs_bits_for(513), 10);
	CHECK_EQ(rtrs_bits_for(65535), 16);
	CHECK_EQ(rtrs_bits_for(131072), 17);
	CHECK_EQ(rtrs_bits_for(U32_MAX), 32);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		ok &= rtrs_bits_for(v[i]) == slow_bits(v[i]);
	CHECK(ok);

	CHECK_EQ(rtrs_imm(RTRS_HB_MSG_IMM, 0), 0x80000000U);
	CHECK_EQ(rtrs_imm(RTRS_HB_ACK_IMM, 0), 0x90000000U);
	CHECK_EQ(rtrs_imm(RTRS_IO_RSP_IMM, 0xfffffff), 0x1fffffffU);
	CHECK_EQ(rtrs_imm(RTRS_IO_RSP_IMM, 0x1fffffff), 0x1fffffffU);
	CHECK_EQ(rtrs_imm_type(0x2abcdef0), 2);
	CHECK_EQ(rtrs_imm_payload(0x2abcdef0), 0xabcdef0);
}

static void test_limits(void)
{
	CHECK_EQ(rtrs_check_limits(512, 131072), 0);
	CHECK_EQ(rtrs_check_limits(1, 1), 0);
	CHECK_EQ(rtrs_check_limits(1, 1U << 28), 0);		/* 0 + 28 */
	CHECK_EQ(rtrs_check_limits(1, (1U << 28) + 1), -EINVAL);
	CHECK_EQ(rtrs_check_limits(2, 1U << 27), 0);		/* 1 + 27 */
	CHECK_EQ(rtrs_check_limits(2, (1U << 27) + 1), -EINVAL);
	CHECK_EQ(rtrs_check_limits(2048, 131072), 0);		/* 11 + 17 */
	CHECK_EQ(rtrs_check_limits(2049, 131072), -EINVAL);	/* 12 + 17 */
	CHECK_EQ(rtrs_check_limits(2048, 131073), -EINVAL);	/* 11 + 18 */
	CHECK_EQ(rtrs_check_limits(65535, 4096), 0);		/* 16 + 12 */
	CHECK_EQ(rtrs_check_limits(65535, 4097), -EINVAL);	/* 16 + 13 */
	CHECK_EQ(rtrs_check_limits(65535, 8192), -EINVAL);
	CHECK_EQ(rtrs_check_limits(65536, 1), -EINVAL);
	CHECK_EQ(rtrs_check_limits(0, 8192), -EINVAL);
	CHECK_EQ(rtrs_check_limits(512, 0), -EINVAL);
	CHECK_EQ(rtrs_check_limits(U32_MAX, 8192), -EINVAL);
	CHECK_EQ(rtrs_check_limits(1, U32_MAX), -EINVAL);
}

/* What the server does with the payload of an I/O request */
static void server_decode(u32 imm, u32 qd, u32 *id, u32 *off)
{
	u32 mem_bits = RTRS_IMM_PAYLOAD_BITS - slow_bits(qd);
	u32 payload = rtrs_imm_payload(imm);

	*id = payload >> mem_bits;
	*off = payload & ((1U << mem_bits) - 1);
}

static void test_io_req(void)
{
	static const u32 qds[] = { 1, 2, 3, 512, 513, 2048, 65535 };
	static const u32 chunks[] = { 8192, 16384, 32768, 65536, 131072,
				      4096, 12288 };
	struct rtrs_conn_params p = { .queue_depth = 512,
				      .chunk_size = 131072,
				      .imm_shift = 19 };
	size_t i, j, k, l;
	u32 imm = 0;
	int ok = 1, combos = 0;

	CHECK_EQ(rtrs_io_req_imm(5, 0x100, &p, &imm), 0);
	CHECK_EQ(imm, (5U << 19) | 0x100);
	CHECK_EQ(rtrs_io_req_imm(511, 131071, &p, &imm), 0);
	CHECK_EQ(imm, (511U << 19) | 0x1ffff);
	CHECK_EQ(rtrs_io_req_imm(0, 0, &p, &imm), 0);
	CHECK_EQ(imm, 0);
	CHECK_EQ(rtrs_io_req_imm(512, 0, &p, &imm), -EINVAL);
	CHECK_EQ(rtrs_io_req_imm(0, 131072, &p, &imm), -EINVAL);
	CHECK_EQ(rtrs_io_req_imm(U32_MAX, 0, &p, &imm), -EINVAL);

	p.queue_depth = 1;
	p.imm_shift = rtrs_imm_shift(p.queue_depth);
	CHECK_EQ(p.imm_shift, 28);
	CHECK_EQ(rtrs_io_req_imm(0, 0x1234, &p, &imm), 0);
	CHECK_EQ(imm, 0x1234);
	CHECK_EQ(rtrs_io_req_imm(1, 0, &p, &imm), -EINVAL);
	p.queue_depth = 2;
	p.imm_shift = rtrs_imm_shift(p.queue_depth);
	CHECK_EQ(rtrs_io_req_imm(1, 0x1234, &p, &imm), 0);
	CHECK_EQ(imm, (1U << 27) | 0x1234);
	p.queue_depth = 65535;
	p.imm_shift = rtrs_imm_shift(p.queue_depth);
	CHECK_EQ(p.imm_shift, 12);
	p.chunk_size = 4096;
	CHECK_EQ(rtrs_io_req_imm(65534, 4095, &p, &imm), 0);
	CHECK_EQ(imm, (65534U << 12) | 4095);
	/* limits rtrs_check_limits() refuses cannot corrupt the id */
	p.chunk_size = 8192;
	CHECK_EQ(rtrs_io_req_imm(1, 4096, &p, &imm), -EINVAL);

	for (i = 0; i < ARRAY_SIZE(qds); i++) {
		for (j = 0; j < ARRAY_SIZE(chunks); j++) {
			u32 qd = qds[i], cs = chunks[j];
			u32 ids[] = { 0, 1, qd / 2, qd - 1 };
			u32 offs[] = { 0, 1, cs / 2, cs - 8, cs - 1 };

			if (slow_bits(qd) + slow_bits(cs) > 28) {
				ok &= rtrs_check_limits(qd, cs) == -EINVAL;
				continue;
			}
			ok &= rtrs_check_limits(qd, cs) == 0;
			combos++;
			p.queue_depth = qd;
			p.imm_shift = rtrs_imm_shift(qd);
			p.chunk_size = cs;
			for (k = 0; k < ARRAY_SIZE(ids); k++) {
				for (l = 0; l < ARRAY_SIZE(offs); l++) {
					u32 id, off;

					if (ids[k] >= qd)
						continue;
					imm = ~0U;
					ok &= !rtrs_io_req_imm(ids[k], offs[l],
							       &p, &imm);
					ok &= rtrs_imm_type(imm) ==
					      RTRS_IO_REQ_IMM;
					server_decode(imm, qd, &id, &off);
					ok &= id == ids[k] && off == offs[l];
				}
			}
			ok &= rtrs_io_req_imm(qd, 0, &p, &imm) == -EINVAL;
			ok &= rtrs_io_req_imm(0, cs, &p, &imm) == -EINVAL;
		}
	}
	CHECK(ok);
	/* every size fits up to qd 2048 (11 + 17 bits); 65535 only 4K */
	CHECK_EQ(combos, 6 * 7 + 1);
}

static void test_io_rsp(void)
{
	static const u16 qds[] = { 1, 2, 512, 65535 };
	u32 id = 0;
	int err = 0, ok = 1;
	size_t i;
	u32 e;

	CHECK_EQ(rtrs_io_rsp_parse(0, 512, &id, &err), 0);
	CHECK_EQ(id, 0);
	CHECK_EQ(err, 0);
	CHECK_EQ(rtrs_io_rsp_parse((5U << 19) | 17, 512, &id, &err), 0);
	CHECK_EQ(id, 17);
	CHECK_EQ(err, -EIO);
	/* the last errno user space knows passes; the next one does not */
	CHECK_EQ(rtrs_io_rsp_parse((133U << 19) | 3, 512, &id, &err), 0);
	CHECK_EQ(err, -133);
	CHECK_EQ(rtrs_io_rsp_parse((134U << 19) | 3, 512, &id, &err), 0);
	CHECK_EQ(err, -EPROTO);
	/* -ERESTARTSYS must never reach a user */
	CHECK_EQ(rtrs_io_rsp_parse((512U << 19) | 3, 512, &id, &err), 0);
	CHECK_EQ(err, 0);	/* 9 bits: 512 wraps to 0 in the immediate */
	CHECK_EQ(rtrs_io_rsp_parse((511U << 19) | 511, 512, &id, &err), 0);
	CHECK_EQ(err, -EPROTO);
	CHECK_EQ(id, 511);
	CHECK_EQ(rtrs_io_rsp_parse(512, 512, &id, &err), -EPROTO);
	CHECK_EQ(id, 512);
	CHECK_EQ(rtrs_io_rsp_parse(RTRS_IO_RSP_ID_MASK, 65535, &id, &err),
		 -EPROTO);
	CHECK_EQ(rtrs_io_rsp_parse(65534, 65535, &id, &err), 0);
	CHECK_EQ(rtrs_io_rsp_parse(65535, 65535, &id, &err), -EPROTO);
	CHECK_EQ(rtrs_io_rsp_parse(1, 1, &id, &err), -EPROTO);
	CHECK_EQ(rtrs_io_rsp_parse(0, 0, &id, &err), -EPROTO);
	/* the whole immediate, as the server builds it */
	e = rtrs_imm(RTRS_IO_RSP_W_INV_IMM, (28U << 19) | 300);
	CHECK_EQ(rtrs_imm_type(e), RTRS_IO_RSP_W_INV_IMM);
	CHECK_EQ(rtrs_io_rsp_parse(rtrs_imm_payload(e), 512, &id, &err), 0);
	CHECK_EQ(id, 300);
	CHECK_EQ(err, -ENOSPC);

	for (i = 0; i < ARRAY_SIZE(qds); i++) {
		u32 ids[] = { 0, qds[i] / 2U, qds[i] - 1U, qds[i],
			      RTRS_IO_RSP_ID_MASK };

		for (e = 0; e <= 511; e++) {
			size_t k;

			for (k = 0; k < ARRAY_SIZE(ids); k++) {
				u32 pl = (e << 19) | ids[k];
				int want = ids[k] < qds[i] ? 0 : -EPROTO;
				int werr = e <= RTRS_ERRNO_MAX ? -(int)e :
								 -EPROTO;

				ok &= rtrs_io_rsp_parse(pl, qds[i], &id,
							&err) == want;
				ok &= id == ids[k] && err == werr;
			}
		}
	}
	CHECK(ok);
}

void test_imm(void)
{
	test_bits();
	test_limits();
	test_io_req();
	test_io_rsp();
}
