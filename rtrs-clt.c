// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-clt.c - module entry of the RTRS client.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "rtrs-pri.h"

static int rtrs_clt_add_one(struct ib_device *dev)
{
	return 0;
}

static void rtrs_clt_remove_one(struct ib_device *dev, void *client_data)
{
}

static struct ib_client rtrs_clt_ib_client = {
	.name	= "rtrs_client",
	.add	= rtrs_clt_add_one,
	.remove	= rtrs_clt_remove_one,
};

static int __init rtrs_clt_init(void)
{
	int err;

	err = rtrs_clt_class_init();
	if (err)
		return err;
	err = ib_register_client(&rtrs_clt_ib_client);
	if (err) {
		rtrs_clt_class_exit();
		return err;
	}
	return 0;
}

static void __exit rtrs_clt_exit(void)
{
	ib_unregister_client(&rtrs_clt_ib_client);
	rtrs_clt_class_exit();
}

module_init(rtrs_clt_init);
module_exit(rtrs_clt_exit);

MODULE_DESCRIPTION("RTRS client: RDMA transport under rnbd");
MODULE_LICENSE("GPL");
