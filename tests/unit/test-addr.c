// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-addr.c - path address strings: "ip:" (IPv4, IPv6, IPv6 with a
 * numeric scope) and "gid:" forms, the src/dst separators, and errors.
 * Every string is copied into a buffer of exactly @len bytes without a NUL,
 * so the sanitizer build catches a read past @len.
 */
#include "test.h"

static struct sockaddr_storage src_ss, dst_ss;
static struct rtrs_addr addr;

static int parse_n(const char *s, size_t len, u16 port)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, s, len);
	memset(&src_ss, 0xee, sizeof(src_ss));
	memset(&dst_ss, 0xee, sizeof(dst_ss));
	addr.src = &src_ss;
	addr.dst = &dst_ss;
	ret = rtrs_clt_addr_to_sockaddr(copy, len, port, &addr);
	free(copy);
	return ret;
}

static int parse(const char *s, u16 port)
{
	return parse_n(s, strlen(s), port);
}

static bool is_v4(const struct sockaddr_storage *ss, const char *ip, u16 port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;
	struct in_addr a;

	inet_pton(AF_INET, ip, &a);
	return sin->sin_family == AF_INET && sin->sin_port == htons(port) &&
	       sin->sin_addr.s_addr == a.s_addr;
}

static bool is_v6(const struct sockaddr_storage *ss, const char *ip, u16 port,
		  u32 scope)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;
	struct in6_addr a;

	inet_pton(AF_INET6, ip, &a);
	return sin6->sin6_family == AF_INET6 &&
	       sin6->sin6_port == htons(port) &&
	       sin6->sin6_scope_id == scope &&
	       !memcmp(&sin6->sin6_addr, &a, sizeof(a));
}

static bool is_gid(const struct sockaddr_storage *ss, const u8 *raw, u16 port)
{
	const struct sockaddr_ib *sib = (const struct sockaddr_ib *)ss;
	static const u8 sid[8] = { 0, 0, 0, 0, 0x01, 0x3f };
	u8 want_sid[8];

	memcpy(want_sid, sid, 8);
	want_sid[6] = port >> 8;
	want_sid[7] = port & 0xff;
	return sib->sib_family == AF_IB &&
	       !memcmp(&sib->sib_sid, want_sid, 8) &&
	       sib->sib_sid_mask == U64_MAX &&
	       sib->sib_pkey == 0xffff && sib->sib_flowinfo == 0 &&
	       sib->sib_scope_id == 0 &&
	       !memcmp(sib->sib_addr.sib_raw, raw, 16);
}

static void test_dst_only(void)
{
	static const u8 gid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x00, 0x5a, 0xee, 0xfe, 0xaa, 0x20, 0xa2,
	};
	static const u8 gid2[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1,
	};

	CHECK_EQ(parse("ip:192.168.1.1", 1234), 0);
	CHECK(!addr.src);
	CHECK(is_v4(&dst_ss, "192.168.1.1", 1234));
	CHECK_EQ(parse("ip:10.0.0.255", 65535), 0);
	CHECK(is_v4(&dst_ss, "10.0.0.255", 65535));

	CHECK_EQ(parse("ip:fe80::200:5aee:feaa:20a2", 1234), 0);
	CHECK(!addr.src);
	CHECK(is_v6(&dst_ss, "fe80::200:5aee:feaa:20a2", 1234, 0));
	CHECK_EQ(parse("ip:2001:db8::1", 80), 0);
	CHECK(is_v6(&dst_ss, "2001:db8::1", 80, 0));
	CHECK_EQ(parse("ip:::ffff:10.0.0.1", 1), 0);
	CHECK(is_v6(&dst_ss, "::ffff:10.0.0.1", 1, 0));

	/* a numeric scope is used for a link-local address only */
	CHECK_EQ(parse("ip:fe80::1%3", 1234), 0);
	CHECK(is_v6(&dst_ss, "fe80::1", 1234, 3));
	CHECK_EQ(parse("ip:fe80::1%0x10", 1234), 0);
	CHECK(is_v6(&dst_ss, "fe80::1", 1234, 16));
	CHECK_EQ(parse("ip:2001:db8::1%7", 1234), 0);
	CHECK(is_v6(&dst_ss, "2001:db8::1", 1234, 0));
	CHECK_EQ(parse("ip:fe80::1%", 1234), -EINVAL);
	CHECK_EQ(parse("ip:fe80::1%3x", 1234), -EINVAL);

	CHECK_EQ(parse("gid:fe80::200:5aee:feaa:20a2", 1234), 0);
	CHECK(!addr.src);
	CHECK(is_gid(&dst_ss, gid, 1234));
	CHECK_EQ(parse("gid:::ffff:10.0.0.1", 0), 0);
	CHECK(is_gid(&dst_ss, gid2, 0));
	/* high ports stay in the IB port space (no sign extension) */
	CHECK_EQ(parse("gid:fe80::200:5aee:feaa:20a2", 40000), 0);
	CHECK(is_gid(&dst_ss, gid, 40000));
	CHECK_EQ(parse("gid:fe80::200:5aee:feaa:20a2", 65535), 0);
	CHECK(is_gid(&dst_ss, gid, 65535));
}

static void test_src_dst(void)
{
	static const u8 gid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x22,
	};

	CHECK_EQ(parse("ip:10.0.0.1@ip:10.0.0.2", 1234), 0);
	CHECK(addr.src == &src_ss);
	CHECK(is_v4(&src_ss, "10.0.0.1", 0));
	CHECK(is_v4(&dst_ss, "10.0.0.2", 1234));

	CHECK_EQ(parse("ip:10.0.0.1,ip:10.0.0.2", 1234), 0);
	CHECK(addr.src == &src_ss);
	CHECK(is_v4(&src_ss, "10.0.0.1", 0));
	CHECK(is_v4(&dst_ss, "10.0.0.2", 1234));

	CHECK_EQ(parse("ip:fe80::1%2,ip:fe80::2%2", 99), 0);
	CHECK(is_v6(&src_ss, "fe80::1", 0, 2));
	CHECK(is_v6(&dst_ss, "fe80::2", 99, 2));

	CHECK_EQ(parse("gid:fe80::11@gid:fe80::22", 1234), 0);
	CHECK(is_gid(&dst_ss, gid, 1234));
	CHECK(((struct sockaddr_ib *)&src_ss)->sib_family == AF_IB);

	/* mixed families are the caller's business */
	CHECK_EQ(parse("ip:10.0.0.1@gid:fe80::22", 7), 0);
	CHECK(is_v4(&src_ss, "10.0.0.1", 0));
	CHECK(is_gid(&dst_ss, gid, 7));

	/* ',' is looked for first: here the source is "ip:1.1.1.1@ip:..." */
	CHECK_EQ(parse("ip:1.1.1.1@ip:2.2.2.2,ip:3.3.3.3", 1), -EINVAL);
	CHECK_EQ(parse("ip:1.1.1.1,ip:2.2.2.2@ip:3.3.3.3", 1), -EINVAL);
}

static void test_errors(void)
{
	/* bad destination: errors come back as they are */
	CHECK_EQ(parse("", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("ip", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("gid", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("tcp:10.0.0.1", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("IP:10.0.0.1", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("10.0.0.1", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse(" ip:10.0.0.1", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("ip:", 1), -EINVAL);
	CHECK_EQ(parse("gid:", 1), -EINVAL);
	CHECK_EQ(parse("ip:10.0.0.256", 1), -EINVAL);
	CHECK_EQ(parse("ip:10.0.0", 1), -EINVAL);
	CHECK_EQ(parse("ip:10.0.0.1 ", 1), -EINVAL);
	CHECK_EQ(parse("ip:hostname", 1), -EINVAL);
	CHECK_EQ(parse("ip:fe80::1::2", 1), -EINVAL);
	CHECK_EQ(parse("gid:10.0.0.1", 1), -EINVAL);
	CHECK_EQ(parse("gid:fe80::1%3", 1), -EINVAL);
	CHECK_EQ(parse("gid:fe80:::1", 1), -EINVAL);
	CHECK_EQ(parse("gid:fe80::1 ", 1), -EINVAL);
	CHECK_EQ(parse("gid:1:2:3:4:5:6:7:8:9", 1), -EINVAL);
	CHECK_EQ(parse("garbage!@#$%^&*()", 1), -EINVAL);
	CHECK_EQ(parse("garbage", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("ip:10.0.0.1@tcp:10.0.0.2", 1), -EPROTONOSUPPORT);
	CHECK_EQ(parse("ip:10.0.0.1@ip:10.0.0.x", 1), -EINVAL);
	CHECK_EQ(parse("ip:10.0.0.1@", 1), -EPROTONOSUPPORT);

	/* bad source: always -EINVAL */
	CHECK_EQ(parse("tcp:10.0.0.1@ip:10.0.0.2", 1), -EINVAL);
	CHECK_EQ(parse("ip:10.0.0.300@ip:10.0.0.2", 1), -EINVAL);
	CHECK_EQ(parse("@ip:10.0.0.2", 1), -EINVAL);
	CHECK_EQ(parse(",ip:10.0.0.2", 1), -EINVAL);
	CHECK_EQ(parse("gid:zz@gid:fe80::1", 1), -EINVAL);

	/* only @len bytes count */
	CHECK_EQ(parse_n("ip:10.0.0.1@ip:10.0.0.2", 11, 5), 0);
	CHECK(!addr.src);
	CHECK(is_v4(&dst_ss, "10.0.0.1", 5));
	CHECK_EQ(parse_n("ip:10.0.0.12", 11, 5), 0);
	CHECK(is_v4(&dst_ss, "10.0.0.1", 5));
	CHECK_EQ(parse_n("ip:10.0.0.1", 8, 5), -EINVAL);
	CHECK_EQ(parse_n("ip:10.0.0.1", 2, 5), -EPROTONOSUPPORT);
	CHECK_EQ(parse_n("gid:fe80::1", 3, 5), -EPROTONOSUPPORT);
	CHECK_EQ(parse_n("ip:10.0.0.1", 0, 5), -EPROTONOSUPPORT);
	CHECK_EQ(parse_n("ip:1.2.3.4,ip:5.6.7.8", 10, 5), 0);
	CHECK(!addr.src);
	CHECK(is_v4(&dst_ss, "1.2.3.4", 5));
	CHECK_EQ(parse_n("ip:1.2.3.4,ip:5.6.7.89", 21, 5), 0);
	CHECK(is_v4(&src_ss, "1.2.3.4", 0));
	CHECK(is_v4(&dst_ss, "5.6.7.8", 5));
	CHECK_EQ(parse_n("gid:fe80::12", 11, 5), 0);
	/* a NUL inside @len ends the string */
	CHECK_EQ(parse_n("ip:10.0.0.1\0@ip:10.0.0.2", 24, 5), 0);
	CHECK(!addr.src);
	CHECK(is_v4(&dst_ss, "10.0.0.1", 5));
}

void test_addr(void)
{
	test_dst_only();
	test_src_dst();
	test_errors();
}
