// SPDX-License-Identifier: GPL-2.0
/*
 * incast SECONDS RECV_DEV RECV_GID SEND_DEV:SEND_GID...
 *
 * Incast: every sender device streams RC SENDs of MSG bytes to one
 * receiver device for SECONDS (after a second of warm-up), as many in
 * flight as the receiver has buffers for; the receiver checks every byte
 * of every message (pattern of the sender and the message's number, in
 * order). Meanwhile a probe QP on the first sender writes 64 bytes every
 * PROBE_US and times each write to its completion: the delay of the
 * bottleneck queue. All ends live in this process (the devices may be in
 * other network namespaces: the RDMA core shares them).
 *
 * Prints "measuring" and "measured" when the measured time starts and
 * ends (for counters sampled over the same time), then each sender's
 * goodput ("sender N: BYTES bytes RATE kB/s"), the total, Jain's
 * fairness index over the senders, and the probe's median and 99th
 * percentile. With INCAST_TIMELINE set, writes each probe's start
 * (CLOCK_MONOTONIC ns, the clock of the trace's "mono" trace_clock) and
 * its delay (us) to that file, a line each: the queue over time. Exits 1
 * on a wrong byte or a failed completion.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "end.h"

#define MSG		(64 * 1024)
#define DEPTH		8		/* messages in flight per sender */
#define RECVS		(2 * DEPTH)	/* receive buffers per sender */
#define MAX_SENDERS	8
#define PROBE_US	2000
#define PROBE_BYTES	64
#define MAX_SAMPLES	100000
#define WARMUP_NS	1000000000ull
#define DRAIN_MS	60000

struct flow {
	struct end s;			/* the sender's end */
	struct ibv_qp *rqp;		/* its QP at the receiver */
	uint8_t *rbuf;			/* RECVS buffers at the receiver */
	struct ibv_mr *rmr;
	unsigned long posted, acked;	/* messages */
	unsigned long received;		/* checked at the receiver */
	unsigned long acked_at_start;	/* of the measured time */
	unsigned long acked_at_end;
};

static struct end recv_end;
static struct flow flows[MAX_SENDERS];
static int nflows;
static struct ibv_cq *rcq;		/* all the receiver's QPs */

/* The probe: a QP of the first sender's device to one at the receiver. */
static struct ibv_qp *probe_qp, *probe_rqp;
static struct ibv_cq *probe_cq;
static uint8_t *probe_buf, *probe_rbuf;
static struct ibv_mr *probe_mr, *probe_rmr;
static double samples[MAX_SAMPLES];
static uint64_t sample_at[MAX_SAMPLES];
static int nsamples;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static unsigned int seed_of(int i, unsigned long msg)
{
	return (unsigned int)(i * 1000003u + msg);
}

static struct ibv_qp *make_qp(struct end *e, struct ibv_cq *scq,
			      struct ibv_cq *rcq_)
{
	struct ibv_qp_init_attr a = {
		.send_cq = scq, .recv_cq = rcq_, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH + 1, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e->pd, &a);

	CHECK(qp, "%s: create_qp: %s", e->name, strerror(errno));
	return qp;
}

static void post_recv(struct flow *f, int i, unsigned long slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(f->rbuf + slot * MSG), .length = MSG,
		.lkey = f->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uint64_t)i << 32 | slot, .sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	CHECK(!ibv_post_recv(f->rqp, &wr, &bad), "post_recv");
}

static void post_send(struct flow *f, int i)
{
	unsigned long slot = f->posted % DEPTH;
	uint8_t *p = f->s.buf + slot * MSG;
	struct ibv_sge sge = {
		.addr = (uintptr_t)p, .length = MSG, .lkey = f->s.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = f->posted, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	fill_pattern(p, MSG, seed_of(i, f->posted), 0);
	CHECK(!ibv_post_send(f->s.qp, &wr, &bad), "sender %d: post_send", i);
	f->posted++;
}

static void post_probe(uint64_t t)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)probe_buf, .length = PROBE_BYTES,
		.lkey = probe_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = t, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)probe_rbuf,
			     .rkey = probe_rmr->rkey },
	}, *bad;

	CHECK(!ibv_post_send(probe_qp, &wr, &bad), "probe: post_send");
}

/* Completions of every CQ; returns how many were handled. */
static int poll_all(bool sending, bool measuring, bool *probe_out)
{
	struct ibv_wc wc[16];
	int i, j, n, done = 0;

	for (i = 0; i < nflows; i++) {
		struct flow *f = &flows[i];

		n = ibv_poll_cq(f->s.cq, 16, wc);
		CHECK(n >= 0, "poll_cq");
		for (j = 0; j < n; j++) {
			CHECK(wc[j].status == IBV_WC_SUCCESS,
			      "sender %d: message %llu: '%s'", i,
			      (unsigned long long)wc[j].wr_id,
			      ibv_wc_status_str(wc[j].status));
			CHECK(wc[j].wr_id == f->acked,
			      "sender %d: completion %llu, expected %lu", i,
			      (unsigned long long)wc[j].wr_id, f->acked);
			f->acked++;
			if (sending)
				post_send(f, i);
		}
		done += n;
	}
	n = ibv_poll_cq(rcq, 16, wc);
	CHECK(n >= 0, "poll_cq");
	for (j = 0; j < n; j++) {
		int i = wc[j].wr_id >> 32;
		unsigned long slot = wc[j].wr_id & 0xffffffff;
		struct flow *f = &flows[i];
		char what[64];

		CHECK(wc[j].status == IBV_WC_SUCCESS && i < nflows,
		      "receiver: '%s'", ibv_wc_status_str(wc[j].status));
		CHECK(wc[j].byte_len == MSG, "receiver: %u bytes from %d",
		      wc[j].byte_len, i);
		snprintf(what, sizeof(what), "sender %d message %lu", i,
			 f->received);
		check_pattern(f->rbuf + slot * MSG, MSG,
			      seed_of(i, f->received), 0, what);
		f->received++;
		post_recv(f, i, slot);
	}
	done += n;
	n = ibv_poll_cq(probe_cq, 1, wc);
	CHECK(n >= 0, "poll_cq");
	if (n) {
		CHECK(wc[0].status == IBV_WC_SUCCESS, "probe: '%s'",
		      ibv_wc_status_str(wc[0].status));
		/* Timed now: a write may complete within the loop's turn. */
		if (measuring && nsamples < MAX_SAMPLES) {
			sample_at[nsamples] = wc[0].wr_id;
			samples[nsamples++] = (now_ns() - wc[0].wr_id) / 1000.0;
		}
		*probe_out = false;
		done++;
	}
	return done;
}

/* The probes in the order they were sent, before they are sorted. */
static void write_timeline(const char *path)
{
	FILE *f;
	int i;

	if (!path)
		return;
	f = fopen(path, "w");
	CHECK(f, "%s: cannot create", path);
	for (i = 0; i < nsamples; i++)
		fprintf(f, "%llu %.0f\n", (unsigned long long)sample_at[i],
			samples[i]);
	CHECK(!fclose(f), "%s: write failed", path);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void setup(char **argv, int n)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rnr_retry = 7, .timeout = 14,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};
	struct conn_end a, b;
	int i;

	end_open(&recv_end, "receiver", argv[0], atoi(argv[1]));
	rcq = ibv_create_cq(recv_end.ctx, MAX_SENDERS * RECVS + 8, NULL,
			    NULL, 0);
	CHECK(rcq, "receiver: create_cq");
	for (i = 0; i < n; i++) {
		struct flow *f = &flows[i];
		char *dev = strdup(argv[2 + i]), *colon = strchr(dev, ':');
		char *name = malloc(16);
		unsigned long s;

		CHECK(colon, "%s: not DEV:GID_INDEX", argv[2 + i]);
		*colon = 0;
		snprintf(name, 16, "sender %d", i);
		end_open(&f->s, name, dev, atoi(colon + 1));
		f->s.cq = ibv_create_cq(f->s.ctx, DEPTH + 2, NULL, NULL, 0);
		CHECK(f->s.cq, "%s: create_cq", name);
		f->s.qp = make_qp(&f->s, f->s.cq, f->s.cq);
		f->s.mr = end_reg_buf(&f->s, &f->s.buf, DEPTH * MSG,
				      IBV_ACCESS_LOCAL_WRITE);
		f->rqp = make_qp(&recv_end, rcq, rcq);
		f->rmr = end_reg_buf(&recv_end, &f->rbuf, RECVS * MSG,
				     IBV_ACCESS_LOCAL_WRITE);
		a = end_conn(&f->s, f->s.qp, 1000 * i);
		b = end_conn(&recv_end, f->rqp, 500000 + 1000 * i);
		conn_connect(&a, &b, &p);
		for (s = 0; s < RECVS; s++)
			post_recv(f, i, s);
	}
	probe_cq = ibv_create_cq(flows[0].s.ctx, 4, NULL, NULL, 0);
	CHECK(probe_cq, "probe: create_cq");
	probe_qp = make_qp(&flows[0].s, probe_cq, probe_cq);
	probe_rqp = make_qp(&recv_end, rcq, rcq);
	probe_mr = end_reg_buf(&flows[0].s, &probe_buf, 4096,
			       IBV_ACCESS_LOCAL_WRITE);
	probe_rmr = end_reg_buf(&recv_end, &probe_rbuf, 4096,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
	a = end_conn(&flows[0].s, probe_qp, 900000);
	b = end_conn(&recv_end, probe_rqp, 950000);
	conn_connect(&a, &b, &p);
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 50000 };
	uint64_t start, t, end, next_probe, measured_ns;
	double total = 0, sum = 0, sumsq = 0, gp;
	bool probe_out = false;
	int i, n;

	CHECK(argc >= 5, "usage: incast SECONDS RECV_DEV RECV_GID SEND_DEV:SEND_GID...");
	n = argc - 4;
	CHECK(n <= MAX_SENDERS, "at most %d senders", MAX_SENDERS);
	setup(argv + 2, n);
	nflows = n;
	for (i = 0; i < n; i++)
		while (flows[i].posted < DEPTH)
			post_send(&flows[i], i);

	start = now_ns();
	end = start + WARMUP_NS + atoi(argv[1]) * 1000000000ull;
	next_probe = start;
	for (i = 0; i < n; i++)
		flows[i].acked_at_start = ~0ul;
	while ((t = now_ns()) < end) {
		bool measuring = t >= start + WARMUP_NS;

		if (measuring && flows[0].acked_at_start == ~0ul) {
			for (i = 0; i < n; i++)
				flows[i].acked_at_start = flows[i].acked;
			/* For whoever samples counters over the same time. */
			printf("measuring\n");
			fflush(stdout);
		}
		if (!probe_out && t >= next_probe) {
			post_probe(t);
			probe_out = true;
			next_probe = t + PROBE_US * 1000ull;
		}
		if (!poll_all(true, measuring, &probe_out))
			nanosleep(&nap, NULL);
	}
	for (i = 0; i < n; i++)
		flows[i].acked_at_end = flows[i].acked;
	measured_ns = end - start - WARMUP_NS;
	printf("measured\n");
	fflush(stdout);

	/* Drain: everything posted completes, and arrives checked. */
	t = now_ns();
	for (;;) {
		bool left = probe_out;

		for (i = 0; i < n; i++)
			left |= flows[i].acked < flows[i].posted ||
				flows[i].received < flows[i].posted;
		if (!left)
			break;
		CHECK(now_ns() - t < DRAIN_MS * 1000000ull,
		      "drain: not done in %d ms", DRAIN_MS);
		if (!poll_all(false, false, &probe_out))
			nanosleep(&nap, NULL);
	}

	for (i = 0; i < n; i++) {
		struct flow *f = &flows[i];
		double bytes = (double)(f->acked_at_end - f->acked_at_start) *
			       MSG;

		gp = bytes / (measured_ns / 1e9);
		printf("sender %d: %.0f bytes %.0f kB/s, %lu messages checked\n",
		       i, bytes, gp / 1000, f->received);
		total += gp;
		sum += gp;
		sumsq += gp * gp;
	}
	printf("total: %.0f kB/s\n", total / 1000);
	printf("jain: %.3f\n", sumsq > 0 ? sum * sum / (n * sumsq) : 0);
	CHECK(nsamples > 0, "probe: no sample");
	write_timeline(getenv("INCAST_TIMELINE"));
	qsort(samples, nsamples, sizeof(samples[0]), cmp_double);
	printf("probe: %d samples, median %.0f us, p99 %.0f us\n", nsamples,
	       samples[nsamples / 2], samples[nsamples * 99 / 100]);
	printf("incast all ok\n");
	return 0;
}
