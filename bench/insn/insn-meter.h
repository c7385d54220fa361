/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * insn-meter.h: the marker shared by the QEMU plugin (insn-meter.c) and the guest tool
 * (insn-mark.c).
 *
 * A guest marks a point by executing, back to back,
 *
 *	mov $(INSN_MARK_MAGIC | cmd), %eax	(b8 imm32)
 *	cpuid				(0f a2)
 *
 * with %rsi = address and %rdi = length of a byte string in its own address space (the
 * phase label, or the range table). The plugin recognises the pair when it translates a
 * block, and reads %rsi/%rdi and the string when the cpuid is about to execute. cpuid is
 * harmless anywhere and the leaf lies in the reserved range above the hypervisor leaves, so
 * without the plugin the marker does nothing.
 */
#ifndef INSN_METER_H
#define INSN_METER_H

#define INSN_MARK_MAGIC		0x5a17e500u
#define INSN_MARK_MASK		0xffffff00u

enum insn_mark_cmd {
	INSN_MARK_START = 1,	/* string: label; begin a phase (counters snapshotted) */
	INSN_MARK_STOP = 2,	/* string: label; end the phase, print its counts */
	INSN_MARK_RANGES = 3,	/* string: range table, replaces the current one */
	INSN_MARK_SNAP = 4,	/* string: label; print counts since START, phase goes on */
};

/* The longest string a marker hands over (a range table of a few dozen lines fits). */
#define INSN_MARK_MAX_LEN	65536

/*
 * INSN_MARK(cmd, str, len) executes the marker (guest programs). @cmd must be a constant:
 * it is the immediate of the mov the plugin decodes.
 */
#define INSN_MARK(cmd, str, len)						\
	do {									\
		unsigned int a_, b_, c_, d_;					\
		__asm__ volatile("mov %4, %%eax\n\tcpuid"			\
				 : "=a"(a_), "=b"(b_), "=c"(c_), "=d"(d_)	\
				 : "i"(INSN_MARK_MAGIC | (cmd)), "S"(str), "D"(len)	\
				 : "memory");					\
		(void)a_; (void)b_; (void)c_; (void)d_;				\
	} while (0)

#endif
