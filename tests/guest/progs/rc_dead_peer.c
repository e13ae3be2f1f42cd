// SPDX-License-Identifier: GPL-2.0
/*
 * rc_dead_peer DEV GID_INDEX: one RC SEND to a QPN nobody has, on the
 * device's own GID, with a short local ACK timeout (8: about 1 ms) and
 * retry_cnt 7: nothing ever answers, so after its retries the WQE must
 * complete with IBV_WC_RETRY_EXC_ERR and the QP be in ERR. Prints
 * "rc_dead_peer all ok" and the QPN, so that a trace can be narrowed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"
#include "rc_conn.h"

static char buf[64];

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct conn_params p = { .mtu = IBV_MTU_1024, .rd_atomic = 1,
				 .rnr_retry = 7, .timeout = 8 };
	struct conn_peer peer = { .qpn = 0xabcd };
	struct ibv_send_wr wr = { .wr_id = 1, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_context *ctx;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wc wc;

	CHECK(argc == 3, "usage: rc_dead_peer DEV GID_INDEX");
	p.gid_index = atoi(argv[2]);
	ctx = open_by_name(argv[1]);
	CHECK(ctx, "open %s", argv[1]);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) :
		  NULL;
	CHECK(pd && cq && mr, "pd/cq/mr");
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	CHECK(qp, "create_qp: %s", strerror(errno));
	CHECK(!ibv_query_gid(ctx, 1, p.gid_index, &peer.gid), "gid");
	conn_to_rts(qp, "dead peer", &p, &peer);

	sge = (struct ibv_sge){ .addr = (uintptr_t)buf, .length = 16,
				.lkey = mr->lkey };
	wr.sg_list = &sge;
	CHECK(!ibv_post_send(qp, &wr, &bad), "post_send");
	CHECK(conn_poll(cq, &wc, 20000), "no completion in 20 s");
	CHECK(wc.wr_id == 1 && wc.status == IBV_WC_RETRY_EXC_ERR,
	      "wr_id %llu status %s", (unsigned long long)wc.wr_id,
	      ibv_wc_status_str(wc.status));
	CHECK(conn_qp_state(qp) == IBV_QPS_ERR, "QP not in ERR");
	printf("qpn %u: %s\n", qp->qp_num, ibv_wc_status_str(wc.status));
	CHECK(!ibv_destroy_qp(qp) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd), "destroy");
	ibv_close_device(ctx);
	printf("rc_dead_peer all ok\n");
	return 0;
}
