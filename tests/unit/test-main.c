// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-main.c - runs every group of unit tests and prints the totals as the
 * last line, "<passed> passed, <failed> failed"; exits 1 on any failure.
 */
#include "test.h"

unsigned int t_passed, t_failed;
struct net init_net;

void t_report(bool ok, const char *file, int line, const char *what,
	      long long got, long long want, bool show)
{
	if (ok) {
		t_passed++;
		return;
	}
	t_failed++;
	if (show)
		printf("FAIL %s:%d: %s (got %lld / 0x%llx, want %lld / 0x%llx)\n",
		       file, line, what, got, (unsigned long long)got, want,
		       (unsigned long long)want);
	else
		printf("FAIL %s:%d: %s\n", file, line, what);
}

void t_report_mem(const char *file, int line, const char *what,
		  const void *got, const void *want, size_t n)
{
	const u8 *g = got, *w = want;
	size_t i;

	for (i = 0; i < n; i++)
		if (g[i] != w[i])
			break;
	if (i == n) {
		t_passed++;
		return;
	}
	t_failed++;
	printf("FAIL %s:%d: %s differs at byte %zu: got 0x%02x, want 0x%02x\n",
	       file, line, what, i, g[i], w[i]);
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} groups[] = {
		{ "layout", test_layout },
		{ "msgs", test_msgs },
		{ "imm", test_imm },
		{ "addr", test_addr },
		{ "sysfs", test_sysfs },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		unsigned int p = t_passed, f = t_failed;

		groups[i].fn();
		printf("%-8s %u passed, %u failed\n", groups[i].name,
		       t_passed - p, t_failed - f);
	}
	printf("%u passed, %u failed\n", t_passed, t_failed);
	return t_failed ? 1 : 0;
}
