// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test-sysfs.c - session names and the sysfs parsers (mpath_policy,
 * max_reconnect_attempts), as tables of input and expected result.
 */
#include "test.h"

static void test_sessname(void)
{
	char name[300];

	CHECK_EQ(rtrs_sessname_check("sess"), 0);
	CHECK_EQ(rtrs_sessname_check("a"), 0);
	CHECK_EQ(rtrs_sessname_check("my_session-01@host:x"), 0);
	CHECK_EQ(rtrs_sessname_check(""), -EINVAL);
	CHECK_EQ(rtrs_sessname_check("a/b"), -EINVAL);
	CHECK_EQ(rtrs_sessname_check("/"), -EINVAL);
	CHECK_EQ(rtrs_sessname_check("a.b"), -EINVAL);
	CHECK_EQ(rtrs_sessname_check("."), -EINVAL);
	CHECK_EQ(rtrs_sessname_check(".."), -EINVAL);
	CHECK_EQ(rtrs_sessname_check("sess."), -EINVAL);

	memset(name, 'x', sizeof(name));
	name[254] = '\0';
	CHECK_EQ(rtrs_sessname_check(name), 0);
	name[253] = '.';
	CHECK_EQ(rtrs_sessname_check(name), -EINVAL);
	name[253] = 'x';
	name[254] = 'x';
	name[255] = '\0';
	CHECK_EQ(rtrs_sessname_check(name), -EINVAL);
	name[255] = 'x';
	name[299] = '\0';
	CHECK_EQ(rtrs_sessname_check(name), -EINVAL);
}

static const struct {
	const char *in;
	int ret;
	enum rtrs_mp_policy policy;
} mp_table[] = {
	{ "0", 0, MP_POLICY_RR },
	{ "1", 0, MP_POLICY_MIN_INFLIGHT },
	{ "2", 0, MP_POLICY_MIN_LATENCY },
	{ "0\n", 0, MP_POLICY_RR },
	{ "1\n", 0, MP_POLICY_MIN_INFLIGHT },
	{ "2\n", 0, MP_POLICY_MIN_LATENCY },
	{ "+1", 0, MP_POLICY_MIN_INFLIGHT },
	{ "-0", 0, MP_POLICY_RR },
	{ "002", 0, MP_POLICY_MIN_LATENCY },
	{ "round-robin", 0, MP_POLICY_RR },
	{ "round-robin\n", 0, MP_POLICY_RR },
	{ "Round-Robin", 0, MP_POLICY_RR },
	{ "ROUND-ROBIN\n", 0, MP_POLICY_RR },
	{ "round-robinjunk", 0, MP_POLICY_RR },
	{ "round-robin (RR: 0)\n", 0, MP_POLICY_RR },
	{ "min-inflight", 0, MP_POLICY_MIN_INFLIGHT },
	{ "min-inflight\n", 0, MP_POLICY_MIN_INFLIGHT },
	{ "MIN-INFLIGHT", 0, MP_POLICY_MIN_INFLIGHT },
	{ "min-inflight\n\n", 0, MP_POLICY_MIN_INFLIGHT },
	{ "min-latency", 0, MP_POLICY_MIN_LATENCY },
	{ "min-latency\n", 0, MP_POLICY_MIN_LATENCY },
	{ "Min-Latency", 0, MP_POLICY_MIN_LATENCY },
	{ "min-latency-x", 0, MP_POLICY_MIN_LATENCY },
	{ "rr", 0, MP_POLICY_RR },
	{ "RR", 0, MP_POLICY_RR },
	{ "rr\n", 0, MP_POLICY_RR },
	{ "Rr\n", 0, MP_POLICY_RR },
	{ "mi", 0, MP_POLICY_MIN_INFLIGHT },
	{ "MI\n", 0, MP_POLICY_MIN_INFLIGHT },
	{ "ml", 0, MP_POLICY_MIN_LATENCY },
	{ "mL\n", 0, MP_POLICY_MIN_LATENCY },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "3", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "4294967296", -EINVAL, 0 },
	{ "0x1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1\n\n", -EINVAL, 0 },
	{ "r", -EINVAL, 0 },
	{ "rr\n\n", -EINVAL, 0 },
	{ "rr ", -EINVAL, 0 },
	{ " rr", -EINVAL, 0 },
	{ "rrr", -EINVAL, 0 },
	{ "rr\r\n", -EINVAL, 0 },
	{ "mix", -EINVAL, 0 },
	{ "m", -EINVAL, 0 },
	{ "ml\t", -EINVAL, 0 },
	{ "round", -EINVAL, 0 },
	{ "round-robi", -EINVAL, 0 },
	{ "round robin", -EINVAL, 0 },
	{ "in-inflight", -EINVAL, 0 },
	{ "min-", -EINVAL, 0 },
	{ "min-inflght", -EINVAL, 0 },
	{ "min-latenc\n", -EINVAL, 0 },
	{ "min_latency", -EINVAL, 0 },
	{ "inflight", -EINVAL, 0 },
	{ "latency", -EINVAL, 0 },
};

static void test_mp_policy(void)
{
	enum rtrs_mp_policy pol;
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(mp_table); i++) {
		const char *in = mp_table[i].in;
		int ret;

		pol = (enum rtrs_mp_policy)-1;
		ret = rtrs_parse_mp_policy(in, strlen(in), &pol);
		if (ret != mp_table[i].ret ||
		    (!ret && pol != mp_table[i].policy)) {
			printf("FAIL mpath_policy \"%s\": ret %d policy %d\n",
			       in, ret, (int)pol);
			ok = 0;
		}
		CHECK_EQ(ret, mp_table[i].ret);
	}
	CHECK(ok);

	/* what sysfs passes: @count bytes, a NUL after them */
	CHECK_EQ(rtrs_parse_mp_policy("mi\0xyz", 6, &pol), 0);
	CHECK_EQ(pol, MP_POLICY_MIN_INFLIGHT);
	/* the keyword forms do not look past @count */
	CHECK_EQ(rtrs_parse_mp_policy("rrr", 2, &pol), 0);
	CHECK_EQ(pol, MP_POLICY_RR);
	CHECK_EQ(rtrs_parse_mp_policy("round-robin", 5, &pol), -EINVAL);
}

static const struct {
	const char *in;
	int ret;
	int val;
} mra_table[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1 },
	{ "-1", 0, -1 },
	{ "-1\n", 0, -1 },
	{ "9999", 0, 9999 },
	{ "9999\n", 0, 9999 },
	{ "+30", 0, 30 },
	{ "010", 0, 10 },
	{ "-0", 0, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ " ", -EINVAL, 0 },
	{ " 5", -EINVAL, 0 },
	{ "5 ", -EINVAL, 0 },
	{ "5\n\n", -EINVAL, 0 },
	{ "\t5", -EINVAL, 0 },
	{ "-2", -EINVAL, 0 },
	{ "-100", -EINVAL, 0 },
	{ "10000", -EINVAL, 0 },
	{ "10000\n", -EINVAL, 0 },
	{ "2147483647", -EINVAL, 0 },
	{ "-2147483648", -EINVAL, 0 },
	{ "2147483648", -ERANGE, 0 },
	{ "-2147483649", -ERANGE, 0 },
	{ "99999999999999999999999", -ERANGE, 0 },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "5x", -EINVAL, 0 },
	{ "5 junk", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "--1", -EINVAL, 0 },
	{ "+-1", -EINVAL, 0 },
	{ "-+1", -EINVAL, 0 },
	{ "+", -EINVAL, 0 },
	{ "-", -EINVAL, 0 },
	{ "abc", -EINVAL, 0 },
};

static void test_max_reconnect(void)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(mra_table); i++) {
		int val = 12345, ret;

		ret = rtrs_parse_max_reconnect_attempts(mra_table[i].in, &val);
		if (ret != mra_table[i].ret ||
		    (!ret && val != mra_table[i].val) ||
		    (ret && val != 12345)) {
			printf("FAIL max_reconnect_attempts \"%s\": ret %d val %d\n",
			       mra_table[i].in, ret, val);
			ok = 0;
		}
		CHECK_EQ(ret, mra_table[i].ret);
	}
	CHECK(ok);
}

static const struct {
	const char *in;
	int ret;
	int val;
} hold_table[] = {
	{ "-1", 0, -1 },
	{ "-1\n", 0, -1 },
	{ "0", 0, 0 },
	{ "0\n", 0, 0 },
	{ "1", 0, 1 },
	{ "120\n", 0, 120 },
	{ "+30", 0, 30 },
	{ "86400", 0, 86400 },
	{ "86401", -EINVAL, 0 },
	{ "-2", -EINVAL, 0 },
	{ "2147483648", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "12 ", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "forever", -EINVAL, 0 },
};

static void test_io_hold(void)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(hold_table); i++) {
		int val = 12345, ret;

		ret = rtrs_parse_io_hold_sec(hold_table[i].in, &val);
		if (ret != hold_table[i].ret ||
		    (!ret && val != hold_table[i].val) ||
		    (ret && val != 12345)) {
			printf("FAIL io_hold_sec \"%s\": ret %d val %d\n",
			       hold_table[i].in, ret, val);
			ok = 0;
		}
	}
	CHECK(ok);
}

static const struct {
	const char *in;
	int ret;
	unsigned int val;
} tmo_table[] = {
	{ "0", 0, 0 },
	{ "0\n", 0, 0 },
	{ "1", 0, 1 },
	{ "60\n", 0, 60 },
	{ "+30", 0, 30 },
	{ "86400", 0, 86400 },
	{ "86401", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "4294967296", -ERANGE, 0 },
	{ "", -EINVAL, 0 },
	{ "\n", -EINVAL, 0 },
	{ "12 ", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "off", -EINVAL, 0 },
};

static void test_io_timeout(void)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < ARRAY_SIZE(tmo_table); i++) {
		unsigned int val = 12345;
		int ret = rtrs_parse_io_timeout_sec(tmo_table[i].in, &val);

		if (ret != tmo_table[i].ret ||
		    (!ret && val != tmo_table[i].val) ||
		    (ret && val != 12345)) {
			printf("FAIL io_timeout_sec \"%s\": ret %d val %u\n",
			       tmo_table[i].in, ret, val);
			ok = 0;
		}
	}
	CHECK(ok);
}

void test_sysfs(void)
{
	test_sessname();
	test_mp_policy();
	test_max_reconnect();
	test_io_hold();
	test_io_timeout();
}
