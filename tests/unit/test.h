/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test.h - a minimal check framework for the host unit tests.
 *
 * Every CHECK*() counts one passed or one failed check; a failure prints the
 * file, line and the values compared. main() prints the totals.
 */
#ifndef RTRS_TEST_H
#define RTRS_TEST_H

#include "host-compat.h"
#include "rtrs-proto.h"

extern unsigned int t_passed, t_failed;

void t_report(bool ok, const char *file, int line, const char *what,
	      long long got, long long want, bool show);
void t_report_mem(const char *file, int line, const char *what,
		  const void *got, const void *want, size_t n);

#define CHECK(cond) \
	t_report(!!(cond), __FILE__, __LINE__, #cond, 0, 0, false)

#define CHECK_EQ(got, want) do {					\
	long long __g = (long long)(got), __w = (long long)(want);	\
	t_report(__g == __w, __FILE__, __LINE__, #got " == " #want,	\
		 __g, __w, true);					\
} while (0)

#define CHECK_MEM(got, want, n) \
	t_report_mem(__FILE__, __LINE__, #got, got, want, n)

/* Little-endian stores for building the server's messages by hand */
static inline void put16(u8 *p, u16 v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

static inline void put32(u8 *p, u32 v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static inline void put64(u8 *p, u64 v)
{
	put32(p, v & 0xffffffffU);
	put32(p + 4, v >> 32);
}

void test_layout(void);
void test_msgs(void);
void test_imm(void);
void test_addr(void);
void test_sysfs(void);

#endif /* RTRS_TEST_H */
