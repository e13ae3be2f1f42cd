// SPDX-License-Identifier: GPL-2.0
/*
 * odp_write DEV_A GID_A DEV_B GID_B MIB ROUNDS MODES: what on-demand
 * paging costs an RC WRITE stream (scripts/bench-odp.sh). A sends MIB MiB
 * to B in WRITEs of 64 KiB, 16 in flight, path MTU 1024; each round is
 * timed from the first post to the last completion and checked byte by
 * byte after. MODES: "pinned" or "pinned,odp".
 *  - pinned: a new source (filled by the process) and target each round,
 *    registered without IBV_ACCESS_ON_DEMAND; the registration (which
 *    pins and touches every page) is timed apart;
 *  - odp-cold: a new source (filled by the process, so its pages exist,
 *    but not in the region) and a never-touched target each round, both
 *    ODP regions: every page is faulted in by the transfer (first touch);
 *  - odp-warm: the same transfer again over the cold round's regions,
 *    whose pages are present now.
 * Prints "odp_write MODE round N: X MB/s" (and "reg Y ms" for pinned),
 * then "odp_write done".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <infiniband/verbs.h>

#define MSG		(64 * 1024u)
#define DEPTH		16
#define MAX_WR		64

#include "check.h"
#include "data_pattern.h"
#include "end.h"
#include "rc_conn.h"

static struct end a, b;

/* @e's CQ and an RC QP on it. */
static void new_qp(struct end *e)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = MAX_WR, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->cq = ibv_create_cq(e->ctx, 2 * MAX_WR, NULL, NULL, 0);
	CHECK(e->cq, "%s: create_cq: %s", e->name, strerror(errno));
	init.send_cq = init.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &init);
	CHECK(e->qp, "%s: create_qp: %s", e->name, strerror(errno));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static uint8_t *fresh(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap of %zu bytes: %s", len, strerror(errno));
	return p;
}

static struct ibv_mr *reg(struct end *e, uint8_t *p, size_t len,
			  unsigned int access)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, p, len, access);

	CHECK(mr, "%s: reg_mr of %zu bytes, access %#x: %s", e->name, len,
	      access, strerror(errno));
	return mr;
}

/* @len bytes from @src (A) to @dst (B) in WRITEs; returns the seconds. */
static double stream(struct ibv_mr *src, struct ibv_mr *dst, size_t len)
{
	size_t posted = 0, done = 0, n = len / MSG;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc[DEPTH];
	double t0 = now();
	int i, got;

	while (done < n) {
		while (posted < n && posted - done < DEPTH) {
			sge = (struct ibv_sge){
				.addr = (uintptr_t)src->addr + posted * MSG,
				.length = MSG, .lkey = src->lkey };
			wr = (struct ibv_send_wr){
				.wr_id = posted, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE,
				.send_flags = IBV_SEND_SIGNALED,
				.wr.rdma = {
					.remote_addr = (uintptr_t)dst->addr +
						       posted * MSG,
					.rkey = dst->rkey },
			};
			CHECK(!ibv_post_send(a.qp, &wr, &bad), "post_send");
			posted++;
		}
		got = ibv_poll_cq(a.cq, DEPTH, wc);
		CHECK(got >= 0, "poll_cq");
		for (i = 0; i < got; i++)
			CHECK(wc[i].status == IBV_WC_SUCCESS,
			      "WRITE %" PRIu64 ": %s", wc[i].wr_id,
			      ibv_wc_status_str(wc[i].status));
		done += got;
	}
	return now() - t0;
}

static void report(const char *mode, int round, size_t len, double secs,
		   const char *extra)
{
	printf("odp_write %s round %d: %.1f MB/s%s\n", mode, round,
	       len / secs / 1e6, extra);
	fflush(stdout);
}

static void run_pinned(size_t len, int round)
{
	uint8_t *s = fresh(len), *d = fresh(len);
	struct ibv_mr *sm, *dm;
	char extra[64];
	double t0, reg_s, secs;

	fill_pattern(s, len, round, 0);
	t0 = now();
	sm = reg(&a, s, len, 0);
	dm = reg(&b, d, len, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
	reg_s = now() - t0;
	secs = stream(sm, dm, len);
	check_pattern(d, len, round, 0, "pinned target");
	snprintf(extra, sizeof(extra), ", reg %.0f ms", reg_s * 1e3);
	report("pinned", round, len, secs, extra);
	CHECK(!ibv_dereg_mr(sm) && !ibv_dereg_mr(dm), "dereg_mr");
	munmap(s, len);
	munmap(d, len);
}

static void run_odp(size_t len, int round)
{
	uint8_t *s = fresh(len), *d = fresh(len);
	struct ibv_mr *sm, *dm;
	double secs;

	fill_pattern(s, len, round + 100, 0);
	sm = reg(&a, s, len, IBV_ACCESS_ON_DEMAND);
	dm = reg(&b, d, len, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	secs = stream(sm, dm, len);
	check_pattern(d, len, round + 100, 0, "cold ODP target");
	report("odp-cold", round, len, secs, "");
	memset(d, 0, len);
	secs = stream(sm, dm, len);
	check_pattern(d, len, round + 100, 0, "warm ODP target");
	report("odp-warm", round, len, secs, "");
	CHECK(!ibv_dereg_mr(sm) && !ibv_dereg_mr(dm), "dereg_mr");
	munmap(s, len);
	munmap(d, len);
}

int main(int argc, char **argv)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rd_atomic = 4, .rnr_retry = 7,
		.timeout = 14,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	size_t len;
	int rounds, odp, i;

	CHECK(argc == 8, "usage: odp_write DEV_A GID_A DEV_B GID_B MIB ROUNDS pinned|pinned,odp");
	len = (size_t)atoi(argv[5]) << 20;
	rounds = atoi(argv[6]);
	odp = !strcmp(argv[7], "pinned,odp");
	CHECK(len && rounds > 0 && (odp || !strcmp(argv[7], "pinned")),
	      "bad arguments");
	end_open(&a, "A", argv[1], atoi(argv[2]));
	end_open(&b, "B", argv[3], atoi(argv[4]));
	a.sq_psn = 0x10;
	b.sq_psn = 0x123456;
	new_qp(&a);
	new_qp(&b);
	end_connect(&a, &b, &p);
	/* Pinned and ODP rounds in turn: a drift hits both. */
	for (i = 1; i <= rounds; i++) {
		run_pinned(len, i);
		if (odp)
			run_odp(len, i);
	}
	CHECK(!ibv_destroy_qp(a.qp) && !ibv_destroy_qp(b.qp), "destroy_qp");
	CHECK(!ibv_destroy_cq(a.cq) && !ibv_destroy_cq(b.cq), "destroy_cq");
	printf("odp_write done\n");
	return 0;
}
