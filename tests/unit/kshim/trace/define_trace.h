/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h includes this outside its guards; without CREATE_TRACE_POINTS
 * the kernel's does nothing either.
 */
