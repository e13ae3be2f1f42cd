// SPDX-License-Identifier: GPL-2.0
/*
 * connect_delay (LD_PRELOAD=.../connect_delay): rdma_connect() waits
 * CONNECT_DELAY_MS milliseconds (default 500) before it sends the
 * connection request.
 *
 * For perftest's clients with -R (rdma_cm QPs). After the out-of-band
 * handshake the client connects its data QPs at once, while the server
 * may not yet listen for them: the server's CM then rejects the request
 * ("invalid service ID", reason 8), and perftest 4.5-0.17's retry path
 * crashes in librdmacm. The race is perftest's, whatever the driver;
 * giving the server half a second to call rdma_listen() closes it.
 *
 * Build flags: -shared -fPIC
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "preload_wait.h"
#include <rdma/rdma_cma.h>

typedef int (*connect_fn)(struct rdma_cm_id *id,
			  struct rdma_conn_param *param);

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	static connect_fn real;

	if (!real)
		real = (connect_fn)dlsym(RTLD_NEXT, "rdma_connect");
	if (!real)
		return -1;
	preload_wait("CONNECT_DELAY_MS", 500);
	return real(id, param);
}
