// SPDX-License-Identifier: GPL-2.0
/*
 * qp_chain [-r] [-n QPS] [-c CHAIN] DEV GID_INDEX: chains of RC QPs on one
 * device, the destination of each QP the next one, that a single trigger
 * runs from end to end.
 *
 * An RC responder answers (ACK, NAK, read response, atomic
 * acknowledgement) to its own connected destination, which need not be
 * the QP that sent the request, and a requester that gets an answer runs
 * its completer, then sends what its ring holds. Between QPs of one host
 * every packet is delivered directly, and an idle engine runs in place,
 * on the stack of the one that sent the packet: a driver that does not
 * bound that nesting recurses once per QP of a chain below until the
 * kernel stack overflows. Each chain is built so that every QP passes the
 * packet on at once (the answers that end up at the "wrong" QP are
 * exactly what that QP waits for); then:
 *  - the chain runs to its end: its last QP's completion comes, and the
 *    completions before it come in chain order;
 *  - every byte of the memory is what the chain made of it: what must
 *    land does, what must not stays untouched (the MR is compared whole);
 *  - nothing else completes; the WQEs that nobody will ever answer (their
 *    answers went down the chain) are flushed by a move to ERR, each QP's
 *    in ring order.
 * Requesters have no local ACK timeout (0): sending again what is only
 * ever answered to another QP would not help, and the test decides when
 * they end.
 *
 * Only RC chains: a UC or UD responder sends nothing back, so a UC or UD
 * QP ends any chain, and nothing ever wakes a UC or UD requester.
 *
 * The chains (-c N runs only chain N; default: all three, each on fresh
 * QPs, QPS of them, default 512):
 *  1 "nak", as the issue describes it: T, then pairs E_k, O_k, then Y.
 *    Each O_k has sent a WRITE that was lost (its destination E_k+1 was
 *    not ready yet) and waits for an answer. Each E_k expects a PSN one
 *    lower than it gets: it answers at once with a PSN sequence error
 *    NAK naming the PSN it expects, which is O_k's; O_k sends its WRITE
 *    again (go-back-N) to E_k+1, which NAKs to O_k+1, and so on. The
 *    trigger is T's WRITE to E_0. Y, last, expects the right PSN: the
 *    last O's WRITE lands and Y's ACK goes back to it - the one success.
 *    No other WRITE lands.
 *  2 "read/write": T, then units RD_u, A_u, WR_u, B_u (the last without
 *    B). A and B have sent an RDMA READ (lost, as above) and hold an RDMA
 *    WRITE fenced behind it. RD executes a READ and its read response
 *    goes on to A, which takes it for the answer to its own READ (same
 *    PSN, same length): the READ completes, so the fence opens and A's
 *    WRITE goes to WR, which executes it and ACKs to B. That ACK covers
 *    B's READ without its data - a lost response, for B - so B asks
 *    again, and RD_u+1 answers to A_u+1. The trigger is T's READ.
 *  3 "atomic/send": the same with FETCH_ADD instead of READ (the atomic
 *    acknowledgement travels on instead of the read response) and SEND
 *    instead of WRITE (WR has a receive posted).
 * -p: on a driver that checks that a connected QP's packets come from
 * its peer QP (sroce does, for packets between QPs of one host: any
 * local user could otherwise point a QP of its own at another's), no
 * such chain can form: an answer that reaches a QP other than the one
 * that asked is not from that QP's peer. The nak chain is built as
 * above and must be refused at its first link: T's WRITE reaches E_0,
 * whose peer is O_0, and is dropped (rx_not_peer rises by one); nothing
 * completes, no byte changes, every WRITE is flushed on ERR. Chains 2
 * and 3 are refused at their first link the same way and are skipped.
 * -r: on rdma_rxe (6.1), which completes an RDMA READ or atomic as
 * successful, without its data, when a plain ACK with its PSN comes
 * (sroce takes the response for lost and asks again): chains 2 and 3
 * cannot run there and are skipped with an "rxe quirk" line.
 * Prints "ok ..." per chain and "qp_chain all ok" at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "port_counter.h"
#include "prog_args.h"
#include "rc_conn.h"

/* Each QP has a slot of the one MR; GUARD bytes of FILL between areas. */
#define SLOT		512
#define SRC_AT		64	/* what its WRITE/SEND sends, its READ reads */
#define RES_AT		192	/* where a READ or atomic result for it lands */
#define DST_AT		320	/* where a WRITE/SEND to it lands */
#define CTR_AT		448	/* the word its FETCH_ADD adds to */
#define LEN		64	/* every READ, WRITE and SEND: one packet */
#define ADD		0x10001ull
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define WAIT_MS		60000	/* for what must come */
#define QUIET_MS	300	/* for what must not */
#define USAGE		"usage: qp_chain [-r] [-p] [-n QPS] [-c CHAIN] DEV GID_INDEX"

/* A wr_id names the QP (its index) and which of its WQEs. */
enum { WQE_R1 = 1, WQE_W = 2, WQE_RECV = 3 };
#define WR_ID(i, k)	((uint64_t)(i) * 4 + (k))

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static union ibv_gid gid;
static int gid_index;
static uint8_t *mem;		/* the MR */
static uint8_t *want;		/* what it must hold when a chain is done */
static struct ibv_qp **qp;
static int nqp;
static int peer_checked;	/* -p */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t at(int i, size_t off)
{
	return (uintptr_t)mem + (size_t)i * SLOT + off;
}

static uint8_t *want_at(int i, size_t off)
{
	return want + (size_t)i * SLOT + off;
}

static uint64_t ctr_init(int i)
{
	return 0x5a0000000000ull + (uint64_t)i * 0x100;
}

/* FILL, each QP's source pattern (seed: its index) and counter. */
static void mem_reset(void)
{
	int i;

	memset(mem, FILL, (size_t)nqp * SLOT);
	for (i = 0; i < nqp; i++) {
		uint64_t c = ctr_init(i);

		fill_pattern(mem + (size_t)i * SLOT + SRC_AT, LEN, i, 0);
		memcpy(mem + (size_t)i * SLOT + CTR_AT, &c, sizeof(c));
	}
	memcpy(want, mem, (size_t)nqp * SLOT);
}

static const char *area_name(size_t off)
{
	if (off >= SRC_AT && off < SRC_AT + LEN)
		return "source";
	if (off >= RES_AT && off < RES_AT + LEN)
		return "READ/atomic result";
	if (off >= DST_AT && off < DST_AT + LEN)
		return "WRITE/SEND target";
	if (off >= CTR_AT && off < CTR_AT + 8)
		return "atomic counter";
	return "guard";
}

/* The whole MR is what the chain should have made of it. */
static void mem_check(const char *chain)
{
	size_t i;

	for (i = 0; i < (size_t)nqp * SLOT; i++)
		CHECK(mem[i] == want[i],
		      "%s: QP %zu, %s byte %zu is %#x, expected %#x%s", chain,
		      i / SLOT, area_name(i % SLOT), i % SLOT, mem[i], want[i],
		      want[i] == FILL ? " (untouched)" : "");
}

/* Waits until the LEN bytes at offset @off of slot @i are as wanted. */
static void mem_wait(int i, size_t off, const char *what)
{
	double end = now_s() + WAIT_MS / 1000.0;
	struct timespec nap = { 0, 1000000 };

	while (memcmp((void *)(uintptr_t)at(i, off), want_at(i, off), LEN)) {
		CHECK(now_s() < end, "%s: not there after %d ms", what,
		      WAIT_MS);
		nanosleep(&nap, NULL);
	}
}

/* A port counter of the device, or -1 if it has none of that name. */
static long long counter(const char *name)
{
	return port_counter(ibv_get_device_name(ctx->device), name);
}

static const char *const counter_names[] = {
	"seq_naks_sent", "seq_naks_rcvd", "rx_duplicate_requests",
	"rx_queue_full", "rx_no_qp",
};
#define NCOUNTERS	(sizeof(counter_names) / sizeof(counter_names[0]))

static void counters_read(long long *v)
{
	size_t i;

	for (i = 0; i < NCOUNTERS; i++)
		v[i] = counter(counter_names[i]);
}

/*
 * Each counter moved by what @delta says since @before (sroce's names:
 * skipped on a device that has none of them, such as rdma_rxe).
 */
static void counters_check(const char *chain, const long long *before,
			   const long long *delta)
{
	long long after[NCOUNTERS];
	size_t i;

	counters_read(after);
	for (i = 0; i < NCOUNTERS; i++) {
		if (before[i] < 0 || after[i] < 0)
			continue;
		CHECK(after[i] - before[i] == delta[i],
		      "%s: counter %s moved by %lld, expected %lld", chain,
		      counter_names[i], after[i] - before[i], delta[i]);
	}
}

static void modify(int i, struct ibv_qp_attr *a, int mask, const char *to)
{
	int err = ibv_modify_qp(qp[i], a, mask);

	CHECK(!err, "QP %d (%#x): modify to %s: %s", i, qp[i]->qp_num, to,
	      strerror(err));
}

static void to_init(int i)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = ACCESS,
	};

	modify(i, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS, "INIT");
}

static void to_state(int i, enum ibv_qp_state s, const char *name)
{
	struct ibv_qp_attr a = { .qp_state = s };

	modify(i, &a, IBV_QP_STATE, name);
}

/*
 * A responder that is to answer the chain: INIT (where it dropped what
 * the requesters sent it while they were set up), then RESET and INIT
 * again, which drops anything a driver may still have queued for it.
 */
static void recycle(int i)
{
	to_state(i, IBV_QPS_RESET, "RESET");
	to_init(i);
}

/* RTR towards QP @dest (its destination), expecting PSN @rq_psn. */
static void to_rtr(int i, int dest, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp[dest]->qp_num,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1, .port_num = 1,
			.grh = { .dgid = gid, .sgid_index = gid_index,
				 .hop_limit = 64 },
		},
	};

	modify(i, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
	       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	       IBV_QP_MIN_RNR_TIMER, "RTR");
}

/* RTS from RTR, sending from PSN @sq_psn, no local ACK timeout. */
static void to_rts(int i, uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = 0, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = sq_psn, .max_rd_atomic = 1,
	};

	modify(i, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC,
	       "RTS");
}

/* A requester: RTS towards @dest, sending from @sq_psn. */
static void requester(int i, int dest, uint32_t sq_psn)
{
	to_rtr(i, dest, 0);
	to_rts(i, sq_psn);
}

static void create_qps(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int i;

	for (i = 0; i < nqp; i++) {
		qp[i] = ibv_create_qp(pd, &init);
		CHECK(qp[i], "create QP %d of %d: %s", i, nqp,
		      strerror(errno));
		to_init(i);
	}
}

static void destroy_qps(void)
{
	int i;

	for (i = 0; i < nqp; i++)
		CHECK(!ibv_destroy_qp(qp[i]), "destroy QP %d", i);
}

static void post(int i, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	int err = ibv_post_send(qp[i], wr, &bad);

	CHECK(!err, "QP %d: post_send wr_id %llu: %s", i,
	      (unsigned long long)wr->wr_id, strerror(err));
}

/*
 * W of QP @i: its source to the target of QP @to (its destination), an
 * RDMA WRITE or a SEND (into the receive buffer @to posted there),
 * behind a fence if @fence.
 */
static void post_w(int i, int to, int send, int fence)
{
	struct ibv_sge sge = {
		.addr = at(i, SRC_AT), .length = LEN, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_ID(i, WQE_W), .sg_list = &sge, .num_sge = 1,
		.opcode = send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | (fence ? IBV_SEND_FENCE : 0),
	};

	if (!send) {
		wr.wr.rdma.remote_addr = at(to, DST_AT);
		wr.wr.rdma.rkey = mr->rkey;
	}
	post(i, &wr);
}

/*
 * R1 of QP @i: an RDMA READ of its own source, or a FETCH_ADD of ADD to
 * its own counter; a result for it (which need not be the result of this
 * request) lands in its result area.
 */
static void post_r1(int i, int atomic)
{
	struct ibv_sge sge = {
		.addr = at(i, RES_AT), .length = atomic ? 8 : LEN,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_ID(i, WQE_R1), .sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED,
	};

	if (atomic) {
		wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr.wr.atomic.remote_addr = at(i, CTR_AT);
		wr.wr.atomic.compare_add = ADD;
		wr.wr.atomic.rkey = mr->rkey;
	} else {
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = at(i, SRC_AT);
		wr.wr.rdma.rkey = mr->rkey;
	}
	post(i, &wr);
}

/* A receive into QP @i's target area. */
static void post_recv_dst(int i)
{
	struct ibv_sge sge = {
		.addr = at(i, DST_AT), .length = LEN, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = WR_ID(i, WQE_RECV), .sg_list = &sge, .num_sge = 1,
	}, *bad;

	CHECK(!ibv_post_recv(qp[i], &wr, &bad), "QP %d: post_recv", i);
}

/* The next completion is WQE @k of QP @i, with @status (and @op). */
static void expect(int i, int k, enum ibv_wc_status status,
		   enum ibv_wc_opcode op, const char *what)
{
	char who[32];
	struct ibv_wc wc;

	snprintf(who, sizeof(who), "QP %d", i);
	conn_expect_wc(cq, qp[i], who, what, &wc, WR_ID(i, k), status, op,
		       WAIT_MS);
	if (k == WQE_RECV)
		CHECK(wc.byte_len == LEN, "%s: QP %d received %u bytes, not %d",
		      what, i, wc.byte_len, LEN);
}

static void expect_none(const char *what, int ms)
{
	conn_expect_no_wc(cq, "any QP", what, ms);
}

/*
 * Moves the requesters to ERR and takes their flush completions: for QP
 * i, its R1 if flush[i] has bit WQE_R1, then its W if bit WQE_W, in that
 * order (ring order); then nothing more.
 */
static void flush_all(const char *chain, const int *is_requester,
		      int *flush)
{
	int i, total = 0;

	for (i = 0; i < nqp; i++) {
		if (flush[i] & (1 << WQE_R1))
			total++;
		if (flush[i] & (1 << WQE_W))
			total++;
	}
	for (i = 0; i < nqp; i++)
		if (is_requester[i])
			to_state(i, IBV_QPS_ERR, "ERR");
	while (total--) {
		struct ibv_wc wc;
		unsigned int q, k;

		CHECK(conn_poll(cq, &wc, WAIT_MS),
		      "%s: %d flush completions missing", chain, total + 1);
		q = wc.wr_id / 4;
		k = wc.wr_id % 4;
		CHECK(q < (unsigned int)nqp && wc.qp_num == qp[q]->qp_num,
		      "%s: flush of wr_id %llu on QP %#x", chain,
		      (unsigned long long)wc.wr_id, wc.qp_num);
		CHECK(wc.status == IBV_WC_WR_FLUSH_ERR,
		      "%s: QP %u WQE %u completed '%s' on ERR, not flushed",
		      chain, q, k, ibv_wc_status_str(wc.status));
		/* In ring order: R1 was posted before W. */
		if (flush[q] & (1 << WQE_R1)) {
			CHECK(k == WQE_R1, "%s: QP %u flushed WQE %u before R1",
			      chain, q, k);
		} else {
			CHECK(k == WQE_W && (flush[q] & (1 << WQE_W)),
			      "%s: QP %u flushed WQE %u, not expected", chain,
			      q, k);
		}
		flush[q] &= ~(1 << k);
	}
	expect_none(chain, QUIET_MS);
}

/* Chain 1, see the top of the file. */
static void chain_nak(void)
{
	/*
	 * QP 0: T; QP 2k+1: E_k; QP 2k+2: O_k (k < K); QP 2K+1: Y. O_k
	 * sends from PSN base - k and E_k expects that PSN; T sends from
	 * base + 1. So E_0 gets base + 1 and E_k (k > 0) gets O_k-1's
	 * base - k + 1: one ahead of what each expects.
	 */
	const uint32_t base = 0x400000;
	int k, K = (nqp - 2) / 2, y = 2 * K + 1, last_o = 2 * K;
	int *is_req = calloc(nqp, sizeof(int)), *flush = calloc(nqp, sizeof(int));
	long long before[NCOUNTERS], np_before;
	double t0 = now_s(), t1;

	CHECK(is_req && flush, "out of memory");
	CHECK(K >= 1, "nak chain: at least 4 QPs");
	mem_reset();
	create_qps();
	is_req[0] = 1;
	requester(0, 1, base + 1);
	for (k = 0; k < K; k++) {
		int o = 2 * k + 2;

		is_req[o] = 1;
		requester(o, o + 1, base - k);
		/* Lost: E_k+1 (or Y) is in INIT. */
		post_w(o, o + 1, 0, 0);
	}
	for (k = 0; k < K; k++) {
		recycle(2 * k + 1);
		to_rtr(2 * k + 1, 2 * k + 2, base - k);
	}
	recycle(y);
	to_rtr(y, last_o, base - (K - 1));
	expect_none("nak chain: before the trigger", 0);
	counters_read(before);
	np_before = counter("rx_not_peer");

	t1 = now_s();
	post_w(0, 1, 0, 0);
	if (peer_checked) {
		double end = now_s() + WAIT_MS / 1000.0;

		CHECK(np_before >= 0, "nak chain: the device has no rx_not_peer");
		while (counter("rx_not_peer") - np_before < 1 && now_s() < end)
			usleep(1000);
		CHECK(counter("rx_not_peer") - np_before == 1,
		      "nak chain: rx_not_peer moved by %lld, not 1 (T's WRITE)",
		      counter("rx_not_peer") - np_before);
		t1 = now_s() - t1;
		expect_none("nak chain: refused at its first link", QUIET_MS);
		mem_check("nak chain");
		counters_check("nak chain", before,
			       (long long[]){ 0, 0, 0, 0, 0 });
		flush[0] = 1 << WQE_W;
		for (k = 0; k < K; k++)
			flush[2 * k + 2] = 1 << WQE_W;
		flush_all("nak chain", is_req, flush);
		destroy_qps();
		printf("ok nak chain of %d QPs refused at its first link: T's "
		       "WRITE dropped as not from E_0's peer, nothing else "
		       "moved (%.2f s, refused in %.3f s)\n", nqp,
		       now_s() - t0, t1);
		free(is_req);
		free(flush);
		return;
	}
	/* The one WRITE that lands, and its ACK, at the end of the chain. */
	expect(last_o, WQE_W, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE,
	       "nak chain: last WRITE");
	fill_pattern(want_at(y, DST_AT), LEN, last_o, 0);
	mem_wait(y, DST_AT, "nak chain: last WRITE's data");
	t1 = now_s() - t1;
	expect_none("nak chain: after the last WRITE", QUIET_MS);
	mem_check("nak chain");
	/* One NAK from each E_k, taken by each O_k; nothing else. */
	counters_check("nak chain", before,
		       (long long[]){ K, K, 0, 0, 0 });

	/* T's WRITE and those of O_0..O_K-2 were NAKed, never executed. */
	flush[0] = 1 << WQE_W;
	for (k = 0; k < K - 1; k++)
		flush[2 * k + 2] = 1 << WQE_W;
	flush_all("nak chain", is_req, flush);
	destroy_qps();
	printf("ok nak chain of %d QPs: %d PSN sequence NAKs each answered by "
	       "a retransmission, the last WRITE lands, no other (%.2f s, "
	       "chain %.3f s)\n", nqp, K, now_s() - t0, t1);
	free(is_req);
	free(flush);
}

/* Chains 2 and 3 (@atomic), see the top of the file. */
static void chain_read(int atomic)
{
	/*
	 * QP 0: T; QPs 4u+1..4u+4: RD_u, A_u, WR_u, B_u (u < U; the last
	 * unit has no B). RD_u expects what T (u = 0) or B_u-1 sends from;
	 * A_u's R1 has that same PSN; its W (one later) is what WR_u
	 * expects; B_u sends from that PSN too, so that WR_u's ACK covers
	 * B_u's R1. The QP before A_u that sent the R1 it gets the result of
	 * is QP 4u (T or B_u-1).
	 */
	const char *name = atomic ? "atomic/send chain" : "read/write chain";
	const uint32_t base = 0x200000;
	int u, U = nqp / 4, n = 4 * U;
	int *is_req = calloc(nqp, sizeof(int)), *flush = calloc(nqp, sizeof(int));
	long long before[NCOUNTERS];
	double t0 = now_s(), t1;

	CHECK(is_req && flush, "out of memory");
	CHECK(U >= 1, "%s: at least 4 QPs", name);
	mem_reset();
	create_qps();
	is_req[0] = 1;
	requester(0, 1, base);
	for (u = 0; u < U; u++) {
		int a = 4 * u + 2, b = 4 * u + 4;

		is_req[a] = 1;
		requester(a, a + 1, base + u);
		/* R1 is lost (WR_u is in INIT); W waits behind the fence. */
		post_r1(a, atomic);
		post_w(a, a + 1, atomic, 1);
		if (b >= n)
			continue;
		is_req[b] = 1;
		requester(b, b + 1, base + u + 1);
		post_r1(b, atomic);
		post_w(b, b + 1, atomic, 1);
	}
	for (u = 0; u < U; u++) {
		int rd = 4 * u + 1, wr = 4 * u + 3;

		recycle(rd);
		to_rtr(rd, rd + 1, base + u);
		recycle(wr);
		if (atomic)
			post_recv_dst(wr);
		/* The last WR answers itself: the ACK goes nowhere. */
		to_rtr(wr, wr + 1 < n ? wr + 1 : wr, base + u + 1);
	}
	expect_none(name, 0);
	counters_read(before);

	t1 = now_s();
	post_r1(0, atomic);
	for (u = 0; u < U; u++) {
		int a = 4 * u + 2, wr = 4 * u + 3;

		expect(a, WQE_R1, IBV_WC_SUCCESS,
		       atomic ? IBV_WC_FETCH_ADD : IBV_WC_RDMA_READ, name);
		if (atomic)
			expect(wr, WQE_RECV, IBV_WC_SUCCESS, IBV_WC_RECV, name);
	}
	for (u = 0; u < U; u++) {
		int prev = 4 * u, a = 4 * u + 2, wr = 4 * u + 3;

		if (atomic) {
			uint64_t v = ctr_init(prev);

			memcpy(want_at(a, RES_AT), &v, sizeof(v));
			v += ADD;
			memcpy(want_at(prev, CTR_AT), &v, sizeof(v));
		} else {
			fill_pattern(want_at(a, RES_AT), LEN, prev, 0);
		}
		fill_pattern(want_at(wr, DST_AT), LEN, a, 0);
	}
	/* A WRITE has no completion at the responder: wait for the last. */
	mem_wait(n - 1, DST_AT, "last W's data");
	t1 = now_s() - t1;
	expect_none(name, QUIET_MS);
	mem_check(name);
	counters_check(name, before, (long long[]){ 0, 0, 0, 0, 0 });

	/*
	 * T's R1 was executed, but its result went to A_0. A_u's W landed,
	 * but its ACK went to B_u. B_u's R1 was executed again, its result
	 * went to A_u+1; its W never left, behind the fence.
	 */
	flush[0] = 1 << WQE_R1;
	for (u = 0; u < U; u++) {
		flush[4 * u + 2] = 1 << WQE_W;
		if (4 * u + 4 < n)
			flush[4 * u + 4] = (1 << WQE_R1) | (1 << WQE_W);
	}
	flush_all(name, is_req, flush);
	destroy_qps();
	printf("ok %s of %d QPs: %d %s and %d %s passed on, each result and "
	       "each %s where it belongs (%.2f s, chain %.3f s)\n", name, n,
	       U, atomic ? "atomic acknowledgements" : "read responses", U,
	       atomic ? "SENDs" : "WRITEs", atomic ? "receive" : "WRITE",
	       now_s() - t0, t1);
	free(is_req);
	free(flush);
}

int main(int argc, char **argv)
{
	int n = 512, only = 0, rxe_quirks = 0;
	struct ibv_port_attr pa;

	argv = prog_args(argc, argv, "rpn:c:",
			 (int *[]){ &rxe_quirks, &peer_checked, &n, &only }, 2,
			 USAGE);
	CHECK(n >= 4 && only >= 0 && only <= 3, "%s", USAGE);
	nqp = n;
	ctx = open_by_name(argv[0]);
	CHECK(ctx, "no device %s", argv[0]);
	gid_index = atoi(argv[1]);
	CHECK(!ibv_query_gid(ctx, 1, gid_index, &gid), "query_gid %d",
	      gid_index);
	CHECK(!ibv_query_port(ctx, 1, &pa), "query_port");
	CHECK(pa.state == IBV_PORT_ACTIVE && pa.active_mtu >= IBV_MTU_1024,
	      "port state %d, active MTU %d: not usable at 1024",
	      pa.state, 128 << pa.active_mtu);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");
	/* Room for every completion of a chain: at most 6 per 4 QPs. */
	cq = ibv_create_cq(ctx, 2 * n + 16, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	mem = aligned_alloc(4096, (size_t)n * SLOT);
	want = malloc((size_t)n * SLOT);
	qp = calloc(n, sizeof(*qp));
	CHECK(mem && want && qp, "out of memory");
	mr = ibv_reg_mr(pd, mem, (size_t)n * SLOT, ACCESS);
	CHECK(mr, "reg_mr: %s", strerror(errno));

	if (!only || only == 1)
		chain_nak();
	if (peer_checked && only != 1) {
		printf("peer-checked: the read/write and atomic/send chains "
		       "are refused at their first link like the nak chain\n");
	} else if (rxe_quirks && only != 1) {
		printf("rxe quirk: an ACK with the PSN of an outstanding READ "
		       "or atomic completes it without its data: no read/write "
		       "or atomic/send chain\n");
	} else {
		if (!only || only == 2)
			chain_read(0);
		if (!only || only == 3)
			chain_read(1);
	}

	CHECK(!ibv_dereg_mr(mr) && !ibv_destroy_cq(cq) &&
	      !ibv_dealloc_pd(pd) && !ibv_close_device(ctx), "teardown");
	printf("qp_chain all ok\n");
	return 0;
}
