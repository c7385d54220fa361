// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs.c - RTRS wire protocol encoders and validators (kernel and host).
 */
#include "rtrs-proto.h"
