/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrs-pri.h - objects of the RTRS client shared between its files.
 */
#ifndef RTRS_PRI_H
#define RTRS_PRI_H

#include <linux/device.h>
#include <rdma/ib_verbs.h>

#include "rtrs-proto.h"
#include <rtrs.h>

/* rtrs-clt-sysfs.c */
int rtrs_clt_class_init(void);
void rtrs_clt_class_exit(void);

#endif /* RTRS_PRI_H */
