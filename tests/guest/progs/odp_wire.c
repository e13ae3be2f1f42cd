// SPDX-License-Identifier: GPL-2.0
/*
 * odp_wire -d DEV -x GID -p PORT [PEER]: on-demand paging (ODP) memory
 * regions at both ends of a wire, one process on each guest. Without PEER
 * it is the responder (B) and listens on TCP port PORT; with PEER it is
 * the requester (A) and connects to PEER:PORT. That TCP connection carries
 * the QP numbers, GIDs, buffer addresses and keys, and one message per
 * step of the checks (ready, sent, got it or not, checked); all data moves
 * over RDMA device DEV (RoCE v2 GID index GID), path MTU 1024.
 *
 * Each side registers, with IBV_ACCESS_ON_DEMAND only:
 *  - a source: a memfd holding its own pattern (A: seed 1, B: seed 2),
 *    written with write(2) and mapped, so that no page of it is present
 *    in the process when a transfer first gathers from it;
 *  - a target: 64 MiB of fresh anonymous memory, cut into 2 MiB slices
 *    that one check each uses: never touched before its transfer, by
 *    the process or by the driver (whose fault-ahead brings in 1 MiB
 *    past a message);
 *  - on B, a two-page region whose second page it munmaps before the
 *    last check.
 * Transfers start 123 bytes into A's source, and land 37 bytes before the
 * end of a slice's first page; each is checked byte by byte, with the 64
 * bytes on each side still zero. Checks, A the requester of each:
 *  - RC SEND of 3 pages + 100 bytes and of 256 KiB, RC WRITE and WRITE
 *    with immediate of both sizes, RC READ of both sizes from B's source
 *    into A's target; FETCH_ADD, CMP_SWAP (match, then mismatch) on a
 *    never-touched word of B, each result into a never-touched word of A
 *    that crosses a page boundary; two SENDs into an SRQ of B whose
 *    receive buffers are never-touched ODP slices, landing in order;
 *  - UC SEND, WRITE and WRITE with immediate, UD SEND of 1000 bytes (after
 *    the 40-byte GRH): what reaches pages that are not present is dropped
 *    while B faults them in, so A sends again (up to 50 times, B waiting
 *    20 ms for each) until B has it whole, then nothing more arrives;
 *    the attempts are printed;
 *  - a WRITE into B's munmapped page: IBV_WC_REM_ACCESS_ERR at A, after a
 *    WRITE into the page before it landed.
 * Prints "ok ..." per check and "odp_wire all ok"; exits 1 at the first
 * failure (a side whose peer went away fails at its next message).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "pattern_memfd.h"
#include "rc_conn.h"

#define PAGE		4096u
#define SLICE		(2u << 20)	/* past the driver's 1 MiB fault-ahead */
#define TGT_LEN		(32 * SLICE)
#define SRC_LEN		(1u << 20)
#define SRC_AT		123u		/* where A's transfers start */
#define LAND_AT		(PAGE - 37)	/* where they land in a slice */
#define SMALL		(3 * PAGE + 100)
#define LARGE		(256u << 10)
#define UD_LEN		1000u
#define GRH		40u
#define QKEY		0x11111111u
#define IMM		0x0d9e0001u
#define TRIES		50
#define RETRY_MS	20
#define WAIT_MS		30000		/* for what must come */
#define QUIET_MS	200		/* for what must not */
#define CTL_MS		120000		/* for the peer's next message */
#define MAX_WR		16
#define SEED_A		1
#define SEED_B		2
#define ALL_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define USAGE		"usage: odp_wire -d DEV -x GID -p PORT [PEER]"

enum { QP_RC, QP_SRQ, QP_ERR, QP_UC, QP_UD, NQP };

/* What a side tells the other at the start. */
struct wire_info {
	uint32_t qpn[NQP];
	union ibv_gid gid;
	uint64_t src_va, tgt_va, hole_va;
	uint32_t src_rkey, tgt_rkey, hole_rkey;
};

/* The messages of a step. */
enum ctl { CTL_READY = 1, CTL_SENT, CTL_GOT, CTL_AGAIN, CTL_CHECKED };

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_srq *srq;
static struct ibv_qp *qps[NQP];
static int gid_index, ctl_fd, is_b;
static uint8_t *src, *tgt, *hole;
static struct ibv_mr *src_mr, *tgt_mr, *hole_mr;
static struct wire_info me, peer;
static uint64_t next_id = 1;

/* --- the TCP side channel ---------------------------------------------- */

static void ctl_write(const void *p, size_t len)
{
	ssize_t n;

	for (; len; len -= n, p = (const char *)p + n) {
		n = write(ctl_fd, p, len);
		CHECK(n > 0, "control connection: write: %s", strerror(errno));
	}
}

static void ctl_read(void *p, size_t len)
{
	struct pollfd pfd = { .fd = ctl_fd, .events = POLLIN };
	ssize_t n;

	for (; len; len -= n, p = (char *)p + n) {
		CHECK(poll(&pfd, 1, CTL_MS) == 1,
		      "control connection: the peer said nothing in %d s",
		      CTL_MS / 1000);
		n = read(ctl_fd, p, len);
		CHECK(n > 0, "control connection: %s (did the peer fail?)",
		      n ? strerror(errno) : "closed");
	}
}

static void tell(enum ctl c)
{
	uint32_t v = c;

	ctl_write(&v, sizeof(v));
}

static enum ctl hear(void)
{
	uint32_t v;

	ctl_read(&v, sizeof(v));
	return v;
}

static void expect(enum ctl c, const char *what)
{
	enum ctl got = hear();

	CHECK(got == c, "%s: the peer said %d, expected %d", what, got, c);
}

static void ctl_open(const char *peer_ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	struct pollfd pfd;
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	if (peer_ip) {
		CHECK(inet_pton(AF_INET, peer_ip, &sa.sin_addr) == 1,
		      "bad peer address %s", peer_ip);
		CHECK(!connect(fd, (struct sockaddr *)&sa, sizeof(sa)),
		      "connect to %s:%d: %s", peer_ip, port, strerror(errno));
		ctl_fd = fd;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		CHECK(!bind(fd, (struct sockaddr *)&sa, sizeof(sa)),
		      "bind to port %d: %s", port, strerror(errno));
		CHECK(!listen(fd, 1), "listen: %s", strerror(errno));
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		CHECK(poll(&pfd, 1, CTL_MS) == 1, "nobody connected");
		ctl_fd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		CHECK(ctl_fd >= 0, "accept: %s", strerror(errno));
		close(fd);
	}
	setsockopt(ctl_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* --- memory ------------------------------------------------------------ */

static struct ibv_mr *reg_odp(void *p, size_t len, unsigned int access)
{
	struct ibv_mr *mr;

	mr = ibv_reg_mr(pd, p, len, access | IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "ODP reg_mr of %zu bytes, access %#x: %s", len, access,
	      strerror(errno));
	return mr;
}

static uint8_t *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED, "mmap of %zu bytes: %s", len, strerror(errno));
	return p;
}

/* A memfd of SRC_LEN bytes of pattern @seed (by write(2)), mapped. */
static uint8_t *map_pattern(int seed)
{
	int fd = pattern_memfd(SRC_LEN, seed);
	void *p;

	p = mmap(NULL, SRC_LEN, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED, "mmap of the memfd: %s", strerror(errno));
	close(fd);
	return p;
}

static void setup_memory(void)
{
	src = map_pattern(is_b ? SEED_B : SEED_A);
	src_mr = reg_odp(src, SRC_LEN, is_b ? IBV_ACCESS_REMOTE_READ : 0);
	tgt = map_anon(TGT_LEN);
	/* A huge page faulted in for one slice would reach into the next. */
	CHECK(!madvise(tgt, TGT_LEN, MADV_NOHUGEPAGE), "madvise: %s",
	      strerror(errno));
	tgt_mr = reg_odp(tgt, TGT_LEN, ALL_ACCESS);
	me.src_va = (uintptr_t)src;
	me.src_rkey = src_mr->rkey;
	me.tgt_va = (uintptr_t)tgt;
	me.tgt_rkey = tgt_mr->rkey;
	if (!is_b)
		return;
	hole = map_anon(2 * PAGE);
	hole_mr = reg_odp(hole, 2 * PAGE,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	me.hole_va = (uintptr_t)hole;
	me.hole_rkey = hole_mr->rkey;
}

/* Where a transfer lands in slice @n of this side's target. */
static uint8_t *landing(int n)
{
	return tgt + (size_t)n * SLICE + LAND_AT;
}

/* The same place in the peer's target. */
static uint64_t peer_landing(int n)
{
	return peer.tgt_va + (uint64_t)n * SLICE + LAND_AT;
}

/* Whether the @len bytes at @p are pattern @seed from @first on. */
static int is_pattern(const uint8_t *p, size_t len, int seed, size_t first)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern_byte(seed, first + i))
			return 0;
	return 1;
}

/* --- queue pairs ------------------------------------------------------- */

static struct ibv_qp *create_qp(enum ibv_qp_type type, struct ibv_srq *s)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .srq = s, .qp_type = type,
		.cap = { .max_send_wr = MAX_WR, .max_recv_wr = MAX_WR,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	CHECK(qp, "create_qp type %d: %s", type, strerror(errno));
	return qp;
}

static void setup_qps(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = MAX_WR,
						  .max_sge = 1 } };
	int i;

	cq = ibv_create_cq(ctx, 4 * MAX_WR * NQP, NULL, NULL, 0);
	CHECK(cq, "create_cq: %s", strerror(errno));
	srq = ibv_create_srq(pd, &sa);
	CHECK(srq, "create_srq: %s", strerror(errno));
	qps[QP_RC] = create_qp(IBV_QPT_RC, NULL);
	qps[QP_SRQ] = create_qp(IBV_QPT_RC, srq);
	qps[QP_ERR] = create_qp(IBV_QPT_RC, NULL);
	qps[QP_UC] = create_qp(IBV_QPT_UC, NULL);
	qps[QP_UD] = create_qp(IBV_QPT_UD, NULL);
	for (i = 0; i < NQP; i++)
		me.qpn[i] = qps[i]->qp_num;
}

/* Each side sends from PSN base + QP index: A 0x1000, B 0x2000. */
static uint32_t psn_of(int side_b, int i)
{
	return (side_b ? 0x2000 : 0x1000) + i;
}

static void connect_qps(void)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .access = ALL_ACCESS, .rd_atomic = 4,
		.rnr_retry = 7, .timeout = 14, .gid_index = gid_index,
	};
	struct conn_peer cp = { .gid = peer.gid };
	int i;

	for (i = 0; i < QP_UD; i++) {
		p.psn = psn_of(is_b, i);
		cp.qpn = peer.qpn[i];
		cp.psn = psn_of(!is_b, i);
		conn_to_rts(qps[i], is_b ? "B" : "A", &p, &cp);
	}
	conn_ud_to_rts(qps[QP_UD], is_b ? "B" : "A", QKEY,
		       psn_of(is_b, QP_UD));
}

/* --- posting and completions ------------------------------------------- */

static void post_recv(struct ibv_qp *qp, uint8_t *at, uint32_t len,
		      uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)at, len, tgt_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = at ? 1 : 0 }, *bad;
	int err;

	if (qp)
		err = ibv_post_recv(qp, &wr, &bad);
	else
		err = ibv_post_srq_recv(srq, &wr, &bad);
	CHECK(!err, "post_recv: %s", strerror(err));
}

/*
 * A's work request @op on QP @q: @len bytes from @local (in @lkey's MR)
 * to or from the peer's @remote (@rkey); atomics use @add and @swap.
 */
struct req {
	int q;
	enum ibv_wr_opcode op;
	uint64_t local;
	uint32_t len, lkey;
	uint64_t remote;
	uint32_t rkey;
	uint64_t add, swap;
	struct ibv_ah *ah;
};

static uint64_t post_req(const struct req *r)
{
	struct ibv_sge sge = { r->local, r->len, r->lkey };
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = &sge, .num_sge = 1,
		.opcode = r->op, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(IMM),
	}, *bad;
	int err;

	if (r->op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
	    r->op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = r->remote;
		wr.wr.atomic.rkey = r->rkey;
		wr.wr.atomic.compare_add = r->add;
		wr.wr.atomic.swap = r->swap;
	} else if (r->ah) {
		wr.wr.ud.ah = r->ah;
		wr.wr.ud.remote_qpn = peer.qpn[QP_UD];
		wr.wr.ud.remote_qkey = QKEY;
	} else {
		wr.wr.rdma.remote_addr = r->remote;
		wr.wr.rdma.rkey = r->rkey;
	}
	err = ibv_post_send(qps[r->q], &wr, &bad);
	CHECK(!err, "post_send: %s", strerror(err));
	return wr.wr_id;
}

static enum ibv_wc_opcode wc_of(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_WC_FETCH_ADD;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_WC_COMP_SWAP;
	default:
		return IBV_WC_SEND;
	}
}

/* A: posts @r and waits for its completion with @status. */
static void run_req(const struct req *r, enum ibv_wc_status status,
		    const char *what)
{
	struct ibv_wc wc;
	uint64_t id = post_req(r);

	conn_expect_wc(cq, qps[r->q], "A", what, &wc, id, status,
		       wc_of(r->op), WAIT_MS);
}

/* B: the receive @id on QP @q, of @len bytes, with immediate if @imm. */
static void expect_recv(int q, uint64_t id, uint32_t len, int imm,
			const char *what)
{
	struct ibv_wc wc;

	conn_expect_wc(cq, qps[q], "B", what, &wc, id, IBV_WC_SUCCESS,
		       imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV,
		       WAIT_MS);
	CHECK(wc.byte_len == len, "%s: received %u bytes, not %u", what,
	      wc.byte_len, len);
	CHECK(!imm || ((wc.wc_flags & IBV_WC_WITH_IMM) &&
		       ntohl(wc.imm_data) == IMM),
	      "%s: immediate data flags %#x value %#x", what, wc.wc_flags,
	      ntohl(wc.imm_data));
}

/* A's source at SRC_AT on, for @len bytes, toward slice @n of B. */
static struct req to_slice(int q, enum ibv_wr_opcode op, uint32_t len, int n)
{
	struct req r = { .q = q, .op = op, .local = me.src_va + SRC_AT,
			 .len = len, .lkey = src_mr->lkey,
			 .remote = peer_landing(n), .rkey = peer.tgt_rkey };

	return r;
}

/* --- the checks -------------------------------------------------------- */

/* RC SEND, WRITE or WRITE with immediate of @len bytes into slice @n. */
static void rc_into(enum ibv_wr_opcode op, uint32_t len, int n)
{
	int send = op == IBV_WR_SEND, imm = op == IBV_WR_RDMA_WRITE_WITH_IMM;
	struct req r = to_slice(QP_RC, op, len, n);
	char what[96];

	snprintf(what, sizeof(what), "RC %s of %u bytes",
		 send ? "send" : imm ? "write with imm" : "write", len);
	if (is_b) {
		if (send || imm)
			post_recv(qps[QP_RC], send ? landing(n) : NULL,
				  len + GUARD, n);
		tell(CTL_READY);
		if (send || imm)
			expect_recv(QP_RC, n, len, imm, what);
		else
			expect(CTL_SENT, what);
		check_pattern_in_zeros(landing(n), len, SEED_A, SRC_AT, what);
		tell(CTL_CHECKED);
	} else {
		expect(CTL_READY, what);
		run_req(&r, IBV_WC_SUCCESS, what);
		if (!send && !imm)
			tell(CTL_SENT);
		expect(CTL_CHECKED, what);
	}
	printf("ok %s into never-touched ODP memory\n", what);
}

/* RC READ of @len bytes of B's source into A's slice @n. */
static void rc_read(uint32_t len, int n)
{
	struct req r = { .q = QP_RC, .op = IBV_WR_RDMA_READ,
			 .local = (uintptr_t)landing(n), .len = len,
			 .lkey = tgt_mr->lkey, .remote = peer.src_va + 4099,
			 .rkey = peer.src_rkey };
	char what[64];

	snprintf(what, sizeof(what), "RC read of %u bytes", len);
	if (is_b)
		return;		/* nothing to do or see */
	run_req(&r, IBV_WC_SUCCESS, what);
	check_pattern_in_zeros(landing(n), len, SEED_B, 4099, what);
	printf("ok %s from B's ODP source into never-touched ODP memory\n",
	       what);
}

/* A's word for atomic results in slice @n: across a page boundary. */
static uint8_t *result_at(int n)
{
	return tgt + (size_t)n * SLICE + PAGE - 4;
}

/* B's word for atomics in slice @n: the start of its second page. */
static uint64_t word_off(int n)
{
	return (uint64_t)n * SLICE + PAGE;
}

/* @op on B's word in slice @n, the result into A's slice @n + @k. */
static void atomic_step(enum ibv_wr_opcode op, uint64_t add, uint64_t swap,
			uint64_t want_old, int n, int k, const char *what)
{
	struct req r = { .q = QP_RC, .op = op,
			 .local = (uintptr_t)result_at(n + k), .len = 8,
			 .lkey = tgt_mr->lkey, .remote = peer.tgt_va + word_off(n),
			 .rkey = peer.tgt_rkey, .add = add, .swap = swap };
	uint64_t old;

	run_req(&r, IBV_WC_SUCCESS, what);
	check_zero(result_at(n + k) - GUARD, GUARD, what);
	check_zero(result_at(n + k) + 8, GUARD, what);
	memcpy(&old, result_at(n + k), 8);
	CHECK(old == want_old, "%s: returned %#llx, expected %#llx", what,
	      (unsigned long long)old, (unsigned long long)want_old);
}

/* FETCH_ADD and CMP_SWAP on a never-touched word of B's slice @n. */
static void rc_atomics(int n)
{
	const uint64_t add = 0x500000005ull, swap = 0x1234567890abcdefull;
	uint64_t word;

	if (is_b) {
		expect(CTL_SENT, "atomics");
		memcpy(&word, tgt + word_off(n), 8);
		CHECK(word == swap, "atomics: B's word is %#llx, not %#llx",
		      (unsigned long long)word, (unsigned long long)swap);
		check_zero(tgt + word_off(n) - GUARD, GUARD, "atomics");
		check_zero(tgt + word_off(n) + 8, GUARD, "atomics");
		tell(CTL_CHECKED);
	} else {
		atomic_step(IBV_WR_ATOMIC_FETCH_AND_ADD, add, 0, 0, n, 0,
			    "fetch_add on a never-touched word");
		atomic_step(IBV_WR_ATOMIC_CMP_AND_SWP, add, swap, add, n, 1,
			    "cmp_swap that matches");
		atomic_step(IBV_WR_ATOMIC_CMP_AND_SWP, add, 7, swap, n, 2,
			    "cmp_swap that does not match");
		tell(CTL_SENT);
		expect(CTL_CHECKED, "atomics");
	}
	printf("ok RC fetch_add, cmp_swap (match, mismatch) on never-touched ODP memory\n");
}

/* Two SENDs into B's SRQ, whose buffers are never-touched slices. */
static void rc_srq(int n)
{
	const uint32_t len[2] = { SMALL, 5000 };
	struct req r;
	int i;

	if (is_b) {
		for (i = 0; i < 2; i++)
			post_recv(NULL, landing(n + i), LARGE, n + i);
		tell(CTL_READY);
		for (i = 0; i < 2; i++) {
			expect_recv(QP_SRQ, n + i, len[i], 0, "SRQ receive");
			check_pattern_in_zeros(landing(n + i), len[i], SEED_A,
					       SRC_AT + i * 777,
					       "SRQ receive");
		}
		tell(CTL_CHECKED);
	} else {
		expect(CTL_READY, "SRQ");
		for (i = 0; i < 2; i++) {
			r = to_slice(QP_SRQ, IBV_WR_SEND, len[i], 0);
			r.local += i * 777;
			run_req(&r, IBV_WC_SUCCESS, "send into the SRQ");
		}
		expect(CTL_CHECKED, "SRQ");
	}
	printf("ok RC sends into an SRQ with never-touched ODP receive buffers, in order\n");
}

/*
 * UC or UD (@r->ah) @r->op, @r->len bytes into B's slice @n (after the
 * GRH on UD): A sends again until B has it, then nothing more arrives.
 */
static void until_arrived(struct req *r, int n, const char *what)
{
	int wait_wc = r->op != IBV_WR_RDMA_WRITE, q = r->q, tries = 0;
	uint32_t grh = r->ah ? GRH : 0;
	struct ibv_wc wc;
	uint8_t *at = landing(n);
	enum ctl verdict;

	if (is_b) {
		if (wait_wc)
			post_recv(qps[q], r->op == IBV_WR_SEND ? at : NULL,
				  grh + r->len + GUARD, n);
		tell(CTL_READY);
		do {
			CHECK(++tries <= TRIES, "%s: nothing arrived in %d attempts",
			      what, TRIES);
			expect(CTL_SENT, what);
			if (wait_wc)
				verdict = conn_poll(cq, &wc, RETRY_MS) ?
					  CTL_GOT : CTL_AGAIN;
			else {
				usleep(RETRY_MS * 1000);
				verdict = is_pattern(at, r->len, SEED_A, SRC_AT) ?
					  CTL_GOT : CTL_AGAIN;
			}
			tell(verdict);
		} while (verdict == CTL_AGAIN);
		if (wait_wc) {
			CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)n &&
			      wc.qp_num == qps[q]->qp_num &&
			      wc.byte_len == grh + r->len,
			      "%s: receive status '%s' wr_id %llu length %u",
			      what, ibv_wc_status_str(wc.status),
			      (unsigned long long)wc.wr_id, wc.byte_len);
			CHECK(!r->ah || ((wc.wc_flags & IBV_WC_GRH) &&
					 wc.src_qp == peer.qpn[QP_UD]),
			      "%s: wc_flags %#x src_qp %u", what, wc.wc_flags,
			      wc.src_qp);
			CHECK(r->op == IBV_WR_SEND ? wc.opcode == IBV_WC_RECV :
			      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			      (wc.wc_flags & IBV_WC_WITH_IMM) &&
			      ntohl(wc.imm_data) == IMM,
			      "%s: receive opcode %d flags %#x immediate %#x",
			      what, wc.opcode, wc.wc_flags, ntohl(wc.imm_data));
		}
		conn_expect_no_wc(cq, "B", what, QUIET_MS);
		check_zero(at - GUARD, GUARD, what);
		check_pattern(at + grh, r->len, SEED_A, SRC_AT, what);
		check_zero(at + grh + r->len, GUARD, what);
		tell(CTL_CHECKED);
	} else {
		expect(CTL_READY, what);
		do {
			run_req(r, IBV_WC_SUCCESS, what);
			tell(CTL_SENT);
			tries++;
		} while ((verdict = hear()) == CTL_AGAIN);
		CHECK(verdict == CTL_GOT, "%s: the peer said %d", what, verdict);
		expect(CTL_CHECKED, what);
	}
	printf("ok %s of %u bytes into never-touched ODP memory: arrived at attempt %d\n",
	       what, r->len, tries);
}

static void uc_and_ud(int n)
{
	struct ibv_ah_attr aha = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = peer.gid, .sgid_index = gid_index,
			 .hop_limit = 64 },
	};
	struct req r;

	r = to_slice(QP_UC, IBV_WR_SEND, SMALL, n);
	until_arrived(&r, n, "UC send");
	r = to_slice(QP_UC, IBV_WR_RDMA_WRITE, SMALL, n + 1);
	until_arrived(&r, n + 1, "UC write");
	r = to_slice(QP_UC, IBV_WR_RDMA_WRITE_WITH_IMM, SMALL, n + 2);
	until_arrived(&r, n + 2, "UC write with imm");
	r = to_slice(QP_UD, IBV_WR_SEND, UD_LEN, n + 3);
	if (!is_b) {
		r.ah = ibv_create_ah(pd, &aha);
		CHECK(r.ah, "create_ah: %s", strerror(errno));
	} else {
		r.ah = (struct ibv_ah *)1;	/* B: only "this is UD" */
	}
	until_arrived(&r, n + 3, "UD send");
	if (!is_b)
		CHECK(!ibv_destroy_ah(r.ah), "destroy_ah");
}

/* A WRITE into B's munmapped page, after one into the page before it. */
static void rc_hole(void)
{
	struct req r = { .q = QP_ERR, .op = IBV_WR_RDMA_WRITE,
			 .local = me.src_va + SRC_AT, .len = 100,
			 .lkey = src_mr->lkey, .remote = peer.hole_va + 64,
			 .rkey = peer.hole_rkey };
	const char *what = "RC write into a munmapped page of an ODP MR";

	if (is_b) {
		/*
		 * Only now: a page munmapped earlier could be taken again by
		 * the next mmap (a queue's ring), and rightly written into.
		 */
		CHECK(!munmap(hole + PAGE, PAGE), "munmap: %s", strerror(errno));
		tell(CTL_READY);
		expect(CTL_SENT, what);
		check_pattern_in_zeros(hole + 64, 100, SEED_A, SRC_AT, what);
		tell(CTL_CHECKED);
	} else {
		expect(CTL_READY, what);
		run_req(&r, IBV_WC_SUCCESS, "RC write into its mapped page");
		r.remote = peer.hole_va + PAGE + 64;
		run_req(&r, IBV_WC_REM_ACCESS_ERR, what);
		tell(CTL_SENT);
		expect(CTL_CHECKED, what);
	}
	printf("ok %s: remote access error\n", what);
}

int main(int argc, char **argv)
{
	const char *dev = NULL;
	int opt, port = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:x:p:")) != -1) {
		CHECK(opt == 'd' || opt == 'x' || opt == 'p', USAGE);
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'x')
			gid_index = atoi(optarg);
		else
			port = atoi(optarg);
	}
	CHECK(dev && port && argc - optind <= 1, USAGE);
	is_b = optind == argc;

	ctx = open_by_name(dev);
	CHECK(ctx, "no device %s", dev);
	CHECK(!ibv_query_gid(ctx, 1, gid_index, &me.gid), "query_gid %d",
	      gid_index);
	pd = ibv_alloc_pd(ctx);
	CHECK(pd, "alloc_pd");
	setup_memory();
	setup_qps();
	ctl_open(is_b ? NULL : argv[optind], port);
	ctl_write(&me, sizeof(me));
	ctl_read(&peer, sizeof(peer));
	connect_qps();
	printf("ok %s: ODP regions and QPs, connected\n", is_b ? "B" : "A");

	rc_into(IBV_WR_SEND, SMALL, 0);
	rc_into(IBV_WR_SEND, LARGE, 1);
	rc_into(IBV_WR_RDMA_WRITE, SMALL, 2);
	rc_into(IBV_WR_RDMA_WRITE, LARGE, 3);
	rc_into(IBV_WR_RDMA_WRITE_WITH_IMM, SMALL, 4);
	rc_into(IBV_WR_RDMA_WRITE_WITH_IMM, LARGE, 5);
	rc_read(SMALL, 6);
	rc_read(LARGE, 7);
	rc_atomics(8);		/* 8 to 10 */
	rc_srq(11);		/* 11 and 12 */
	uc_and_ud(13);		/* 13 to 16 */
	rc_hole();
	printf("odp_wire all ok\n");
	return 0;
}
