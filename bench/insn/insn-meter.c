// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-meter.c - a QEMU TCG plugin that counts the guest instructions each vCPU executes,
 * split by where they run: user space, the kernel, and named ranges of kernel text (the
 * modules of the stacks under test).
 *
 * Counting: every translated block adds its instruction count, by an inline op (no call
 * out of the generated code), to one slot of a per-vCPU scoreboard chosen by the block's
 * start address: one slot for user space (below the canonical hole), one for the kernel
 * outside the window, and one per page (2^shift bytes) of the window, which by default is
 * the x86-64 module area. The slot is a function of the address alone, so a block
 * translated before a module's range was known is still counted right, and so is a module
 * loaded later at the addresses of one that was unloaded (each load writes its text, which
 * drops the blocks QEMU had translated from those pages). Named ranges are applied when
 * counts are printed, to the pages they cover.
 *
 * Phases: the guest marks them with the marker of insn-meter.h (insn-mark.c runs it): a
 * START snapshots every vCPU's counters, a STOP prints the difference per vCPU and bucket,
 * a RANGES hands over the table of named ranges from guest memory. At exit the totals
 * since QEMU started are printed as phase "exit". Output goes through qemu_plugin_outs,
 * which QEMU writes where `-d plugin -D FILE` says.
 *
 * Arguments (-plugin insn-meter.so,ARG=VALUE,...):
 *   ranges=FILE   a range table on the host, read at start and again at a START or report
 *                 when the file changed since (another way to hand ranges over than the
 *                 RANGES marker; whichever came last is in force)
 *   lo=ADDR hi=ADDR   the window counted per page (0xffffffffc0000000-0xffffffffff000000)
 *   shift=N       log2 of the window's granule in bytes (12; 4..24)
 *   detail=B[:B...]   also print, at each report, every granule of the named buckets that
 *                 ran (address and count, all vCPUs): with shift=4 and 16-byte-aligned
 *                 functions each granule lies in one function (profile.py maps them)
 *
 * Range table: one range a line, "BUCKET START END" (hex, END exclusive), '#' comments.
 * Several lines may name the same bucket; a page claimed by two lines counts for the
 * first. Ranges must lie in the window. What no range claims counts as "kernel" (and is
 * also shown as "unclaimed", with the busiest such pages, so a missed range is visible).
 *
 * Exactness: a block's count is added when the block starts, so a block left early (a
 * fault in its middle) counts its whole length; x86 string instructions with a rep prefix
 * count once per iteration TCG runs them in a block of their own. Both are deterministic
 * for a deterministic guest, which is what comparing two builds needs.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <qemu-plugin.h>

#include "insn-meter.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define USER_TOP	0x0000800000000000ull	/* first address past x86-64 user space */
#define TOP_UNCLAIMED	5			/* busiest unclaimed pages listed per report */

enum { SLOT_USER, SLOT_KERNEL, SLOT_WINDOW };

struct range {
	char *bucket;
	uint64_t start, end;
};

struct table {
	struct range *r;
	size_t n;
};

struct vcpu_regs {
	struct qemu_plugin_register *rax, *rsi, *rdi;
};

static uint64_t win_lo = 0xffffffffc0000000ull;
static uint64_t win_hi = 0xffffffffff000000ull;
static unsigned int win_shift = 12;
static size_t nslots;			/* SLOT_WINDOW + pages of the window */
static struct qemu_plugin_scoreboard *score;

/* Everything below is touched by marker callbacks and at exit only, under lock. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct table ranges;
static char *ranges_path;
static gint64 ranges_mtime = -1;	/* of ranges_path when last read */
static struct vcpu_regs *regs;
static unsigned int nregs;
static uint64_t *base;			/* counters at START, nslots per vCPU */
static unsigned int base_vcpus;
static char *phase;			/* label of the running phase, NULL if none */
static gchar **detail;			/* buckets whose granules are listed, NULL-terminated */
static GByteArray *membuf, *regbuf;

static size_t slot_of(uint64_t pc)
{
	if (pc < USER_TOP)
		return SLOT_USER;
	if (pc >= win_lo && pc < win_hi)
		return SLOT_WINDOW + ((pc - win_lo) >> win_shift);
	return SLOT_KERNEL;
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->r[i].bucket);
	free(t->r);
	t->r = NULL;
	t->n = 0;
}

static bool reserved_name(const char *s)
{
	static const char *const names[] = { "total", "user", "kernel", "unclaimed" };

	for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

static bool valid_name(const char *s)
{
	if (!*s || reserved_name(s))
		return false;
	for (; *s; s++)
		if (!g_ascii_isalnum(*s) && *s != '_' && *s != '-' && *s != '.')
			return false;
	return true;
}

/* Parse a range table; on error say where and leave @out untouched. */
static bool table_parse(const char *text, struct table *out, GString *err)
{
	struct table t = { 0 };
	gchar **lines = g_strsplit(text, "\n", -1);
	bool ok = true;

	for (size_t i = 0; lines[i] && ok; i++) {
		char name[64], a[32], b[32], extra[2];
		char *hash = strchr(lines[i], '#'), *ea, *eb;
		struct range r;
		int n;

		if (hash)
			*hash = '\0';
		n = sscanf(lines[i], "%63s %31s %31s %1s", name, a, b, extra);
		if (n <= 0)
			continue;
		errno = 0;
		r.start = strtoull(a, &ea, 16);
		r.end = strtoull(b, &eb, 16);
		if (n != 3 || !valid_name(name) || *ea || *eb || errno || r.start >= r.end) {
			g_string_append_printf(err, "line %zu: want \"BUCKET START END\"", i + 1);
			ok = false;
		} else if (r.start < win_lo || r.end > win_hi) {
			g_string_append_printf(err, "line %zu: %s 0x%" PRIx64 "-0x%" PRIx64
					       " is outside the window 0x%" PRIx64 "-0x%" PRIx64,
					       i + 1, name, r.start, r.end, win_lo, win_hi);
			ok = false;
		} else {
			r.bucket = strdup(name);
			t.r = realloc(t.r, (t.n + 1) * sizeof(*t.r));
			if (!r.bucket || !t.r) {
				g_string_append(err, "out of memory");
				free(r.bucket);
				ok = false;
			} else {
				t.r[t.n++] = r;
			}
		}
	}
	g_strfreev(lines);
	if (!ok) {
		table_free(&t);
		return false;
	}
	table_free(out);
	*out = t;
	return true;
}

static void set_ranges(const char *text, const char *from)
{
	GString *msg = g_string_new(NULL);

	if (table_parse(text, &ranges, msg)) {
		g_string_printf(msg, "insn-meter: ranges from %s:", from);
		for (size_t i = 0; i < ranges.n; i++)
			g_string_append_printf(msg, " %s=0x%" PRIx64 "-0x%" PRIx64, ranges.r[i].bucket,
					       ranges.r[i].start, ranges.r[i].end);
		if (!ranges.n)
			g_string_append(msg, " none");
	} else {
		g_string_prepend(msg, ": ");
		g_string_prepend(msg, from);
		g_string_prepend(msg, "insn-meter: bad range table, kept the old one: ");
	}
	g_string_append_c(msg, '\n');
	qemu_plugin_outs(msg->str);
	g_string_free(msg, TRUE);
}

static void load_ranges_file(void)
{
	gchar *text = NULL;
	GError *e = NULL;

	GStatBuf st;

	if (!ranges_path)
		return;
	if (g_stat(ranges_path, &st) == 0) {
		gint64 m = (gint64)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;

		if (m == ranges_mtime)
			return;
		ranges_mtime = m;
	}
	if (!g_file_get_contents(ranges_path, &text, NULL, &e)) {
		GString *msg = g_string_new(NULL);

		g_string_printf(msg, "insn-meter: cannot read %s: %s\n", ranges_path, e->message);
		qemu_plugin_outs(msg->str);
		g_string_free(msg, TRUE);
		g_error_free(e);
		return;
	}
	set_ranges(text, ranges_path);
	g_free(text);
}

/* Copy every vCPU's counters into @dst (nslots per vCPU); returns the number of vCPUs. */
static unsigned int snapshot(uint64_t **dst)
{
	unsigned int nv = qemu_plugin_num_vcpus();
	uint64_t *p = realloc(*dst, (size_t)nv * nslots * sizeof(uint64_t));

	if (!p)
		return 0;
	for (unsigned int v = 0; v < nv; v++)
		memcpy(p + (size_t)v * nslots, qemu_plugin_scoreboard_find(score, v),
		       nslots * sizeof(uint64_t));
	*dst = p;
	return nv;
}

struct page_count {
	size_t slot;
	uint64_t n;
};

static void note_unclaimed(struct page_count *top, size_t slot, uint64_t n)
{
	size_t i = TOP_UNCLAIMED;

	while (i > 0 && top[i - 1].n < n) {
		if (i < TOP_UNCLAIMED)
			top[i] = top[i - 1];
		i--;
	}
	if (i < TOP_UNCLAIMED)
		top[i] = (struct page_count){ slot, n };
}

/*
 * Print the counts executed since @from (NULL: since QEMU started) as phase @label:
 * one line for all vCPUs, one per vCPU, then the busiest unclaimed pages.
 */
static void report(const char *label, const uint64_t *from, unsigned int from_vcpus)
{
	size_t npages = nslots - SLOT_WINDOW, nb = 0;
	uint64_t *now = NULL, *sum;
	int *owner = malloc(npages * sizeof(int));
	const char **bname = calloc(ranges.n + 1, sizeof(char *));
	struct page_count top[TOP_UNCLAIMED] = { 0 };
	unsigned int nv;
	GString *out;

	load_ranges_file();
	nv = snapshot(&now);
	if (!owner || !bname || !nv) {
		qemu_plugin_outs("insn-meter: out of memory while reporting\n");
		goto done;
	}
	/* buckets in table order; page owners, first claim wins */
	for (size_t p = 0; p < npages; p++)
		owner[p] = -1;
	for (size_t i = 0; i < ranges.n; i++) {
		const struct range *r = &ranges.r[i];
		size_t b = 0;

		while (b < nb && strcmp(bname[b], r->bucket))
			b++;
		if (b == nb)
			bname[nb++] = r->bucket;
		for (size_t p = slot_of(r->start) - SLOT_WINDOW; p <= slot_of(r->end - 1) - SLOT_WINDOW; p++)
			if (owner[p] < 0)
				owner[p] = (int)b;
	}
	/* per vCPU: total, user, kernel, buckets..., unclaimed; row nv sums them */
	const size_t ncol = 5 + nb;
	sum = calloc((size_t)(nv + 1) * ncol, sizeof(uint64_t));
	if (!sum) {
		qemu_plugin_outs("insn-meter: out of memory while reporting\n");
		goto done;
	}
	for (unsigned int v = 0; v < nv; v++) {
		const uint64_t *c = now + (size_t)v * nslots;
		const uint64_t *b = from && v < from_vcpus ? from + (size_t)v * nslots : NULL;
		uint64_t *row = sum + (size_t)v * ncol;

		for (size_t s = 0; s < nslots; s++) {
			uint64_t d = c[s] - (b ? b[s] : 0);

			if (!d)
				continue;
			row[0] += d;
			if (s == SLOT_USER) {
				row[1] += d;
			} else if (s == SLOT_KERNEL || owner[s - SLOT_WINDOW] < 0) {
				row[2] += d;
				if (s != SLOT_KERNEL)
					row[3 + nb] += d;
			} else {
				row[3 + owner[s - SLOT_WINDOW]] += d;
			}
		}
		for (size_t k = 0; k < ncol; k++)
			sum[(size_t)nv * ncol + k] += row[k];
	}
	for (size_t p = 0; p < npages; p++) {
		uint64_t n = 0;

		if (owner[p] >= 0)
			continue;
		for (unsigned int v = 0; v < nv; v++)
			n += now[(size_t)v * nslots + SLOT_WINDOW + p] -
			     (from && v < from_vcpus ? from[(size_t)v * nslots + SLOT_WINDOW + p] : 0);
		if (n)
			note_unclaimed(top, SLOT_WINDOW + p, n);
	}
	out = g_string_new(NULL);
	for (unsigned int r = 0; r <= nv; r++) {
		const uint64_t *row = sum + (size_t)(r == 0 ? nv : r - 1) * ncol;

		g_string_append_printf(out, "insn-meter: phase=%s vcpu=", label);
		if (r == 0)
			g_string_append(out, "all");
		else
			g_string_append_printf(out, "%u", r - 1);
		g_string_append_printf(out, " total=%" PRIu64 " user=%" PRIu64 " kernel=%" PRIu64,
				       row[0], row[1], row[2]);
		for (size_t b = 0; b < nb; b++)
			g_string_append_printf(out, " %s=%" PRIu64, bname[b], row[3 + b]);
		g_string_append_printf(out, " unclaimed=%" PRIu64 "\n", row[3 + nb]);
	}
	for (size_t i = 0; i < TOP_UNCLAIMED && top[i].n; i++)
		g_string_append_printf(out, "insn-meter: phase=%s unclaimed-page=0x%" PRIx64 " insns=%" PRIu64 "\n",
				       label, win_lo + ((uint64_t)(top[i].slot - SLOT_WINDOW) << win_shift),
				       top[i].n);
	/* the granules of the detail buckets, in address order */
	for (size_t p = 0; detail && p < npages; p++) {
		uint64_t n = 0;

		if (owner[p] < 0 || !g_strv_contains((const gchar *const *)detail, bname[owner[p]]))
			continue;
		for (unsigned int v = 0; v < nv; v++)
			n += now[(size_t)v * nslots + SLOT_WINDOW + p] -
			     (from && v < from_vcpus ? from[(size_t)v * nslots + SLOT_WINDOW + p] : 0);
		if (n)
			g_string_append_printf(out, "insn-meter: phase=%s detail=%s addr=0x%" PRIx64 " insns=%" PRIu64 "\n",
					       label, bname[owner[p]], win_lo + ((uint64_t)p << win_shift), n);
	}
	qemu_plugin_outs(out->str);
	g_string_free(out, TRUE);
	free(sum);
done:
	free(now);
	free(owner);
	free(bname);
}

static uint64_t read_reg(struct qemu_plugin_register *h)
{
	uint64_t v = 0;
	int n;

	g_byte_array_set_size(regbuf, 0);
	n = qemu_plugin_read_register(h, regbuf);
	if (n <= 0)
		return 0;
	for (int i = n < 8 ? n : 8; i-- > 0;)	/* x86 registers are little-endian */
		v = v << 8 | regbuf->data[i];
	return v;
}

/* A cpuid that may be a marker is about to execute on @vcpu. */
static void on_cpuid(unsigned int vcpu, void *udata)
{
	uint64_t rax, addr, len;
	char *arg = NULL;
	unsigned int cmd;
	GString *msg;

	(void)udata;
	pthread_mutex_lock(&lock);
	if (vcpu >= nregs || !regs[vcpu].rax || !regs[vcpu].rsi || !regs[vcpu].rdi)
		goto out;
	rax = read_reg(regs[vcpu].rax);
	if (((uint32_t)rax & INSN_MARK_MASK) != INSN_MARK_MAGIC)
		goto out;
	cmd = rax & ~INSN_MARK_MASK;
	addr = read_reg(regs[vcpu].rsi);
	len = read_reg(regs[vcpu].rdi);
	msg = g_string_new(NULL);
	if (len > INSN_MARK_MAX_LEN) {
		g_string_printf(msg, "insn-meter: marker %u on vCPU %u: string of %" PRIu64 " bytes ignored\n",
				cmd, vcpu, len);
		qemu_plugin_outs(msg->str);
		len = 0;
	} else if (len) {
		g_byte_array_set_size(membuf, 0);
		if (!qemu_plugin_read_memory_vaddr(addr, membuf, len)) {
			g_string_printf(msg, "insn-meter: marker %u on vCPU %u: cannot read 0x%" PRIx64 "+%" PRIu64 "\n",
					cmd, vcpu, addr, len);
			qemu_plugin_outs(msg->str);
			len = 0;
		}
	}
	arg = len ? g_strndup((const char *)membuf->data, len) : g_strdup("");
	g_string_truncate(msg, 0);
	switch (cmd) {
	case INSN_MARK_START:
		if (phase) {
			g_string_printf(msg, "insn-meter: phase=%s restarted as %s\n", phase, arg);
			qemu_plugin_outs(msg->str);
		}
		load_ranges_file();
		base_vcpus = snapshot(&base);
		g_free(phase);
		phase = g_strdup(*arg ? arg : "phase");
		g_string_printf(msg, "insn-meter: phase=%s start vcpu=%u\n", phase, vcpu);
		qemu_plugin_outs(msg->str);
		break;
	case INSN_MARK_STOP:
	case INSN_MARK_SNAP:
		if (!phase) {
			g_string_printf(msg, "insn-meter: marker %u (%s) with no phase started\n", cmd, arg);
			qemu_plugin_outs(msg->str);
			break;
		}
		if (*arg && strcmp(arg, phase)) {
			g_string_printf(msg, "insn-meter: phase=%s ended by a marker labelled %s\n", phase, arg);
			qemu_plugin_outs(msg->str);
		}
		report(phase, base, base_vcpus);
		if (cmd == INSN_MARK_STOP) {
			g_free(phase);
			phase = NULL;
		}
		break;
	case INSN_MARK_RANGES:
		set_ranges(arg, "the guest");
		break;
	default:
		g_string_printf(msg, "insn-meter: unknown marker %u on vCPU %u\n", cmd, vcpu);
		qemu_plugin_outs(msg->str);
	}
	g_string_free(msg, TRUE);
out:
	g_free(arg);
	pthread_mutex_unlock(&lock);
}

static bool is_mark_mov(const struct qemu_plugin_insn *insn)
{
	uint8_t b[5];
	uint32_t imm;

	if (qemu_plugin_insn_size(insn) != 5 || qemu_plugin_insn_data(insn, b, 5) != 5 || b[0] != 0xb8)
		return false;
	imm = (uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 | (uint32_t)b[4] << 24;
	return (imm & INSN_MARK_MASK) == INSN_MARK_MAGIC;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_u64 slot = { score, slot_of(qemu_plugin_tb_vaddr(tb)) * sizeof(uint64_t) };

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb, QEMU_PLUGIN_INLINE_ADD_U64, slot, n);
	/*
	 * Markers: a cpuid right after "mov $magic, %eax", or first in its block (the pair split
	 * over two blocks); on_cpuid checks %eax when it runs.
	 */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint8_t b[2];

		if (qemu_plugin_insn_size(insn) != 2 || qemu_plugin_insn_data(insn, b, 2) != 2 ||
		    b[0] != 0x0f || b[1] != 0xa2)
			continue;
		if (i == 0 || is_mark_mov(qemu_plugin_tb_get_insn(tb, i - 1)))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cpuid, QEMU_PLUGIN_CB_R_REGS, NULL);
	}
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *all = qemu_plugin_get_registers();
	struct vcpu_regs r = { 0 };

	(void)id;
	for (guint i = 0; all && i < all->len; i++) {
		qemu_plugin_reg_descriptor *d = &g_array_index(all, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, "rax"))
			r.rax = d->handle;
		else if (!strcmp(d->name, "rsi"))
			r.rsi = d->handle;
		else if (!strcmp(d->name, "rdi"))
			r.rdi = d->handle;
	}
	if (all)
		g_array_free(all, TRUE);
	pthread_mutex_lock(&lock);
	if (vcpu >= nregs) {
		struct vcpu_regs *p = realloc(regs, (vcpu + 1) * sizeof(*p));

		if (p) {
			memset(p + nregs, 0, (vcpu + 1 - nregs) * sizeof(*p));
			regs = p;
			nregs = vcpu + 1;
		}
	}
	if (vcpu < nregs)
		regs[vcpu] = r;
	pthread_mutex_unlock(&lock);
	if (!r.rax || !r.rsi || !r.rdi)
		qemu_plugin_outs("insn-meter: no rax/rsi/rdi among the vCPU's registers: markers are ignored\n");
}

static void on_atexit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	if (phase) {
		GString *msg = g_string_new(NULL);

		g_string_printf(msg, "insn-meter: phase=%s never stopped\n", phase);
		qemu_plugin_outs(msg->str);
		g_string_free(msg, TRUE);
	}
	report("exit", NULL, 0);
	table_free(&ranges);
	free(base);
	free(regs);
	g_free(phase);
	g_free(ranges_path);
	g_strfreev(detail);
	g_byte_array_free(membuf, TRUE);
	g_byte_array_free(regbuf, TRUE);
	pthread_mutex_unlock(&lock);
	qemu_plugin_scoreboard_free(score);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *e;

	errno = 0;
	*v = strtoull(s, &e, 0);
	return *s && !*e && !errno;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	uint64_t v;

	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn-meter: target %s: only x86_64 is supported\n", info->target_name);
		return -1;
	}
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		const char *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - a) : strlen(a);

		if (klen == 6 && !strncmp(a, "ranges", 6) && *val) {
			g_free(ranges_path);
			ranges_path = g_strdup(val);
		} else if (klen == 2 && !strncmp(a, "lo", 2) && parse_u64(val, &v)) {
			win_lo = v;
		} else if (klen == 2 && !strncmp(a, "hi", 2) && parse_u64(val, &v)) {
			win_hi = v;
		} else if (klen == 5 && !strncmp(a, "shift", 5) && parse_u64(val, &v) && v >= 4 && v <= 24) {
			win_shift = (unsigned int)v;
		} else if (klen == 6 && !strncmp(a, "detail", 6) && *val) {
			/* ':' separates: QEMU's option syntax takes ',' between arguments */
			g_strfreev(detail);
			detail = g_strsplit(val, ":", -1);
		} else {
			fprintf(stderr, "insn-meter: bad argument '%s' (ranges=FILE lo=ADDR hi=ADDR shift=4..24 detail=B:B...)\n", a);
			return -1;
		}
	}
	if (win_lo < USER_TOP || win_hi <= win_lo || ((win_hi - win_lo) >> win_shift) > (1u << 24)) {
		fprintf(stderr, "insn-meter: bad window 0x%" PRIx64 "-0x%" PRIx64 " (kernel half, at most 2^24 granules)\n",
			win_lo, win_hi);
		return -1;
	}
	win_lo &= ~((1ull << win_shift) - 1);
	nslots = SLOT_WINDOW + ((win_hi - win_lo + (1ull << win_shift) - 1) >> win_shift);
	score = qemu_plugin_scoreboard_new(nslots * sizeof(uint64_t));
	membuf = g_byte_array_new();
	regbuf = g_byte_array_new();
	if (!score)
		return -1;
	if (ranges_path) {
		pthread_mutex_lock(&lock);
		load_ranges_file();
		pthread_mutex_unlock(&lock);
	}
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
	return 0;
}
