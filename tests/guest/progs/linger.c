// SPDX-License-Identifier: GPL-2.0
/*
 * linger (LD_PRELOAD=.../linger): ibv_destroy_qp() waits LINGER_MS
 * milliseconds (default 1000) before it destroys the QP.
 *
 * For ibv_rc_pingpong on a lossy wire. Its client exits as soon as it has
 * the last message; when its ACK for that message is lost, the server's
 * resend (tail probe or ACK timeout) finds the client's QP destroyed, and
 * the server's last SEND ends in retry-exceeded, with every byte
 * delivered. That race is the program's, and hardware has it too. While
 * the QP lingers in RTS, the driver repairs the lost ACK as it repairs
 * any other: the resend reaches the QP and is acknowledged again.
 *
 * Build flags: -shared -fPIC
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "preload_wait.h"
#include <infiniband/verbs.h>

typedef int (*destroy_qp_fn)(struct ibv_qp *qp);

int ibv_destroy_qp(struct ibv_qp *qp)
{
	static destroy_qp_fn real;

	if (!real)
		real = (destroy_qp_fn)dlvsym(RTLD_NEXT, "ibv_destroy_qp",
					     "IBVERBS_1.1");
	if (!real)
		return -1;
	preload_wait("LINGER_MS", 1000);
	return real(qp);
}
