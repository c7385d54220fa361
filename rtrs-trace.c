// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrs-trace.c - the one unit that instantiates the rtrs_client trace
 * events declared in rtrs-trace.h.
 */
#define CREATE_TRACE_POINTS
#include "rtrs-trace.h"
