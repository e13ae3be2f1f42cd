// SPDX-License-Identifier: GPL-2.0
/*
 * read_storm [-t SECS] [-p THREADS] [-w] DEV GID_INDEX: one RC QP
 * connected to itself (its own QPN and GID), and THREADS threads (default
 * 2) that keep its send ring (up to 16384 WRs deep) full of zero-length
 * RDMA READs for SECS seconds (default 30), as fast as they can, each
 * pinned to its own CPU (thread i on CPU i modulo the CPUs there are),
 * each posting through ibv_post_send() (the provider writes the mapped
 * ring and rings the doorbell) and polling the one CQ. -w: every other
 * WR is a zero-length RDMA WRITE instead (acknowledged instead of
 * answered with data).
 *
 * Every response is local and comes back at once, while the engine that
 * sent the request still runs; and the other thread refills the ring
 * from its CPU meanwhile. A driver whose engine run goes on for as long
 * as there is something to do never lets go of the CPU that runs it
 * (bottom halves off): soft lockup, RCU stall, and every other process
 * on that CPU stands still (tests/guest/engine-bounds.sh watches them
 * with tests/guest/progs/heartbeat.c). The refill must come from
 * another CPU: a thread on the looping CPU would not get to run. The
 * doorbell runs the engine in place, so such a run also shows as an
 * ibv_post_send() that takes as long: the longest is printed.
 *
 * Checks every completion (success, the opcode posted, this QP), that
 * completions come in every 5 s of the storm, and that every WR posted
 * completes once the posting stops. On a stall, shows the QP's state and
 * where its threads are in the kernel. Prints the counts, "completions
 * N", "longest post_send N ms" and "read_storm all ok".
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"
#include "prog_args.h"
#include "rc_conn.h"

/*
 * A deep ring: the more it holds, the longer an engine run that goes on
 * while there is work finds some, even when the refilling thread's vCPU
 * stalls for a while on a busy host.
 */
#define MAX_DEPTH	16384
#define BATCH		64	/* WRs per ibv_post_send(): one doorbell */
#define MAX_THREADS	16
#define REPORT_S	5	/* completions must come in every such period */
#define DRAIN_S		60
#define PSN		0x1234
#define USAGE		"usage: read_storm [-t SECS] [-p THREADS] [-w] DEV GID_INDEX"

enum { OP_READ = 1, OP_WRITE = 2 };	/* the wr_id */

static struct ibv_qp *qp;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint64_t target;		/* never read or written: zero length */
static int with_writes;
static int depth;		/* WRs in flight at most: the ring's size */
static atomic_int inflight;	/* posted, not yet completed */
static atomic_long done[3];	/* completions by wr_id */
static atomic_int stop_posting;

struct poster {
	int id;
	int cpu;
	pthread_t thread;
	long calls;		/* ibv_post_send() calls */
	double longest;		/* seconds, the longest of them */
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Up to @want slots of the send ring, if that many are free. */
static int reserve(int want)
{
	int cur = atomic_load(&inflight), n;

	do {
		n = depth - cur;
		if (n <= 0)
			return 0;
		if (n > want)
			n = want;
	} while (!atomic_compare_exchange_weak(&inflight, &cur, cur + n));
	return n;
}

/*
 * @n zero-length READs (and WRITEs, with -w) in one ibv_post_send(),
 * timed: the doorbell may run the engine in place, in this call.
 */
static void post_batch(struct poster *p, int n, unsigned int *seq)
{
	struct ibv_send_wr wr[BATCH], *bad;
	double t0;
	int i, err;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		int write = with_writes && ((*seq)++ & 1);

		wr[i].wr_id = write ? OP_WRITE : OP_READ;
		wr[i].opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)&target;
		wr[i].wr.rdma.rkey = mr->rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	t0 = now_s();
	err = ibv_post_send(qp, wr, &bad);
	CHECK(!err, "post_send of %d: %s", n, strerror(err));
	t0 = now_s() - t0;
	if (t0 > p->longest)
		p->longest = t0;
	p->calls++;
}

/* Takes what the CQ has: all must be successes of what was posted. */
static int reap(void)
{
	struct ibv_wc wc[64];
	int n = ibv_poll_cq(cq, 64, wc), i;

	CHECK(n >= 0, "poll_cq: %d", n);
	for (i = 0; i < n; i++) {
		CHECK(wc[i].status == IBV_WC_SUCCESS,
		      "completion %ld: status '%s' (%d), opcode %d",
		      atomic_load(&done[OP_READ]) + atomic_load(&done[OP_WRITE]),
		      ibv_wc_status_str(wc[i].status), wc[i].status,
		      wc[i].opcode);
		CHECK(wc[i].qp_num == qp->qp_num, "completion for QP %#x",
		      wc[i].qp_num);
		CHECK((wc[i].wr_id == OP_READ && wc[i].opcode == IBV_WC_RDMA_READ) ||
		      (wc[i].wr_id == OP_WRITE &&
		       wc[i].opcode == IBV_WC_RDMA_WRITE),
		      "completion wr_id %llu with opcode %d",
		      (unsigned long long)wc[i].wr_id, wc[i].opcode);
		atomic_fetch_add(&done[wc[i].wr_id], 1);
	}
	atomic_fetch_sub(&inflight, n);
	return n;
}

static void *poster_main(void *arg)
{
	struct poster *p = arg;
	unsigned int seq = p->id;
	cpu_set_t set;
	int n;

	CPU_ZERO(&set);
	CPU_SET(p->cpu, &set);
	CHECK(!pthread_setaffinity_np(pthread_self(), sizeof(set), &set),
	      "thread %d: pin to CPU %d", p->id, p->cpu);
	while (!atomic_load(&stop_posting)) {
		n = reserve(BATCH);
		if (n)
			post_batch(p, n, &seq);
		if (!reap() && !n)
			sched_yield();
	}
	return NULL;
}

/*
 * What a stalled storm looks like: the QP's state, the WRs in flight and
 * where in the kernel each of our threads is (/proc/self/task/N/stack,
 * root only).
 */
static void show_stall(void)
{
	char path[64], line[256];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	fprintf(stderr, "stall: QP state %d, %d WRs in flight\n",
		conn_qp_state(qp), atomic_load(&inflight));
	dir = opendir("/proc/self/task");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%.16s/stack",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		fprintf(stderr, "stall: thread %s:\n", d->d_name);
		while (fgets(line, sizeof(line), f))
			fprintf(stderr, "stall:   %s", line);
		fclose(f);
	}
	closedir(dir);
}

/* RESET -> RTS, its own destination, up to @rd READs outstanding. */
static void connect_self(struct ibv_context *ctx, int gid_index, uint8_t rd)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024,
		.access = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
		.rd_atomic = rd, .rnr_retry = 7, .timeout = 14, .psn = PSN,
		.gid_index = gid_index,
	};
	struct conn_peer self = { .qpn = qp->qp_num, .psn = PSN };

	CHECK(!ibv_query_gid(ctx, 1, gid_index, &self.gid), "query_gid %d",
	      gid_index);
	conn_to_rts(qp, "storm QP", &p, &self);
}

int main(int argc, char **argv)
{
	int secs = 30, nthreads = 2, ncpus, i, gid_index;
	struct poster posters[MAX_THREADS];
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_device_attr da;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	long last = 0, total;
	double start, end, t, longest = 0;
	uint8_t rd;

	argv = prog_args(argc, argv, "t:p:w",
			 (int *[]){ &secs, &nthreads, &with_writes }, 2, USAGE);
	CHECK(secs > 0 && nthreads > 0 && nthreads <= MAX_THREADS, "%s",
	      USAGE);
	gid_index = atoi(argv[1]);
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK(ncpus > 0, "no CPUs?");
	ctx = open_by_name(argv[0]);
	CHECK(ctx, "no device %s", argv[0]);
	CHECK(!ibv_query_device(ctx, &da), "query_device");
	/* As many READs in flight as the device allows, up to 16. */
	rd = 16;
	if (da.max_qp_rd_atom < rd)
		rd = da.max_qp_rd_atom;
	if (da.max_qp_init_rd_atom < rd)
		rd = da.max_qp_init_rd_atom;
	CHECK(rd > 0, "no RDMA READ on %s", argv[0]);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");
	/* Never more completions waiting than WRs in flight. */
	depth = MAX_DEPTH;
	if (da.max_qp_wr < depth)
		depth = da.max_qp_wr;
	if (da.max_cqe < depth)
		depth = da.max_cqe;
	init.cap.max_send_wr = depth;
	cq = ibv_create_cq(ctx, depth, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	mr = ibv_reg_mr(pd, &target, sizeof(target), IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	CHECK(qp, "create_qp: %s", strerror(errno));
	connect_self(ctx, gid_index, rd);

	start = now_s();
	end = start + secs;
	for (i = 0; i < nthreads; i++) {
		memset(&posters[i], 0, sizeof(posters[i]));
		posters[i].id = i;
		posters[i].cpu = i % ncpus;
		CHECK(!pthread_create(&posters[i].thread, NULL, poster_main,
				      &posters[i]), "pthread_create");
	}
	/* The storm must not stall either: completions in every period. */
	for (t = start + REPORT_S; t <= end; t += REPORT_S) {
		struct timespec nap = { 0, 50000000 };

		while (now_s() < t)
			nanosleep(&nap, NULL);
		total = atomic_load(&done[OP_READ]) + atomic_load(&done[OP_WRITE]);
		printf("[%3.0fs] %ld completions\n", t - start, total);
		if (total == last)
			show_stall();
		CHECK(total > last, "no completion in %d s of the storm "
		      "(%ld in all, %d WRs in flight)", REPORT_S, total,
		      atomic_load(&inflight));
		last = total;
	}
	while (now_s() < end)
		usleep(10000);
	atomic_store(&stop_posting, 1);
	for (i = 0; i < nthreads; i++) {
		CHECK(!pthread_join(posters[i].thread, NULL), "pthread_join");
		printf("thread %d on CPU %d: %ld posts, the longest %.0f ms\n",
		       i, posters[i].cpu, posters[i].calls,
		       posters[i].longest * 1000);
		if (posters[i].longest > longest)
			longest = posters[i].longest;
	}

	/* Everything posted completes. */
	end = now_s() + DRAIN_S;
	while (atomic_load(&inflight)) {
		if (!reap()) {
			CHECK(now_s() < end, "%d WRs not completed %d s after "
			      "the storm", atomic_load(&inflight), DRAIN_S);
			usleep(1000);
		}
	}
	CHECK(!ibv_poll_cq(cq, 1, (struct ibv_wc[1]){ { 0 } }),
	      "a completion more than was posted");
	printf("ok storm of %d s, %d threads on %d CPUs: %ld zero-length "
	       "READs and %ld WRITEs completed, all successful\n", secs,
	       nthreads, ncpus < nthreads ? ncpus : nthreads,
	       atomic_load(&done[OP_READ]), atomic_load(&done[OP_WRITE]));
	printf("completions %ld\n",
	       atomic_load(&done[OP_READ]) + atomic_load(&done[OP_WRITE]));
	printf("longest post_send %.0f ms\n", longest * 1000);

	CHECK(!ibv_destroy_qp(qp) && !ibv_dereg_mr(mr) &&
	      !ibv_destroy_cq(cq) && !ibv_dealloc_pd(pd) &&
	      !ibv_close_device(ctx), "teardown");
	printf("read_storm all ok\n");
	return 0;
}
