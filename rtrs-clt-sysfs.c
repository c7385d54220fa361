// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-clt-sysfs.c - the rtrs-client class and its sysfs files.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "rtrs-pri.h"

static struct class rtrs_clt_class = {
	.name = "rtrs-client",
};

int rtrs_clt_class_init(void)
{
	return class_register(&rtrs_clt_class);
}

void rtrs_clt_class_exit(void)
{
	class_unregister(&rtrs_clt_class);
}
