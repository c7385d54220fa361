/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host-compat.h - just enough of the kernel's API for rtrs-proto.h and rtrs.c
 * to build and run as a normal user-space program, so the protocol code can
 * be unit tested on the build host.
 *
 * Everything here is a small re-implementation on top of libc that behaves
 * like the kernel helper it stands in for, for the inputs rtrs.c gives it.
 * The integer parsers follow the kernel's kstrto*() rules closely because the
 * sysfs parsers are tested through them: optional sign, base prefixes for base
 * 0, one trailing newline allowed, -ERANGE on overflow, -EINVAL otherwise.
 */
#ifndef RTRS_HOST_COMPAT_H
#define RTRS_HOST_COMPAT_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <limits.h>
#include <endian.h>
#include <ctype.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>

/*
 * struct rtrs_msg_conn_rsp has a member named errno, as upstream does; libc
 * makes errno a macro. Nothing built against this header uses libc's errno.
 */
#undef errno

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

typedef u16 __le16;
typedef u32 __le32;
typedef u64 __le64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u8 __u8;
typedef u64 __u64;

#define cpu_to_le16(x)	((__le16)htole16(x))
#define cpu_to_le32(x)	((__le32)htole32(x))
#define cpu_to_le64(x)	((__le64)htole64(x))
#define le16_to_cpu(x)	((u16)le16toh(x))
#define le32_to_cpu(x)	((u32)le32toh(x))
#define le64_to_cpu(x)	((u64)le64toh(x))
#define cpu_to_be16(x)	((__be16)htobe16(x))
#define cpu_to_be32(x)	((__be32)htobe32(x))
#define cpu_to_be64(x)	((__be64)htobe64(x))
#define be16_to_cpu(x)	((u16)be16toh(x))
#define be32_to_cpu(x)	((u32)be32toh(x))
#define be64_to_cpu(x)	((u64)be64toh(x))

#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#ifndef NAME_MAX
#define NAME_MAX	255
#endif

/* The kernel's uuid_t: 16 raw bytes, byte aligned */
#define UUID_SIZE	16
struct host_uuid {
	__u8 b[UUID_SIZE];
};

#define uuid_t struct host_uuid

/*
 * One- or two-argument static_assert, like the kernel's: a false @expr
 * declares an array of negative size.
 */
#undef static_assert
#define static_assert(expr, ...)	\
	extern int host_static_assert[(expr) ? 1 : -1]

/* Exports mean nothing here; expand to a harmless declaration */
#define EXPORT_SYMBOL(sym)	extern int host_export_##sym

static inline unsigned long long host_min_ull(unsigned long long a,
					      unsigned long long b)
{
	return a < b ? a : b;
}

/* for the unsigned types rtrs.c uses it with */
#define min_t(t, a, b)	((t)host_min_ull(a, b))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* fls(): 1-based index of the most significant set bit, 0 for 0 */
static inline int fls(unsigned int x)
{
	return x ? (int)(sizeof(x) * 8) - __builtin_clz(x) : 0;
}

/* ------------------------------------------------------------ memory */

#define GFP_KERNEL	0U

static inline char *kstrndup(const char *s, size_t max, unsigned int gfp)
{
	(void)gfp;
	return strndup(s, max);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

/* ------------------------------------------------------------ kstrto*() */

/*
 * Digits of @s in @base (2..16) into @out. Returns the number of digits
 * consumed; sets *@ovf when the value does not fit 64 bits.
 */
static inline size_t host_parse_digits(const char *s, unsigned int base,
				       unsigned long long *out, bool *ovf)
{
	unsigned long long v = 0;
	size_t n = 0;

	*ovf = false;
	for (;; n++) {
		int c = tolower((unsigned char)s[n]);
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		if (d >= base)
			break;
		if (v > (ULLONG_MAX - d) / base)
			*ovf = true;
		v = v * base + d;
	}
	*out = v;
	return n;
}

/* The unsigned core: no sign accepted here */
static inline int host_kstrtoull_nosign(const char *s, unsigned int base,
					unsigned long long *res)
{
	unsigned long long v;
	size_t n;
	bool ovf;

	if (base == 0) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2]))
			base = 16;
		else if (s[0] == '0')
			base = 8;
		else
			base = 10;
	}
	if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x')
		s += 2;
	n = host_parse_digits(s, base, &v, &ovf);
	if (ovf)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

static inline int kstrtoull(const char *s, unsigned int base,
			    unsigned long long *res)
{
	return host_kstrtoull_nosign(s[0] == '+' ? s + 1 : s, base, res);
}

static inline int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	int err;

	if (s[0] != '-') {
		err = kstrtoull(s, base, &v);
		if (err)
			return err;
		if (v > (unsigned long long)LLONG_MAX)
			return -ERANGE;
		*res = (long long)v;
		return 0;
	}
	err = host_kstrtoull_nosign(s + 1, base, &v);
	if (err)
		return err;
	if (v > (unsigned long long)LLONG_MAX + 1)
		return -ERANGE;
	*res = v ? -(long long)(v - 1) - 1 : 0;
	return 0;
}

static inline int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	int err = kstrtoll(s, base, &v);

	if (err)
		return err;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = (int)v;
	return 0;
}

static inline int kstrtouint(const char *s, unsigned int base,
			     unsigned int *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (err)
		return err;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)v;
	return 0;
}

static inline int kstrtou16(const char *s, unsigned int base, u16 *res)
{
	unsigned long long v;
	int err = kstrtoull(s, base, &v);

	if (err)
		return err;
	if (v > U16_MAX)
		return -ERANGE;
	*res = (u16)v;
	return 0;
}

/* Equal, except that either string may end in one '\n' the other lacks */
static inline bool sysfs_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (*a == *b)
		return true;
	if (!*a && *b == '\n' && !b[1])
		return true;
	return *a == '\n' && !a[1] && !*b;
}

/* ------------------------------------------------------------ addresses */

#ifndef AF_IB
#define AF_IB		27
#endif

/* include/rdma/rdma_cm.h */
#define RDMA_IB_IP_PS_MASK	0xFFFFFFFFFFFF0000ULL
#define RDMA_IB_IP_PS_TCP	0x0000000001060000ULL
#define RDMA_IB_IP_PS_UDP	0x0000000001110000ULL
#define RDMA_IB_IP_PS_IB	0x00000000013F0000ULL

/* include/rdma/ib.h: same layout as the kernel's */
struct ib_addr {
	union {
		__u8	uib_addr8[16];
		__be16	uib_addr16[8];
		__be32	uib_addr32[4];
		__be64	uib_addr64[2];
	} ib_u;
};

#define sib_raw		ib_u.uib_addr8

struct sockaddr_ib {
	unsigned short int	sib_family;
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	struct ib_addr		sib_addr;
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

static_assert(sizeof(struct sockaddr_ib) <= sizeof(struct sockaddr_storage));

/* include/rtrs.h (the kernel header needs kernel-only includes) */
struct rtrs_addr {
	struct sockaddr_storage *src;
	struct sockaddr_storage *dst;
};

struct net {
	int unused;
};

/* defined by the test program */
extern struct net init_net;

/*
 * in6_pton(): parse @srclen bytes of @src (all of it if negative), stopping
 * early at @delim, as an IPv6 address (an embedded dotted quad allowed).
 * Returns 1 on success, 0 on failure, like the kernel's.
 */
static inline int in6_pton(const char *src, int srclen, u8 *dst, int delim,
			   const char **end)
{
	char buf[64];
	int n = 0;

	if (srclen < 0)
		srclen = (int)strlen(src);
	while (n < srclen && src[n] && src[n] != delim) {
		if (n == (int)sizeof(buf) - 1)
			goto fail;
		buf[n] = src[n];
		n++;
	}
	buf[n] = '\0';
	if (end)
		*end = src + n;
	return inet_pton(AF_INET6, buf, dst) == 1;
fail:
	if (end)
		*end = src + n;
	return 0;
}

/*
 * inet_pton_with_scope(), for @af == AF_UNSPEC: IPv4 first, then IPv6 with an
 * optional "%scope" that is used only for a link-local address. On the host
 * a scope is always numeric (there are no net devices to look up).
 */
static inline int inet_pton_with_scope(struct net *net, int af,
				       const char *src, const char *port,
				       struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	const char *pct;
	char buf[64];
	u16 portnum = 0;
	size_t len;

	(void)net;
	if (af != AF_UNSPEC)
		return -EINVAL;
	if (port && kstrtou16(port, 0, &portnum))
		return -EINVAL;

	len = strlen(src);
	if (len < sizeof(buf)) {
		memcpy(buf, src, len + 1);
		/* the kernel's IPv4 parser stops at a newline */
		buf[strcspn(buf, "\n")] = '\0';
		if (inet_pton(AF_INET, buf, &sin->sin_addr) == 1) {
			sin->sin_family = AF_INET;
			sin->sin_port = htons(portnum);
			return 0;
		}
	}
	if (len > 48)
		return -EINVAL;
	if (!in6_pton(src, (int)len, sin6->sin6_addr.s6_addr, '%', &pct))
		return -EINVAL;
	if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr) && *pct == '%') {
		char scope[16];
		size_t n = min_t(size_t, sizeof(scope) - 1, strlen(pct + 1));
		unsigned int id;

		memcpy(scope, pct + 1, n);
		scope[n] = '\0';
		if (kstrtouint(scope, 0, &id))
			return -EINVAL;
		sin6->sin6_scope_id = id;
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(portnum);
	return 0;
}

#endif /* RTRS_HOST_COMPAT_H */
