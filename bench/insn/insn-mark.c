// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-mark.c - the guest side of insn-meter: executes the marker of insn-meter.h that
 * the QEMU plugin watches for. Built static, so it runs in any guest root.
 *
 *   insn-mark start LABEL          begin phase LABEL (the plugin snapshots its counters)
 *   insn-mark stop [LABEL]         end the phase, the plugin prints its counts
 *   insn-mark snap [LABEL]         print the counts so far, the phase goes on
 *   insn-mark ranges FILE|-        hand the plugin a range table ("BUCKET START END" lines)
 *   insn-mark run LABEL CMD [ARG...]   start, run CMD and wait for it, stop; exits as CMD
 *
 * Without the plugin the marker is a plain cpuid and does nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "insn-meter.h"

static int usage(void)
{
	fprintf(stderr, "usage: insn-mark start LABEL | stop [LABEL] | snap [LABEL] | ranges FILE|- |\n"
			"       run LABEL CMD [ARG...]\n");
	return 2;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);

	if (!f || !buf) {
		fprintf(stderr, "insn-mark: %s: %s\n", path, strerror(errno));
		free(buf);
		return NULL;
	}
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (n < cap)
			break;
		if (cap >= INSN_MARK_MAX_LEN) {
			fprintf(stderr, "insn-mark: %s: longer than %d bytes\n", path, INSN_MARK_MAX_LEN);
			free(buf);
			return NULL;
		}
		cap *= 2;
		char *p = realloc(buf, cap);

		if (!p) {
			free(buf);
			return NULL;
		}
		buf = p;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	const char *label = argc > 2 ? argv[2] : "";
	size_t llen = strlen(label);

	if (!strcmp(cmd, "start") && argc == 3) {
		INSN_MARK(INSN_MARK_START, label, llen);
	} else if (!strcmp(cmd, "stop") && argc <= 3) {
		INSN_MARK(INSN_MARK_STOP, label, llen);
	} else if (!strcmp(cmd, "snap") && argc <= 3) {
		INSN_MARK(INSN_MARK_SNAP, label, llen);
	} else if (!strcmp(cmd, "ranges") && argc == 3) {
		size_t len;
		char *t = read_all(argv[2], &len);

		if (!t)
			return 1;
		INSN_MARK(INSN_MARK_RANGES, t, len);
		free(t);
	} else if (!strcmp(cmd, "run") && argc >= 4) {
		int st;
		pid_t pid;

		fflush(NULL);
		INSN_MARK(INSN_MARK_START, label, llen);
		pid = fork();
		if (pid == 0) {
			execvp(argv[3], argv + 3);
			fprintf(stderr, "insn-mark: %s: %s\n", argv[3], strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0) {
			fprintf(stderr, "insn-mark: %s: %s\n", argv[3], strerror(errno));
			st = 127 << 8;
		}
		INSN_MARK(INSN_MARK_STOP, label, llen);
		return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	} else {
		return usage();
	}
	return 0;
}
