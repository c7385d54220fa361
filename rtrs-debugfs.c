// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-debugfs.c - /sys/kernel/debug/rtrs-client/: what an operator or a
 * test may want to see that upstream's sysfs ABI has no file for.
 *
 *   <sessname>/poll   completions of polled queues, by who reaped them:
 *                     "direct" the user's rtrs_clt_rdma_cq_direct(),
 *                     "swept" the fallback sweeper (nobody polled)
 *   <sessname>/hold   the I/O hold through outages (io_hold_sec)
 *   <sessname>/requests  user requests accepted, completed (conf_fn calls),
 *                     in flight (the difference), and stray completions
 *                     refused (always 0 unless we have a bug): at rest,
 *                     in_flight 0 says every request completed exactly once;
 *                     timed_out: paths failed by the I/O timeout
 *                     (io_timeout_sec)
 *   fail_post/        fault injection (kernels with FAULT_INJECTION_DEBUG_FS;
 *                     Documentation/fault-injection): a post of a work request
 *                     on a connection fails with -ENOMEM as if the queue were
 *                     full. Off (probability 0) until a test turns it on.
 *
 * debugfs is optional: a failure to create a file is not an error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/seq_file.h>

#include "rtrs-pri.h"

static struct dentry *rtrs_debugfs_root;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(rtrs_fail_post);

/**
 * rtrs_should_fail_post() - whether to fail the next post (fault injection)
 *
 * Context: any.
 * Return: true when debugfs fail_post says this post fails.
 */
bool rtrs_should_fail_post(void)
{
	return should_fail(&rtrs_fail_post, 1);
}
#endif

static int rtrs_poll_show(struct seq_file *m, void *unused)
{
	struct rtrs_clt_sess *clt = m->private;

	seq_printf(m, "direct %lld\nswept %lld\n",
		   (s64)atomic64_read(&clt->poll_direct),
		   (s64)atomic64_read(&clt->poll_swept));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtrs_poll);

static int rtrs_hold_show(struct seq_file *m, void *unused)
{
	static const char * const names[] = {
		[RTRS_HOLD_NONE]	= "none",
		[RTRS_HOLD_HOLDING]	= "holding",
		[RTRS_HOLD_RESUMING]	= "resuming",
		[RTRS_HOLD_EXPIRED]	= "expired",
	};
	struct rtrs_clt_sess *clt = m->private;
	int state = READ_ONCE(clt->hold_state);

	seq_printf(m, "io_hold_sec %d\nstate %s\nheld %u\n",
		   READ_ONCE(clt->io_hold_sec),
		   state < ARRAY_SIZE(names) ? names[state] : "?",
		   READ_ONCE(clt->held_num));
	seq_printf(m, "outages %lld\nresumed %lld\nexpired %lld\nheld_total %lld\n",
		   (s64)atomic64_read(&clt->hold_stats[RTRS_HOLD_STAT_STARTED]),
		   (s64)atomic64_read(&clt->hold_stats[RTRS_HOLD_STAT_RESUMED]),
		   (s64)atomic64_read(&clt->hold_stats[RTRS_HOLD_STAT_EXPIRED]),
		   (s64)atomic64_read(&clt->hold_stats[RTRS_HOLD_STAT_REQS]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtrs_hold);

static int rtrs_requests_show(struct seq_file *m, void *unused)
{
	struct rtrs_clt_sess *clt = m->private;
	/* completed first: a request accepted in between only adds to in_flight */
	s64 done = atomic64_read(&clt->reqs[RTRS_REQS_COMPLETED]);
	s64 acc = atomic64_read(&clt->reqs[RTRS_REQS_ACCEPTED]);

	seq_printf(m, "accepted %lld\ncompleted %lld\nin_flight %lld\nstray %lld\ntimed_out %lld\n",
		   acc, done, acc - done,
		   (s64)atomic64_read(&clt->reqs[RTRS_REQS_STRAY]),
		   (s64)atomic64_read(&clt->reqs[RTRS_REQS_TIMED_OUT]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rtrs_requests);

/**
 * rtrs_debugfs_init() - create the module's debugfs directory
 */
void rtrs_debugfs_init(void)
{
	rtrs_debugfs_root = debugfs_create_dir("rtrs-client", NULL);
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_post", rtrs_debugfs_root, &rtrs_fail_post);
#endif
}

/**
 * rtrs_debugfs_exit() - remove the module's debugfs directory
 */
void rtrs_debugfs_exit(void)
{
	debugfs_remove_recursive(rtrs_debugfs_root);
	rtrs_debugfs_root = NULL;
}

/**
 * rtrs_debugfs_add_sess() - the directory of an opened session
 * @clt: the session; its name is unique (sysfs refused duplicates)
 */
void rtrs_debugfs_add_sess(struct rtrs_clt_sess *clt)
{
	clt->debugfs = debugfs_create_dir(clt->sessname, rtrs_debugfs_root);
	debugfs_create_file("poll", 0444, clt->debugfs, clt, &rtrs_poll_fops);
	debugfs_create_file("hold", 0444, clt->debugfs, clt, &rtrs_hold_fops);
	debugfs_create_file("requests", 0444, clt->debugfs, clt,
			    &rtrs_requests_fops);
}

/**
 * rtrs_debugfs_del_sess() - remove a session's directory; before it is freed
 * @clt: the session
 */
void rtrs_debugfs_del_sess(struct rtrs_clt_sess *clt)
{
	debugfs_remove_recursive(clt->debugfs);
	clt->debugfs = NULL;
}
