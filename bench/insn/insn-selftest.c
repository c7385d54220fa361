// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-selftest.c - guest workloads of known instruction count, for checking insn-meter
 * (selftest.sh runs it in a guest). Each is one phase between markers, in this process.
 *
 *   loop N     phase "loop": N iterations of "dec; jnz" (2 N user instructions)
 *   rep N      phase "rep": one "rep movsb" of N bytes (shows how TCG counts it)
 *   syscall N  phase "syscall": N getppid() calls (user and kernel work per call)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "insn-meter.h"

int main(int argc, char **argv)
{
	unsigned long n = argc == 3 ? strtoul(argv[2], NULL, 0) : 0;

	if (argc != 3 || !n) {
		fprintf(stderr, "usage: insn-selftest loop|rep|syscall N\n");
		return 2;
	}
	if (!strcmp(argv[1], "loop")) {
		unsigned long c = n;

		INSN_MARK(INSN_MARK_START, "loop", 4);
		__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(c));
		INSN_MARK(INSN_MARK_STOP, "loop", 4);
	} else if (!strcmp(argv[1], "rep")) {
		char *src = malloc(n), *dst = malloc(n);
		unsigned long c = n;
		char *s = src, *d = dst;

		if (!src || !dst)
			return 1;
		memset(src, 1, n);	/* both buffers faulted in before the phase */
		memset(dst, 0, n);
		INSN_MARK(INSN_MARK_START, "rep", 3);
		__asm__ volatile("rep movsb" : "+S"(s), "+D"(d), "+c"(c) : : "memory");
		INSN_MARK(INSN_MARK_STOP, "rep", 3);
		free(src);
		free(dst);
	} else if (!strcmp(argv[1], "syscall")) {
		INSN_MARK(INSN_MARK_START, "syscall", 7);
		for (unsigned long i = 0; i < n; i++)
			syscall(SYS_getppid);
		INSN_MARK(INSN_MARK_STOP, "syscall", 7);
	} else {
		fprintf(stderr, "insn-selftest: unknown workload %s\n", argv[1]);
		return 2;
	}
	return 0;
}
