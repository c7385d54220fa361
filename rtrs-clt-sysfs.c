// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-clt-sysfs.c - /sys/class/rtrs-client: the session and path files.
 *
 * Names, modes, read formats and accepted writes are those of upstream's
 * rtrs-client, so that existing tools keep working; see
 * Documentation/ABI/testing/sysfs-class-rtrs-client in this tree.
 *
 * Lifetimes: the session's struct device and the path's kobject own the
 * memory of their objects from allocation on; their release functions
 * free it, so every error path just drops a reference.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/kernfs.h>
#include <rdma/ib.h>

#include "rtrs-pri.h"

static struct class rtrs_clt_class = {
	.name = "rtrs-client",
};

/* ------------------------------------------------------------ addresses */

/**
 * rtrs_clt_sockaddr_to_str() - print an address the way sysfs shows it
 * @addr: an AF_INET, AF_INET6 or AF_IB address
 * @buf: where to print
 * @len: size of @buf
 *
 * Return: characters printed, without the trailing NUL.
 */
int rtrs_clt_sockaddr_to_str(const struct sockaddr *addr, char *buf,
			     size_t len)
{
	switch (addr->sa_family) {
	case AF_IB:
		return scnprintf(buf, len, "gid:%pI6",
				 &((struct sockaddr_ib *)addr)->sib_addr.sib_raw);
	case AF_INET:
		return scnprintf(buf, len, "ip:%pI4",
				 &((struct sockaddr_in *)addr)->sin_addr);
	case AF_INET6:
		return scnprintf(buf, len, "ip:%pI6c",
				 &((struct sockaddr_in6 *)addr)->sin6_addr);
	}
	return scnprintf(buf, len, "<invalid address family>");
}
EXPORT_SYMBOL(rtrs_clt_sockaddr_to_str);

/**
 * rtrs_clt_addr_to_str() - print a path as "<src>@<dst>"
 * @addr: the path's addresses; both must be set
 * @buf: where to print
 * @len: size of @buf
 *
 * Return: characters printed, without the trailing NUL.
 */
int rtrs_clt_addr_to_str(const struct rtrs_addr *addr, char *buf, size_t len)
{
	int cnt;

	cnt = rtrs_clt_sockaddr_to_str((struct sockaddr *)addr->src, buf, len);
	cnt += scnprintf(buf + cnt, len - cnt, "@");
	cnt += rtrs_clt_sockaddr_to_str((struct sockaddr *)addr->dst,
					buf + cnt, len - cnt);
	return cnt;
}
EXPORT_SYMBOL(rtrs_clt_addr_to_str);

/* -------------------------------------------------------- session files */

static struct rtrs_clt_sess *to_clt(struct device *dev)
{
	return container_of(dev, struct rtrs_clt_sess, dev);
}

static ssize_t max_reconnect_attempts_show(struct device *dev,
					   struct device_attribute *attr,
					   char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(to_clt(dev)->max_reconnect_attempts));
}

static ssize_t max_reconnect_attempts_store(struct device *dev,
					    struct device_attribute *attr,
					    const char *buf, size_t count)
{
	int val, err;

	err = rtrs_parse_max_reconnect_attempts(buf, &val);
	if (err)
		return err;
	WRITE_ONCE(to_clt(dev)->max_reconnect_attempts, val);
	return count;
}
static DEVICE_ATTR_RW(max_reconnect_attempts);

/* Ours, not upstream's: Documentation/ABI/testing/sysfs-class-rtrs-client */
static ssize_t io_hold_sec_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_clt(dev)->io_hold_sec));
}

static ssize_t io_hold_sec_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	int val, err;

	err = rtrs_parse_io_hold_sec(buf, &val);
	if (err)
		return err;
	rtrs_clt_set_io_hold(to_clt(dev), val);
	return count;
}
static DEVICE_ATTR_RW(io_hold_sec);

/* Ours, not upstream's: Documentation/ABI/testing/sysfs-class-rtrs-client */
static ssize_t io_timeout_sec_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_clt(dev)->io_timeout_sec));
}

static ssize_t io_timeout_sec_store(struct device *dev,
				    struct device_attribute *attr,
				    const char *buf, size_t count)
{
	unsigned int val;
	int err;

	err = rtrs_parse_io_timeout_sec(buf, &val);
	if (err)
		return err;
	WRITE_ONCE(to_clt(dev)->io_timeout_sec, val);
	return count;
}
static DEVICE_ATTR_RW(io_timeout_sec);

static ssize_t mpath_policy_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	int policy = READ_ONCE(to_clt(dev)->mp_policy);

	switch (policy) {
	case MP_POLICY_RR:
		return sysfs_emit(buf, "round-robin (RR: %d)\n", policy);
	case MP_POLICY_MIN_INFLIGHT:
		return sysfs_emit(buf, "min-inflight (MI: %d)\n", policy);
	case MP_POLICY_MIN_LATENCY:
		return sysfs_emit(buf, "min-latency (ML: %d)\n", policy);
	}
	return sysfs_emit(buf, "Unknown (%d)\n", policy);
}

static ssize_t mpath_policy_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	enum rtrs_mp_policy policy;
	int err;

	err = rtrs_parse_mp_policy(buf, count, &policy);
	if (err)
		return err;
	WRITE_ONCE(to_clt(dev)->mp_policy, policy);
	return count;
}
static DEVICE_ATTR_RW(mpath_policy);

static ssize_t add_path_show(struct device *dev,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf,
			  "Usage: echo [<source addr>@]<destination addr> > %s\n\n*addr ::= [ ip:<ipv4|ipv6> | gid:<gid> ]\n",
			  attr->attr.name);
}

static ssize_t add_path_store(struct device *dev,
			      struct device_attribute *attr,
			      const char *buf, size_t count)
{
	struct rtrs_clt_sess *clt = to_clt(dev);
	struct sockaddr_storage src, dst;
	struct rtrs_addr addr = { .src = &src, .dst = &dst };
	const char *nl = strnchr(buf, count, '\n');
	int err;

	err = rtrs_clt_addr_to_sockaddr(buf, nl ? nl - buf : count, clt->port,
					&addr);
	if (err)
		return -EINVAL;
	err = rtrs_clt_add_path(clt, &addr);
	return err ?: count;
}
static DEVICE_ATTR_RW(add_path);

static struct attribute *rtrs_clt_attrs[] = {
	&dev_attr_max_reconnect_attempts.attr,
	&dev_attr_mpath_policy.attr,
	&dev_attr_add_path.attr,
	&dev_attr_io_hold_sec.attr,
	&dev_attr_io_timeout_sec.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rtrs_clt);

static void rtrs_clt_dev_release(struct device *dev)
{
	rtrs_clt_release(to_clt(dev));
}

/**
 * rtrs_clt_dev_init() - initialise a new session's device; from now on
 * put_device() frees the session
 * @clt: the session, its name set
 */
void rtrs_clt_dev_init(struct rtrs_clt_sess *clt)
{
	device_initialize(&clt->dev);
	clt->dev.class = &rtrs_clt_class;
	clt->dev.groups = rtrs_clt_groups;
	clt->dev.release = rtrs_clt_dev_release;
}

/**
 * rtrs_clt_sysfs_create() - /sys/class/rtrs-client/<sessname>/ and paths/
 * @clt: the session
 *
 * Return: 0, -EEXIST if the name is taken, or -ENOMEM.
 */
int rtrs_clt_sysfs_create(struct rtrs_clt_sess *clt)
{
	int err;

	err = dev_set_name(&clt->dev, "%s", clt->sessname);
	if (err)
		return err;
	err = device_add(&clt->dev);
	if (err)
		return err;
	clt->kobj_paths = kobject_create_and_add("paths", &clt->dev.kobj);
	if (!clt->kobj_paths) {
		device_del(&clt->dev);
		return -ENOMEM;
	}
	return 0;
}

/**
 * rtrs_clt_sysfs_remove() - undo rtrs_clt_sysfs_create(); idempotent
 * @clt: the session, without paths in sysfs
 */
void rtrs_clt_sysfs_remove(struct rtrs_clt_sess *clt)
{
	if (!clt->kobj_paths)
		return;
	kobject_del(clt->kobj_paths);
	kobject_put(clt->kobj_paths);
	clt->kobj_paths = NULL;
	device_del(&clt->dev);
}

/* ----------------------------------------------------------- path files */

#define to_path(k) container_of(k, struct rtrs_path, kobj)

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	if (rtrs_path_state(to_path(kobj)) == RTRS_PATH_CONNECTED)
		return sysfs_emit(buf, "connected\n");
	return sysfs_emit(buf, "disconnected\n");
}

static ssize_t usage_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "Usage: echo 1 > %s\n", attr->attr.name);
}

static ssize_t reconnect_store(struct kobject *kobj,
			       struct kobj_attribute *attr,
			       const char *buf, size_t count)
{
	int err;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	err = rtrs_path_reconnect_now(to_path(kobj));
	return err ?: count;
}

static ssize_t disconnect_store(struct kobject *kobj,
				struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	rtrs_path_close(to_path(kobj));
	return count;
}

static ssize_t remove_path_store(struct kobject *kobj,
				 struct kobj_attribute *attr,
				 const char *buf, size_t count)
{
	struct rtrs_path *path = to_path(kobj);
	struct rtrs_clt_sess *clt = path->clt;
	ssize_t ret = count;

	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	/*
	 * The directory goes away under us: drop our own file first. From
	 * then on this write no longer holds the path or its session alive
	 * (a close may destroy both meanwhile), so take them first.
	 */
	kobject_get(kobj);
	get_device(&clt->dev);
	if (sysfs_remove_file_self(kobj, &attr->attr))
		rtrs_clt_remove_path(path);
	else
		ret = -ENODEV;
	kobject_put(kobj);
	put_device(&clt->dev);
	return ret;
}

static ssize_t hca_name_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", to_path(kobj)->hca_name);
}

static ssize_t hca_port_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", to_path(kobj)->hca_port);
}

static ssize_t src_addr_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	int len;

	len = rtrs_clt_sockaddr_to_str((struct sockaddr *)&to_path(kobj)->src_addr,
				       buf, PAGE_SIZE);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t dst_addr_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	int len;

	len = rtrs_clt_sockaddr_to_str((struct sockaddr *)&to_path(kobj)->dst_addr,
				       buf, PAGE_SIZE);
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t cur_latency_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld ns\n",
			  READ_ONCE(to_path(kobj)->hb_cur_latency));
}

static struct kobj_attribute rtrs_path_state_attr = __ATTR_RO(state);
static struct kobj_attribute rtrs_path_reconnect_attr =
	__ATTR(reconnect, 0644, usage_show, reconnect_store);
static struct kobj_attribute rtrs_path_disconnect_attr =
	__ATTR(disconnect, 0644, usage_show, disconnect_store);
static struct kobj_attribute rtrs_path_remove_attr =
	__ATTR(remove_path, 0644, usage_show, remove_path_store);
static struct kobj_attribute rtrs_path_hca_name_attr = __ATTR_RO(hca_name);
static struct kobj_attribute rtrs_path_hca_port_attr = __ATTR_RO(hca_port);
static struct kobj_attribute rtrs_path_src_addr_attr = __ATTR_RO(src_addr);
static struct kobj_attribute rtrs_path_dst_addr_attr = __ATTR_RO(dst_addr);
static struct kobj_attribute rtrs_path_cur_latency_attr =
	__ATTR_RO(cur_latency);

static struct attribute *rtrs_path_attrs[] = {
	&rtrs_path_state_attr.attr,
	&rtrs_path_reconnect_attr.attr,
	&rtrs_path_disconnect_attr.attr,
	&rtrs_path_remove_attr.attr,
	&rtrs_path_hca_name_attr.attr,
	&rtrs_path_hca_port_attr.attr,
	&rtrs_path_src_addr_attr.attr,
	&rtrs_path_dst_addr_attr.attr,
	&rtrs_path_cur_latency_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rtrs_path);

static void rtrs_path_kobj_release(struct kobject *kobj)
{
	rtrs_path_release(to_path(kobj));
}

static const struct kobj_type rtrs_path_ktype = {
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= rtrs_path_groups,
	.release	= rtrs_path_kobj_release,
};

/* ----------------------------------------------------------- stats files */

#define stats_to_path(k) container_of(k, struct rtrs_path, kobj_stats)

static ssize_t rtrs_stats_cpu_show(struct rtrs_path *path, char *buf,
				   bool from)
{
	struct rtrs_path_stats_pcpu *s;
	int cpu, len = 0;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(path->stats.pcpu, cpu);
		len += sysfs_emit_at(buf, len, "%d ",
				     from ? (int)atomic64_read(&s->cpu_migr_from) :
					    (int)s->cpu_migr_to);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

static ssize_t cpu_migration_from_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	return rtrs_stats_cpu_show(stats_to_path(kobj), buf, true);
}

static ssize_t cpu_migration_to_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return rtrs_stats_cpu_show(stats_to_path(kobj), buf, false);
}

static ssize_t reconnects_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct rtrs_path_stats *s = &stats_to_path(kobj)->stats;

	return sysfs_emit(buf, "%d %d\n", s->reconnect_ok, s->reconnect_fail);
}

static ssize_t rdma_show(struct kobject *kobj, struct kobj_attribute *attr,
			 char *buf)
{
	struct rtrs_path *path = stats_to_path(kobj);
	u64 rc = 0, rb = 0, wc = 0, wb = 0;
	struct rtrs_path_stats_pcpu *s;
	u32 inflight = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(path->stats.pcpu, cpu);
		rc += s->read_cnt;
		rb += s->read_bytes;
		wc += s->write_cnt;
		wb += s->write_bytes;
	}
	/* upstream counts in-flight requests only under min-inflight */
	if (READ_ONCE(path->clt->mp_policy) == MP_POLICY_MIN_INFLIGHT)
		inflight = atomic_read(&path->inflight);
	return sysfs_emit(buf, "%llu %llu %llu %llu %u %llu\n", rc, rb, wc, wb,
			  inflight,
			  (u64)atomic64_read(&path->stats.failover_cnt));
}

static ssize_t reset_all_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "echo 1 to reset all statistics\n");
}

static void rtrs_stats_reset_rdma(struct rtrs_path *path)
{
	struct rtrs_path_stats_pcpu *s;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(path->stats.pcpu, cpu);
		s->read_cnt = 0;
		s->read_bytes = 0;
		s->write_cnt = 0;
		s->write_bytes = 0;
	}
	atomic64_set(&path->stats.failover_cnt, 0);
}

static void rtrs_stats_reset_cpu_migr(struct rtrs_path *path)
{
	struct rtrs_path_stats_pcpu *s;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(path->stats.pcpu, cpu);
		atomic64_set(&s->cpu_migr_from, 0);
		s->cpu_migr_to = 0;
	}
}

static void rtrs_stats_reset_reconnects(struct rtrs_path *path)
{
	path->stats.reconnect_ok = 0;
	path->stats.reconnect_fail = 0;
}

static void rtrs_stats_reset_all(struct rtrs_path *path)
{
	rtrs_stats_reset_rdma(path);
	rtrs_stats_reset_cpu_migr(path);
	rtrs_stats_reset_reconnects(path);
}

/*
 * Each stats file takes "1" and resets the counters it shows, reset_all
 * resets them all, as upstream does. Unlike upstream, the in-flight count
 * is never reset: it is not a statistic but the input of the min-inflight
 * policy, and zeroing it under I/O would drive it negative.
 */
#define RTRS_STATS_STORE(name, reset)					\
static ssize_t name##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	if (!sysfs_streq(buf, "1"))					\
		return -EINVAL;						\
	reset(stats_to_path(kobj));					\
	return count;							\
}

RTRS_STATS_STORE(cpu_migration_from, rtrs_stats_reset_cpu_migr)
RTRS_STATS_STORE(cpu_migration_to, rtrs_stats_reset_cpu_migr)
RTRS_STATS_STORE(reconnects, rtrs_stats_reset_reconnects)
RTRS_STATS_STORE(rdma, rtrs_stats_reset_rdma)
RTRS_STATS_STORE(reset_all, rtrs_stats_reset_all)

static struct kobj_attribute rtrs_stats_from_attr =
	__ATTR_RW(cpu_migration_from);
static struct kobj_attribute rtrs_stats_to_attr =
	__ATTR_RW(cpu_migration_to);
static struct kobj_attribute rtrs_stats_reconnects_attr =
	__ATTR_RW(reconnects);
static struct kobj_attribute rtrs_stats_rdma_attr = __ATTR_RW(rdma);
static struct kobj_attribute rtrs_stats_reset_attr = __ATTR_RW(reset_all);

static struct attribute *rtrs_stats_attrs[] = {
	&rtrs_stats_from_attr.attr,
	&rtrs_stats_to_attr.attr,
	&rtrs_stats_reconnects_attr.attr,
	&rtrs_stats_rdma_attr.attr,
	&rtrs_stats_reset_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rtrs_stats);

/* The stats kobject lives in the path; the parent reference keeps it */
static void rtrs_stats_kobj_release(struct kobject *kobj)
{
}

static const struct kobj_type rtrs_stats_ktype = {
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= rtrs_stats_groups,
	.release	= rtrs_stats_kobj_release,
};

/**
 * rtrs_path_kobj_init() - initialise a new path's kobjects; from now on
 * kobject_put() of @path->kobj frees the path
 * @path: the path
 */
void rtrs_path_kobj_init(struct rtrs_path *path)
{
	kobject_init(&path->kobj, &rtrs_path_ktype);
	kobject_init(&path->kobj_stats, &rtrs_stats_ktype);
}

/**
 * rtrs_path_sysfs_create() - paths/<src>@<dst>/ and its stats/
 * @path: a connected path, so that the source address is the real one
 *
 * A server may accept the same address pair twice (upstream's refuses
 * with -EEXIST): the name is checked first, so that kobject_add() does not
 * dump a stack for it.
 *
 * Context: the session's path_op_mutex held, so that two paths cannot
 * take the same name between the check and the add.
 * Return: 0, -EEXIST if the session has the same path already, -ENOMEM.
 */
int rtrs_path_sysfs_create(struct rtrs_path *path)
{
	struct rtrs_addr addr = {
		.src = &path->src_addr,
		.dst = &path->dst_addr,
	};
	struct kernfs_node *kn;
	char name[NAME_MAX];
	int err;

	lockdep_assert_held(&path->clt->path_op_mutex);
	rtrs_clt_addr_to_str(&addr, name, sizeof(name));
	kn = kernfs_find_and_get(path->clt->kobj_paths->sd, name);
	if (kn) {
		kernfs_put(kn);
		rtrs_path_err(path, "path %s exists already\n", name);
		return -EEXIST;
	}
	err = kobject_add(&path->kobj, path->clt->kobj_paths, "%s", name);
	if (err)
		return err;
	err = kobject_add(&path->kobj_stats, &path->kobj, "stats");
	if (err) {
		kobject_del(&path->kobj);
		return err;
	}
	path->sysfs_added = true;
	return 0;
}

/**
 * rtrs_path_sysfs_remove() - remove a path's directory; idempotent
 * @path: the path
 */
void rtrs_path_sysfs_remove(struct rtrs_path *path)
{
	if (!path->sysfs_added)
		return;
	path->sysfs_added = false;
	kobject_del(&path->kobj_stats);
	kobject_put(&path->kobj_stats);
	kobject_del(&path->kobj);
}

/**
 * rtrs_clt_class_init() - register the rtrs-client class
 *
 * Return: 0 or the error of class_register().
 */
int rtrs_clt_class_init(void)
{
	return class_register(&rtrs_clt_class);
}

/**
 * rtrs_clt_class_exit() - unregister the rtrs-client class
 */
void rtrs_clt_class_exit(void)
{
	class_unregister(&rtrs_clt_class);
}
