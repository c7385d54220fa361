// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RTRS wire protocol encoders and validators (kernel and host).
 *
 * Everything in this file is pure computation on buffers: it builds the
 * messages the client sends and checks every message the server sends before
 * the rest of the module trusts a single field of it. It uses no verbs and
 * no locks, so the same file is compiled into rtrs-client.ko and into the
 * host unit tests (tests/unit/, with host-compat.h standing in for the
 * kernel headers). The encoders and validators that every I/O runs are
 * static inline in rtrs-proto.h instead, built the same two ways.
 *
 * Return codes follow one rule: whatever the server sent that we cannot use
 * is -EPROTO (or -ECONNRESET for CM private data, which is what the CM layer
 * of the module reports for a broken handshake); bad arguments of local
 * callers are -EINVAL.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/export.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/rdma_cm.h>
#include <rtrs.h>
#endif

#include "rtrs-proto.h"

/**
 * rtrs_check_limits() - check that a queue depth and chunk size can be
 *	addressed by the 28-bit payload of an I/O request immediate
 * @queue_depth: number of server chunks
 * @chunk_size: bytes per chunk (an offset inside a chunk is < @chunk_size)
 *
 * The immediate carries the chunk id in its high bits and the offset inside
 * the chunk in its low bits, so both must fit together.
 *
 * Context: any context.
 * Return: 0 if 1 <= @queue_depth <= RTRS_MAX_QUEUE_DEPTH, @chunk_size >= 1
 * and the bits of both add up to at most RTRS_IMM_PAYLOAD_BITS;
 * -EINVAL otherwise.
 */
int rtrs_check_limits(u32 queue_depth, u32 chunk_size)
{
	if (queue_depth < 1 || queue_depth > RTRS_MAX_QUEUE_DEPTH)
		return -EINVAL;
	if (chunk_size < 1)
		return -EINVAL;
	if (rtrs_bits_for(queue_depth) + rtrs_bits_for(chunk_size) >
	    RTRS_IMM_PAYLOAD_BITS)
		return -EINVAL;
	return 0;
}

/**
 * rtrs_peer_errno() - an errno the server sent, made safe for our callers
 * @err: the value as the server sent it (negative for an error)
 *
 * Our callers pass errnos on to their users and to user space, where only
 * -1..-%RTRS_ERRNO_MAX mean anything. A server may send any 16-bit (or, in
 * an I/O response, 9-bit) value: -512 would leak -ERESTARTSYS to user
 * space, -529 (-EIOCBQUEUED) returned from a sysfs write trips a BUG_ON in
 * the VFS, and anything below -4095 is not even IS_ERR() as a pointer.
 *
 * Context: any context.
 * Return: @err if it is in -1..-%RTRS_ERRNO_MAX, else -EPROTO (also for 0
 * and positive values: the caller asked because it expected an error).
 */
int rtrs_peer_errno(int err)
{
	if (err < 0 && err >= -RTRS_ERRNO_MAX)
		return err;
	return -EPROTO;
}

/**
 * rtrs_conn_req_init() - build the CM private data of a connect request
 * @req: the 56 bytes to fill
 * @cid: index of this connection in its path (0 is the service connection)
 * @cid_num: number of connections of the path
 * @recon_cnt: the path's connect counter
 * @path_uuid: uuid of the path; the protocol calls this field sess_uuid
 * @sess_uuid: uuid of the session, shared by all its paths; the protocol
 *	calls this field paths_uuid
 * @first_conn: the server may create a new session for this request
 *
 * Every byte not named above, including the two leading bytes the CM
 * interprets for AF_IB, is zero.
 *
 * Context: any context.
 */
void rtrs_conn_req_init(struct rtrs_msg_conn_req *req, u16 cid, u16 cid_num,
			u16 recon_cnt, const uuid_t *path_uuid,
			const uuid_t *sess_uuid, bool first_conn)
{
	memset(req, 0, sizeof(*req));
	req->magic = cpu_to_le16(RTRS_MAGIC);
	req->version = cpu_to_le16(RTRS_PROTO_VER);
	req->cid = cpu_to_le16(cid);
	req->cid_num = cpu_to_le16(cid_num);
	req->recon_cnt = cpu_to_le16(recon_cnt);
	memcpy(&req->sess_uuid, path_uuid, sizeof(req->sess_uuid));
	memcpy(&req->paths_uuid, sess_uuid, sizeof(req->paths_uuid));
	if (first_conn)
		req->flags = RTRS_CONN_REQ_FIRST_CONN;
}

/**
 * rtrs_conn_rsp_parse() - check the private data of the server's accept
 * @data: private data of the RDMA_CM_EVENT_ESTABLISHED event
 * @len: its length
 * @p: filled with the session limits on success
 *
 * Only the protocol major version must match; a different minor version is
 * accepted. The limits are checked so that every later computation with them
 * (chunk offsets, the immediate encoding, header placement) stays in range.
 *
 * Context: any context.
 * Return:
 * * 0 - @p holds queue_depth, max_io_size, max_hdr_size, flags,
 *   chunk_size = max_io_size + max_hdr_size and
 *   imm_shift = rtrs_imm_shift(queue_depth);
 * * -ECONNRESET - @len is shorter than struct rtrs_msg_conn_rsp, the magic is
 *   wrong or the major version differs;
 * * a negative errno - the errno field holds this value, in -1..-133
 *   (rtrs_peer_errno(); -EPROTO for any other negative value);
 * * -EPROTO - the errno field is positive, or a limit is unusable:
 *   queue_depth below %RTRS_MIN_QUEUE_DEPTH, max_hdr_size below a read
 *   header with one descriptor or
 *   above 64 KiB, max_io_size 0, max_io_size + max_hdr_size overflows 32 bits,
 *   or rtrs_check_limits() fails.
 */
int rtrs_conn_rsp_parse(const void *data, size_t len,
			struct rtrs_conn_params *p)
{
	const struct rtrs_msg_conn_rsp *rsp = data;
	u32 io_size, hdr_size;
	u16 qd;
	s16 err;

	if (!data || len < sizeof(*rsp))
		return -ECONNRESET;
	if (le16_to_cpu(rsp->magic) != RTRS_MAGIC)
		return -ECONNRESET;
	if ((le16_to_cpu(rsp->version) >> 8) != RTRS_PROTO_VER_MAJOR)
		return -ECONNRESET;

	err = (s16)le16_to_cpu(rsp->errno);
	if (err)
		return rtrs_peer_errno(err);

	qd = le16_to_cpu(rsp->queue_depth);
	io_size = le32_to_cpu(rsp->max_io_size);
	hdr_size = le32_to_cpu(rsp->max_hdr_size);

	if (qd < RTRS_MIN_QUEUE_DEPTH)
		return -EPROTO;
	if (hdr_size < sizeof(struct rtrs_msg_rdma_read) +
		       sizeof(struct rtrs_sg_desc) ||
	    hdr_size > 65536)
		return -EPROTO;
	if (io_size < 1 || io_size > U32_MAX - hdr_size)
		return -EPROTO;
	if (rtrs_check_limits(qd, io_size + hdr_size))
		return -EPROTO;

	p->queue_depth = qd;
	p->max_io_size = io_size;
	p->max_hdr_size = hdr_size;
	p->chunk_size = io_size + hdr_size;
	p->flags = le32_to_cpu(rsp->flags);
	p->imm_shift = rtrs_imm_shift(qd);
	return 0;
}

/**
 * rtrs_conn_rej_errno() - the errno a server put in its reject
 * @data: private data of the RDMA_CM_EVENT_REJECTED event (may be NULL)
 * @len: its length
 *
 * The server rejects with a struct rtrs_msg_conn_rsp of which it fills only
 * magic, version and errno, so 6 bytes are enough here. Unlike upstream's
 * client (which wants all 56 bytes and does not look at the magic), the magic
 * must match, so that the private data of a reject by somebody else (the CM
 * itself, or a non-RTRS listener) is not taken for an RTRS errno, and a zero
 * or positive value is not returned as an error code.
 *
 * Context: any context.
 * Return: the negative errno of the server if it is in -1..-133, -EPROTO
 * for any other negative value, or -ECONNRESET if @data is missing, shorter
 * than 6 bytes, has a wrong magic or holds no negative errno.
 */
int rtrs_conn_rej_errno(const void *data, size_t len)
{
	const struct rtrs_msg_conn_rsp *rsp = data;
	s16 err;

	if (!data || len < offsetof(struct rtrs_msg_conn_rsp, queue_depth))
		return -ECONNRESET;
	if (le16_to_cpu(rsp->magic) != RTRS_MAGIC)
		return -ECONNRESET;
	err = (s16)le16_to_cpu(rsp->errno);
	return err < 0 ? rtrs_peer_errno(err) : -ECONNRESET;
}

/**
 * rtrs_info_req_init() - build the info request sent on the service
 *	connection once all connections of a path are up
 * @req: the 272 bytes to fill
 * @sessname: session name, NUL-terminated
 *
 * The whole message is zeroed first, so the name is NUL padded.
 *
 * Context: any context.
 * Return: 0, or -EINVAL if @sessname has RTRS_SESSNAME_SIZE characters or
 * more (the message then holds only its type).
 */
int rtrs_info_req_init(struct rtrs_msg_info_req *req, const char *sessname)
{
	size_t n;

	memset(req, 0, sizeof(*req));
	req->type = cpu_to_le16(RTRS_MSG_INFO_REQ);
	n = strnlen(sessname, RTRS_SESSNAME_SIZE);
	if (n >= RTRS_SESSNAME_SIZE)
		return -EINVAL;
	memcpy(req->pathname, sessname, n);
	return 0;
}

/**
 * rtrs_info_rsp_parse() - expand the server's chunk table
 * @data: the received info response
 * @len: bytes received
 * @p: limits from rtrs_conn_rsp_parse(); queue_depth and chunk_size are used
 * @rbufs: array of @nr entries, filled with one (address, rkey) per chunk,
 *	in order
 * @nr: chunks the client uses: the first @nr of the server's, 1..queue_depth
 *
 * Each descriptor covers len / chunk_size consecutive chunks of one MR. The
 * descriptors together must cover exactly queue_depth chunks. Unlike
 * upstream's client, queue_depth need not be a multiple of sg_cnt: a server
 * that packs chunks into as few MRs as the device allows can send a last
 * descriptor with fewer chunks than the others. The whole table is
 * checked even when the client uses fewer chunks than the server has; no
 * entry past @rbufs[@nr - 1] is ever written.
 *
 * Context: any context.
 * Return: 0 on success; -EPROTO if the message is shorter than its header or
 * than its sg_cnt descriptors, is not an info response, has no descriptor, a
 * descriptor length that is 0 or not a multiple of chunk_size, covers more or
 * fewer than queue_depth chunks, or describes a chunk address that does not
 * fit 64 bits (also if @p has queue_depth or chunk_size 0, or @nr is 0 or
 * above queue_depth). On error the
 * contents of @rbufs are unspecified.
 */
int rtrs_info_rsp_parse(const void *data, size_t len,
			const struct rtrs_conn_params *p,
			struct rtrs_rbuf *rbufs, u32 nr)
{
	const struct rtrs_msg_info_rsp *rsp = data;
	u32 qd = p->queue_depth, chunk = p->chunk_size;
	u32 i = 0, sgi, sg_cnt;

	if (!data || len < sizeof(*rsp) || !qd || !chunk || !nr || nr > qd)
		return -EPROTO;
	if (le16_to_cpu(rsp->type) != RTRS_MSG_INFO_RSP)
		return -EPROTO;
	sg_cnt = le16_to_cpu(rsp->sg_cnt);
	if (!sg_cnt)
		return -EPROTO;
	if (len < sizeof(*rsp) + (size_t)sg_cnt * sizeof(rsp->desc[0]))
		return -EPROTO;

	for (sgi = 0; sgi < sg_cnt; sgi++) {
		const struct rtrs_sg_desc *desc = &rsp->desc[sgi];
		u64 addr = le64_to_cpu(desc->addr);
		u32 key = le32_to_cpu(desc->key);
		u32 dlen = le32_to_cpu(desc->len);
		u32 k, n;

		if (!dlen || dlen % chunk)
			return -EPROTO;
		n = dlen / chunk;
		if (n > qd - i)
			return -EPROTO;
		/* the last chunk's address must not wrap around */
		if ((u64)(n - 1) * chunk > U64_MAX - addr)
			return -EPROTO;
		for (k = 0; k < n && i + k < nr; k++) {
			rbufs[i + k].addr = addr + (u64)k * chunk;
			rbufs[i + k].rkey = key;
		}
		i += n;
	}
	if (i != qd)
		return -EPROTO;
	return 0;
}

/* "gid:" part: an IB GID written like an IPv6 address, as an AF_IB address */
static int rtrs_gid_to_sockaddr(const char *s, size_t len, u16 port,
				struct sockaddr_storage *ss)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;

	/* no GID text is this long; keeps the length an int */
	if (len > 64)
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (!in6_pton(s, (int)len, sib->sib_addr.sib_raw, '\0', NULL))
		return -EINVAL;
	sib->sib_family = AF_IB;
	/* the port becomes a service id in the IB port space of the CM */
	sib->sib_sid = cpu_to_be64(RDMA_IB_IP_PS_IB | port);
	sib->sib_sid_mask = cpu_to_be64(U64_MAX);
	sib->sib_pkey = cpu_to_be16(0xffff);
	return 0;
}

/* "ip:" part: IPv4, or IPv6 with an optional %scope */
static int rtrs_ip_to_sockaddr(const char *s, size_t len, u16 port,
			       struct sockaddr_storage *ss)
{
	char portstr[8];
	char *copy;
	int err;

	copy = kstrndup(s, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	snprintf(portstr, sizeof(portstr), "%u", port);
	memset(ss, 0, sizeof(*ss));
	err = inet_pton_with_scope(&init_net, AF_UNSPEC, copy, portstr, ss);
	kfree(copy);
	return err;
}

/* One address: @len bytes of @s, no NUL among them */
static int rtrs_part_to_sockaddr(const char *s, size_t len, u16 port,
				 struct sockaddr_storage *ss)
{
	if (len >= 4 && !memcmp(s, "gid:", 4))
		return rtrs_gid_to_sockaddr(s + 4, len - 4, port, ss);
	if (len >= 3 && !memcmp(s, "ip:", 3))
		return rtrs_ip_to_sockaddr(s + 3, len - 3, port, ss);
	return -EPROTONOSUPPORT;
}

/**
 * rtrs_clt_addr_to_sockaddr() - parse the address string of one path
 * @str: "[src,]dst" or "[src@]dst"; only the first @len bytes (or up to a
 *	NUL, if sooner) are read
 * @len: length of @str
 * @port: port of the destination (the source gets port 0)
 * @addr: @addr->dst (and @addr->src, if @str has a source) point to the
 *	storage to fill; @addr->src is set to NULL if @str has no source
 *
 * If @str holds a ',' the source ends at the first one; otherwise at the
 * first '@'; otherwise @str is only the destination. Each address is one of:
 *
 * * "ip:<IPv4>" or "ip:<IPv6>[%<scope>]" - AF_INET or AF_INET6, parsed by
 *   inet_pton_with_scope(); a scope (an interface name or number) is used
 *   only with a link-local address;
 * * "gid:<GID in IPv6 notation>" - AF_IB, with service id
 *   RDMA_IB_IP_PS_IB | port, an all-ones service id mask and pkey 0xffff.
 *
 * The storage of every address parsed is zeroed first. Unlike upstream's
 * helper, a destination port of 32768 or more gives the service id of that
 * port in the IB port space (upstream sign-extends it).
 *
 * Context: process context; may sleep (GFP_KERNEL allocation).
 * Return: 0 on success; -EINVAL if the source is not a valid address (for
 * any reason); for the destination: -EPROTONOSUPPORT if it starts with
 * neither "ip:" nor "gid:", -EINVAL if it is not a valid address, -ENOMEM
 * if the copy of an "ip:" address could not be allocated.
 */
int rtrs_clt_addr_to_sockaddr(const char *str, size_t len, u16 port,
			      struct rtrs_addr *addr)
{
	const char *sep;
	size_t n = strnlen(str, len);

	sep = memchr(str, ',', n);
	if (!sep)
		sep = memchr(str, '@', n);
	if (sep) {
		if (rtrs_part_to_sockaddr(str, sep - str, 0, addr->src))
			return -EINVAL;
		n -= sep + 1 - str;
		str = sep + 1;
	} else {
		addr->src = NULL;
	}
	return rtrs_part_to_sockaddr(str, n, port, addr->dst);
}
EXPORT_SYMBOL(rtrs_clt_addr_to_sockaddr);

/**
 * rtrs_sessname_check() - check a session name given by the user
 * @name: NUL-terminated name; at most RTRS_SESSNAME_SIZE bytes are read
 *
 * The name is sent to the server in the info request and names a sysfs
 * directory on both sides, so it cannot contain '/' or '.'.
 *
 * Context: any context.
 * Return: 0 if @name is usable; -EINVAL if it is empty, has
 * RTRS_SESSNAME_SIZE or more characters, or contains '/' or '.'.
 */
int rtrs_sessname_check(const char *name)
{
	size_t n = strnlen(name, RTRS_SESSNAME_SIZE);

	if (!n || n >= RTRS_SESSNAME_SIZE)
		return -EINVAL;
	if (memchr(name, '/', n) || memchr(name, '.', n))
		return -EINVAL;
	return 0;
}

/* @buf (@len bytes) starts with @word, ignoring case */
static bool rtrs_has_prefix(const char *buf, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && !strncasecmp(buf, word, n);
}

/* @buf (@len bytes, newline stripped) is exactly @word, ignoring case */
static bool rtrs_is_word(const char *buf, size_t len, const char *word)
{
	return len == strlen(word) && !strncasecmp(buf, word, len);
}

/**
 * rtrs_parse_mp_policy() - parse a write to the mpath_policy sysfs file
 * @buf: the written text, NUL-terminated at @buf[@count] as sysfs passes it
 * @count: its length
 * @policy: set to the policy on success
 *
 * The accepted forms are those upstream's client accepts:
 *
 * * an integer that kstrtoint() parses in base 10 to 0, 1 or 2 (so a sign,
 *   leading zeros and one trailing newline are allowed: "1", "+1", "01",
 *   "2\n");
 * * text that starts with "round-robin", "min-inflight" or "min-latency",
 *   in any case, whatever follows (so "Round-Robin\n" and also
 *   "round-robinxyz" are taken);
 * * exactly "rr", "mi" or "ml", in any case, optionally followed by one
 *   newline.
 *
 * Only the first NAME_MAX bytes are looked at for the keyword forms.
 *
 * Context: any context.
 * Return: 0 on success; -EINVAL for anything else.
 */
int rtrs_parse_mp_policy(const char *buf, size_t count,
			 enum rtrs_mp_policy *policy)
{
	size_t len;
	int val;

	if (!kstrtoint(buf, 10, &val)) {
		switch (val) {
		case MP_POLICY_RR:
		case MP_POLICY_MIN_INFLIGHT:
		case MP_POLICY_MIN_LATENCY:
			*policy = val;
			return 0;
		}
	}

	len = strnlen(buf, min_t(size_t, count, NAME_MAX));
	if (rtrs_has_prefix(buf, len, "round-robin")) {
		*policy = MP_POLICY_RR;
		return 0;
	}
	if (rtrs_has_prefix(buf, len, "min-inflight")) {
		*policy = MP_POLICY_MIN_INFLIGHT;
		return 0;
	}
	if (rtrs_has_prefix(buf, len, "min-latency")) {
		*policy = MP_POLICY_MIN_LATENCY;
		return 0;
	}

	if (len && buf[len - 1] == '\n')
		len--;
	if (rtrs_is_word(buf, len, "rr"))
		*policy = MP_POLICY_RR;
	else if (rtrs_is_word(buf, len, "mi"))
		*policy = MP_POLICY_MIN_INFLIGHT;
	else if (rtrs_is_word(buf, len, "ml"))
		*policy = MP_POLICY_MIN_LATENCY;
	else
		return -EINVAL;
	return 0;
}

/**
 * rtrs_parse_max_reconnect_attempts() - parse a write to the
 *	max_reconnect_attempts sysfs file
 * @buf: the written text, NUL-terminated
 * @val: set to the number on success
 *
 * The text is a base-10 integer as kstrtoint() takes it (optional sign, one
 * trailing newline allowed). -1 means no limit, 0 means never reconnect.
 *
 * Context: any context.
 * Return: 0 on success; the error of kstrtoint() (-EINVAL for text that is
 * not a number, -ERANGE for one that does not fit an int); -EINVAL for a
 * number outside -1..9999.
 */
int rtrs_parse_max_reconnect_attempts(const char *buf, int *val)
{
	int v, err;

	err = kstrtoint(buf, 10, &v);
	if (err)
		return err;
	if (v < -1 || v > 9999)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * rtrs_parse_io_hold_sec() - parse a write to the io_hold_sec sysfs file,
 *	or the module parameter of the same name
 * @buf: the written text, NUL-terminated
 * @val: set to the number on success
 *
 * The text is a base-10 integer as kstrtoint() takes it (optional sign, one
 * trailing newline allowed): -1 holds I/O until the session is closed, 0
 * fails it at once when no path is connected, N holds it for N seconds.
 *
 * Context: any context.
 * Return: 0 on success; the error of kstrtoint() (-EINVAL for text that is
 * not a number, -ERANGE for one that does not fit an int); -EINVAL for a
 * number outside -1..%RTRS_IO_HOLD_MAX_SEC.
 */
int rtrs_parse_io_hold_sec(const char *buf, int *val)
{
	int v, err;

	err = kstrtoint(buf, 10, &v);
	if (err)
		return err;
	if (v < -1 || v > RTRS_IO_HOLD_MAX_SEC)
		return -EINVAL;
	*val = v;
	return 0;
}

/**
 * rtrs_parse_io_timeout_sec() - parse a write to the io_timeout_sec sysfs
 *	file, or the module parameter of the same name
 * @buf: the written text, NUL-terminated
 * @val: set to the number on success
 *
 * The text is a base-10 unsigned integer as kstrtouint() takes it (one
 * trailing newline allowed): 0 turns the I/O timeout off, N fails a path
 * whose oldest request has been unanswered for N seconds.
 *
 * Context: any context.
 * Return: 0 on success; the error of kstrtouint() (-EINVAL for text that is
 * not an unsigned number, -ERANGE for one that does not fit); -EINVAL for a
 * number above %RTRS_IO_TIMEOUT_MAX_SEC.
 */
int rtrs_parse_io_timeout_sec(const char *buf, unsigned int *val)
{
	unsigned int v;
	int err;

	err = kstrtouint(buf, 10, &v);
	if (err)
		return err;
	if (v > RTRS_IO_TIMEOUT_MAX_SEC)
		return -EINVAL;
	*val = v;
	return 0;
}
