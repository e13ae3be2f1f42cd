// SPDX-License-Identifier: GPL-2.0
/*
 * odp [-r] DEV_A GID_A DEV_B GID_B: on-demand paging (ODP) memory regions
 * between two devices in one process (RDMA devices are visible from every
 * namespace; DEV_A and DEV_B may be the same device). A is the requester
 * of every connection, B the responder; path MTU 1024. Every buffer of a
 * check is a mapping of its own, registered with IBV_ACCESS_ON_DEMAND: a
 * destination is fresh anonymous memory the process never touches before
 * the transfer (it reads as zeros), a source a memfd filled by write(2)
 * and mapped, so that none of its pages is present in the MR either.
 * Transfers of 3 pages + 100 bytes and of 256 KiB start 123 bytes into
 * the source and 37 bytes before the end of a destination page. Every
 * transfer is checked byte by byte, with the 64 bytes on each side of it
 * still zero. Checks:
 *  - both devices' odp_caps: general IBV_ODP_SUPPORT without
 *    IBV_ODP_SUPPORT_IMPLICIT; RC SEND, RECV, WRITE, READ, ATOMIC,
 *    SRQ_RECV; UC SEND, RECV, WRITE, SRQ_RECV; UD SEND, RECV, SRQ_RECV;
 *    XRC none;
 *  - RC into never-touched memory at both ends, each must simply complete:
 *    SEND, WRITE, WRITE with immediate (the receive completes with it),
 *    READ (remote source and local sink ODP), at both sizes; FETCH_ADD
 *    and CMP_SWAP (match and mismatch) on never-touched targets with the
 *    result in a never-touched local buffer (one across a page boundary),
 *    and a CMP_SWAP on the target the FETCH_ADD faulted in; an SRQ whose
 *    receive buffers are ODP: two messages land in its two WQEs in order;
 *  - UC SEND, WRITE and WRITE with immediate of 3 pages + 100 bytes, and
 *    UD SEND of 1000 bytes (after the 40-byte GRH, across a page
 *    boundary): what lands on pages that are not present is dropped
 *    while the fault is served, so the message is sent again (up to 50
 *    attempts, 20 ms apart) until it arrives whole, exactly once; the
 *    number of attempts is reported. Then a SEND from another
 *    never-touched source into the receive pages, now present, must
 *    arrive at the first attempt: the sender waits for its own faults
 *    and drops nothing;
 *  - each device's hw counter odp_faults grew over the checks above;
 *  - invalidation between RC transfers: a WRITE's target dropped with
 *    MADV_DONTNEED reads zeros, and the next WRITE lands in its new
 *    pages; the sender's memfd munmapped and another file mapped at the
 *    same address (MAP_FIXED), the same for the target: the next WRITE
 *    carries the new contents into the new target file, the old target
 *    file keeps the first WRITE only, and a SEND carries the new contents
 *    too; fork() after the source (private anonymous memory) was sent
 *    from: the child writes its copy and exits, a WRITE still carries
 *    the parent's contents; the parent writes, a WRITE carries the new
 *    ones;
 *  - 64 RC WRITEs of 64 KiB in one post into a never-touched 4 MiB
 *    target: all complete in order, every byte lands;
 *  - errors, each on a fresh RC pair after a good operation (checked),
 *    with A's QP in ERR after: WRITE, READ, FETCH_ADD and CMP_SWAP aimed
 *    at part of an ODP MR that was munmapped after registration, or
 *    never mapped (the good one: the same on its mapped part) -
 *    IBV_WC_REM_ACCESS_ERR, nothing lands locally; a SEND and a WRITE
 *    gathered from such a part of the sender's MR - IBV_WC_LOC_PROT_ERR,
 *    nothing arrives; a WRITE into an MR with remote write access over a
 *    PROT_READ mapping - IBV_WC_REM_ACCESS_ERR, the file unchanged.
 * -r (rdma_rxe, which has no ODP on our kernels): only checks that the
 * devices report no IBV_ODP_SUPPORT and that a registration with
 * IBV_ACCESS_ON_DEMAND fails with EOPNOTSUPP or EINVAL, reported on a
 * line "rxe quirk: no ODP ...".
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define PAGE		4096u
#define REGION		(512 * 1024u)	/* each buffer of a check */
#define SMALL		(3 * PAGE + 100)
#define BIG		(256 * 1024u)
#define SRC_OFF		120		/* sources from SRC_OFF + 3 */
#define SRC_AT		(SRC_OFF + 3)
#define RECV_AT		(PAGE - 37)	/* receives and WRITE targets */
#define WRITE_AT	RECV_AT
#define DST_AT		RECV_AT
#define RECV_CAP	(BIG + GUARD)
#define SRQ2_AT		(DST_AT + 64 * 1024)	/* the SRQ's second WQE */
#define MAX_WR		64
#define WAIT_MS		20000		/* for a completion that must come */
#define QUIET_MS	200		/* for one that must not */
#define TRIES		50		/* UC and UD: attempts of a message */
#define RETRY_MS	20		/* and the wait after each */
#define BULK_N		64
#define BULK_LEN	(64 * 1024u)
#define HOLE_AT		(4 * PAGE)	/* errors: the unmapped part */
#define HOLE_LEN	(4 * PAGE)
#define GOOD_AT		(2 * PAGE - 512)	/* errors: the good operation */
#define ERR_LEN		1000
#define GRH		40
#define UD_LEN		1000		/* UD payload, within the MTU */
#define UD_AT		(PAGE - GRH - 500)	/* payload crosses a page */
#define UD_SRC		(PAGE - 300)
#define QKEY		0x0d0d0d0du
#define IMM		0x0dd0beefu
#define USAGE		"usage: odp [-r] DEV_A GID_A DEV_B GID_B"

#define LW		IBV_ACCESS_LOCAL_WRITE
#define REMOTE_ALL	(LW | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

#include "check.h"
#include "data_pattern.h"
#include "data_xfer.h"
#include "end.h"
#include "port_counter.h"
#include "prog_args.h"
#include "rc_conn.h"

/* One buffer of a check: a mapping of its own, its ODP MR. */
struct region {
	uint8_t *p;
	size_t len;
	int fd;			/* its memfd, or -1: anonymous memory */
	int seed;		/* byte k is pattern_byte(seed, k); -1: zeros */
	struct ibv_mr *mr;
};

static struct end a, b;
static const char *dev_a, *dev_b;
static int rxe_quirks;
static int next_seed = 1;
static uint64_t next_id = 1;

/* @len bytes of @fd (-1: anonymous memory) at @at (NULL: anywhere). */
static uint8_t *map_at(void *at, size_t len, int fd, int prot)
{
	int flags = fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED;
	void *p;

	p = mmap(at, len, prot, flags | (at ? MAP_FIXED : 0), fd, 0);
	CHECK(p != MAP_FAILED, "mmap of %zu bytes: %s", len, strerror(errno));
	return p;
}

/* A memfd of @len bytes: pattern @seed written by write(2), or zeros. */
static int new_memfd(size_t len, int seed)
{
	uint8_t chunk[16384];
	size_t off, n;
	ssize_t w;
	int fd;

	fd = memfd_create("odp", MFD_CLOEXEC);
	CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
	CHECK(!ftruncate(fd, len), "ftruncate: %s", strerror(errno));
	for (off = 0; seed >= 0 && off < len; off += w) {
		n = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		fill_pattern(chunk, n, seed, off);
		w = write(fd, chunk, n);
		CHECK(w > 0, "write to the memfd: %s", strerror(errno));
	}
	return fd;
}

/* @r: @len bytes of @fd (-1: anonymous), holding @seed; not registered. */
static void map_region(struct region *r, size_t len, int fd, int seed,
		       int prot)
{
	r->p = map_at(NULL, len, fd, prot);
	r->len = len;
	r->fd = fd;
	r->seed = seed;
	r->mr = NULL;
}

static void reg_odp(struct end *e, struct region *r, unsigned int access)
{
	r->mr = ibv_reg_mr(e->pd, r->p, r->len, access | IBV_ACCESS_ON_DEMAND);
	CHECK(r->mr, "%s: ODP reg_mr of %zu bytes, access %#x: %s", e->name,
	      r->len, access, strerror(errno));
}

/* Fresh anonymous memory on @e, never touched, in an ODP MR. */
static void fresh_anon(struct end *e, struct region *r, size_t len,
		       unsigned int access)
{
	map_region(r, len, -1, -1, PROT_READ | PROT_WRITE);
	reg_odp(e, r, access);
}

/* A new memfd holding pattern @seed (-1: zeros), mapped, in an ODP MR. */
static void memfd_region(struct end *e, struct region *r, size_t len,
			 int seed, int prot, unsigned int access)
{
	map_region(r, len, new_memfd(len, seed), seed, prot);
	reg_odp(e, r, access);
}

/* A never-touched memfd source of pattern next_seed on A. */
static void memfd_src(struct region *r, size_t len)
{
	memfd_region(&a, r, len, next_seed++, PROT_READ, 0);
}

static void free_region(struct region *r)
{
	if (r->mr)
		CHECK(!ibv_dereg_mr(r->mr), "dereg_mr");
	CHECK(!munmap(r->p, r->len), "munmap: %s", strerror(errno));
	if (r->fd >= 0)
		close(r->fd);
}

/* Another file @fd (holding @seed) where @r's was; returns the old fd. */
static int remap(struct region *r, int fd, int seed, int prot)
{
	int old = r->fd;

	CHECK(!munmap(r->p, r->len), "munmap: %s", strerror(errno));
	CHECK(map_at(r->p, r->len, fd, prot) == r->p, "MAP_FIXED moved");
	r->fd = fd;
	r->seed = seed;
	return old;
}

/* The @len bytes at @p are all zero. */
static void check_zero(const uint8_t *p, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(!p[i], "%s: byte %zu of %zu that must be zero is %#x",
		      what, i, len, p[i]);
}

/* @dst at @doff holds @len bytes of @src from @soff, zeros around them. */
static void check_landed(const struct region *dst, size_t doff, size_t len,
			 const struct region *src, size_t soff,
			 const char *what)
{
	check_zero(dst->p + doff - GUARD, GUARD, what);
	check_pattern(dst->p + doff, len, src->seed, soff, what);
	check_zero(dst->p + doff + len, GUARD, what);
}

static struct ibv_sge sge_in(const struct region *r, size_t off,
			     uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)(r->p + off), .length = len,
			     .lkey = r->mr->lkey };

	return s;
}

static int is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * A signalled WR @op of one SGE (*@sge): @len bytes at @loff of the local
 * @l; for RDMA and atomics at @roff of the remote @r.
 */
static struct ibv_send_wr wr_of(struct ibv_sge *sge, enum ibv_wr_opcode op,
				const struct region *l, size_t loff,
				uint32_t len, const struct region *r,
				size_t roff)
{
	struct ibv_send_wr wr = {
		.wr_id = next_id++, .sg_list = sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(IMM),
	};

	*sge = sge_in(l, loff, len);
	if (r && is_atomic(op)) {
		wr.wr.atomic.remote_addr = (uintptr_t)(r->p + roff);
		wr.wr.atomic.rkey = r->mr->rkey;
	} else if (r) {
		wr.wr.rdma.remote_addr = (uintptr_t)(r->p + roff);
		wr.wr.rdma.rkey = r->mr->rkey;
	}
	return wr;
}

static void post_wr(struct end *e, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad = NULL;
	int err = ibv_post_send(e->qp, wr, &bad);

	CHECK(!err, "%s: ibv_post_send: %s", e->name, strerror(err));
}

/* @wr from A completes successfully as @opcode (*@wc). */
static void run_ok(struct ibv_send_wr *wr, enum ibv_wc_opcode opcode,
		   struct ibv_wc *wc, const char *what)
{
	post_wr(&a, wr);
	expect_wc(&a, wc, what, wr->wr_id, IBV_WC_SUCCESS, opcode);
}

/* @wc is B's successful @opcode of @len bytes for its WQE @wr_id. */
static void check_recv(const struct ibv_wc *wc, uint64_t wr_id,
		       enum ibv_wc_opcode opcode, uint32_t len,
		       const char *what)
{
	CHECK(wc->status == IBV_WC_SUCCESS && wc->wr_id == wr_id &&
	      wc->opcode == opcode && wc->qp_num == b.qp->qp_num,
	      "%s: B's completion wr_id %llu status '%s' opcode %d qp %u, "
	      "expected wr_id %llu opcode %d qp %u", what,
	      (unsigned long long)wc->wr_id, ibv_wc_status_str(wc->status),
	      wc->opcode, wc->qp_num, (unsigned long long)wr_id, opcode,
	      b.qp->qp_num);
	CHECK(wc->byte_len == len, "%s: byte_len %u, expected %u", what,
	      wc->byte_len, len);
}

static void check_imm(const struct ibv_wc *wc, const char *what)
{
	CHECK(wc->wc_flags & IBV_WC_WITH_IMM, "%s: wc_flags %#x", what,
	      wc->wc_flags);
	CHECK(ntohl(wc->imm_data) == IMM, "%s: imm %#x, expected %#x", what,
	      ntohl(wc->imm_data), IMM);
}

/* A new pair of QPs of @type between A and B (SRQ: B's QP on @srq). */
static void connect_pair(enum ibv_qp_type type, struct ibv_srq *srq)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rd_atomic = 4, .rnr_retry = 7,
		.timeout = 14,
		.access = type == IBV_QPT_RC ? REMOTE_ALL :
					       LW | IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp_init_attr init = {
		.qp_type = type, .srq = srq,
		.cap = { .max_send_wr = MAX_WR, .max_send_sge = 1 },
	};

	create_qp(&a, type, MAX_WR, 0, 0);
	if (srq) {
		b.cq = ibv_create_cq(b.ctx, 4 * MAX_WR, NULL, NULL, 0);
		CHECK(b.cq, "B: create_cq: %s", strerror(errno));
		init.send_cq = init.recv_cq = b.cq;
		b.qp = ibv_create_qp(b.pd, &init);
		CHECK(b.qp, "B: create_qp on an SRQ: %s", strerror(errno));
	} else {
		create_qp(&b, type, MAX_WR, 0, 0);
	}
	end_connect(&a, &b, &p);
}

static const char *op_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:			return "send";
	case IBV_WR_RDMA_WRITE:			return "write";
	case IBV_WR_RDMA_WRITE_WITH_IMM:	return "write with imm";
	case IBV_WR_RDMA_READ:			return "read";
	case IBV_WR_ATOMIC_FETCH_AND_ADD:	return "fetch_add";
	case IBV_WR_ATOMIC_CMP_AND_SWP:		return "cmp_swap";
	default:				return "?";
	}
}

static enum ibv_wc_opcode wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:			return IBV_WC_SEND;
	case IBV_WR_RDMA_READ:			return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:	return IBV_WC_FETCH_ADD;
	case IBV_WR_ATOMIC_CMP_AND_SWP:		return IBV_WC_COMP_SWAP;
	default:				return IBV_WC_RDMA_WRITE;
	}
}

/* --- capabilities ------------------------------------------------------ */

static void query_ex(struct end *e, const char *dev,
		     struct ibv_device_attr_ex *attr)
{
	int err;

	memset(attr, 0, sizeof(*attr));
	err = ibv_query_device_ex(e->ctx, NULL, attr);
	CHECK(!err, "%s: ibv_query_device_ex: %s", dev, strerror(err));
}

static void check_caps(struct end *e, const char *dev)
{
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			    IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	const uint32_t uc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_SRQ_RECV;
	const uint32_t ud = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			    IBV_ODP_SUPPORT_SRQ_RECV;
	struct ibv_device_attr_ex attr;
	const struct ibv_odp_caps *c = &attr.odp_caps;
	uint64_t gen;

	query_ex(e, dev, &attr);
	gen = c->general_caps;
	CHECK((gen & IBV_ODP_SUPPORT) && !(gen & IBV_ODP_SUPPORT_IMPLICIT),
	      "%s: odp general_caps %#" PRIx64 ": want SUPPORT, not IMPLICIT",
	      dev, gen);
	CHECK(c->per_transport_caps.rc_odp_caps == rc,
	      "%s: rc_odp_caps %#x, expected %#x", dev,
	      c->per_transport_caps.rc_odp_caps, rc);
	CHECK(c->per_transport_caps.uc_odp_caps == uc,
	      "%s: uc_odp_caps %#x, expected %#x", dev,
	      c->per_transport_caps.uc_odp_caps, uc);
	CHECK(c->per_transport_caps.ud_odp_caps == ud,
	      "%s: ud_odp_caps %#x, expected %#x", dev,
	      c->per_transport_caps.ud_odp_caps, ud);
	CHECK(!attr.xrc_odp_caps, "%s: xrc_odp_caps %#x", dev,
	      attr.xrc_odp_caps);
	printf("ok %s odp_caps: general %#" PRIx64 ", rc %#x, uc %#x, ud %#x\n",
	       dev, gen, rc, uc, ud);
}

/* -r: rdma_rxe reports no ODP and refuses an ODP registration. */
static void check_no_odp(struct end *e, const char *dev)
{
	struct ibv_device_attr_ex attr;
	struct region r;
	int err;

	query_ex(e, dev, &attr);
	CHECK(!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT),
	      "%s: odp general_caps %#" PRIx64 " has IBV_ODP_SUPPORT", dev,
	      (uint64_t)attr.odp_caps.general_caps);
	map_region(&r, PAGE, -1, -1, PROT_READ | PROT_WRITE);
	errno = 0;
	r.mr = ibv_reg_mr(e->pd, r.p, r.len, LW | IBV_ACCESS_ON_DEMAND);
	err = errno;
	CHECK(!r.mr && (err == EOPNOTSUPP || err == EINVAL),
	      "%s: reg_mr with IBV_ACCESS_ON_DEMAND: %s", dev,
	      r.mr ? "registered" : strerror(err));
	free_region(&r);
	printf("rxe quirk: no ODP on %s: general_caps %#" PRIx64
	       ", reg_mr with IBV_ACCESS_ON_DEMAND fails: %s\n", dev,
	       (uint64_t)attr.odp_caps.general_caps, strerror(err));
}

/* Port 1's odp_faults of @dev. */
static long long odp_faults(const char *dev)
{
	long long v = port_counter(dev, "odp_faults");

	CHECK(v >= 0, "%s: no hw counter odp_faults", dev);
	return v;
}

/* --- RC into never-touched memory -------------------------------------- */

/* SEND @len bytes from @soff of @src into @doff of @dst: lands whole. */
static void send_into(const struct region *src, size_t soff, uint32_t len,
		      const struct region *dst, size_t doff, const char *what)
{
	struct ibv_sge sge, rsge = sge_in(dst, doff, len + GUARD);
	struct ibv_send_wr wr = wr_of(&sge, IBV_WR_SEND, src, soff, len,
				      NULL, 0);
	struct ibv_wc wc;

	post_recv_sges(&b, wr.wr_id, &rsge, 1);
	run_ok(&wr, IBV_WC_SEND, &wc, what);
	expect_wc(&b, &wc, what, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == len, "%s: byte_len %u", what, wc.byte_len);
	check_landed(dst, doff, len, src, soff, what);
}

/* WRITE (with immediate if @imm) @len bytes from @src into @dst. */
static void write_into(const struct region *src, size_t soff, uint32_t len,
		       const struct region *dst, size_t doff, int imm,
		       const char *what)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = wr_of(&sge, imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
						  IBV_WR_RDMA_WRITE,
				      src, soff, len, dst, doff);
	struct ibv_wc wc;

	if (imm)
		post_recv_sges(&b, wr.wr_id, NULL, 0);
	run_ok(&wr, IBV_WC_RDMA_WRITE, &wc, what);
	if (imm) {
		expect_wc(&b, &wc, what, wr.wr_id, IBV_WC_SUCCESS,
			  IBV_WC_RECV_RDMA_WITH_IMM);
		CHECK(wc.byte_len == len, "%s: byte_len %u", what,
		      wc.byte_len);
		check_imm(&wc, what);
	}
	check_landed(dst, doff, len, src, soff, what);
}

/* One @op of @len bytes, both ends never touched. */
static void rc_first_touch(enum ibv_wr_opcode op, uint32_t len)
{
	int read = op == IBV_WR_RDMA_READ;
	struct region src, dst;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	char what[112];

	snprintf(what, sizeof(what),
		 "RC %s of %u bytes, never-touched ODP memory at both ends",
		 op_name(op), len);
	/* A READ's source is on B, its sink on A. */
	memfd_region(read ? &b : &a, &src, REGION, next_seed++, PROT_READ,
		     read ? IBV_ACCESS_REMOTE_READ : 0);
	fresh_anon(read ? &a : &b, &dst, REGION,
		   op == IBV_WR_SEND || read ? LW :
					      LW | IBV_ACCESS_REMOTE_WRITE);
	if (op == IBV_WR_SEND) {
		send_into(&src, SRC_AT, len, &dst, DST_AT, what);
	} else if (read) {
		wr = wr_of(&sge, op, &dst, DST_AT, len, &src, SRC_AT);
		run_ok(&wr, IBV_WC_RDMA_READ, &wc, what);
		CHECK(wc.byte_len == len, "%s: byte_len %u", what,
		      wc.byte_len);
		check_landed(&dst, DST_AT, len, &src, SRC_AT, what);
	} else {
		write_into(&src, SRC_AT, len, &dst, DST_AT,
			   op == IBV_WR_RDMA_WRITE_WITH_IMM, what);
	}
	printf("ok %s\n", what);
	free_region(&src);
	free_region(&dst);
}

static void test_rc(void)
{
	const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ,
	};
	const uint32_t sizes[] = { SMALL, BIG };
	unsigned int i, j;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (j = 0; j < sizeof(ops) / sizeof(ops[0]); j++)
			rc_first_touch(ops[j], sizes[i]);
}

/*
 * @op on the 8 bytes at @toff of @tgt (B), its result to @loff of @res
 * (A): returns @before, leaves @after; zeros around both.
 */
static void atomic_into(const struct region *res, size_t loff,
			const struct region *tgt, size_t toff,
			enum ibv_wr_opcode op, uint64_t compare_add,
			uint64_t swap, uint64_t before, uint64_t after,
			const char *what)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = wr_of(&sge, op, res, loff, 8, tgt, toff);
	struct ibv_wc wc;
	uint64_t v;

	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	run_ok(&wr, wc_opcode(op), &wc, what);
	memcpy(&v, res->p + loff, 8);
	CHECK(v == before, "%s: returned %#" PRIx64 ", expected %#" PRIx64,
	      what, v, before);
	check_zero(res->p + loff - GUARD, GUARD, what);
	check_zero(res->p + loff + 8, GUARD, what);
	memcpy(&v, tgt->p + toff, 8);
	CHECK(v == after, "%s: target %#" PRIx64 ", expected %#" PRIx64,
	      what, v, after);
	check_zero(tgt->p + toff - GUARD, GUARD, what);
	check_zero(tgt->p + toff + 8, GUARD, what);
	printf("ok %s\n", what);
}

static void test_atomics(void)
{
	const uint64_t v1 = 0x0123456789abcdefull, v2 = 0xfedcba9876543210ull;
	const uint64_t v3 = 0x5555666677778888ull;
	struct region res, tgt;

	fresh_anon(&a, &res, REGION, LW);
	fresh_anon(&b, &tgt, REGION, LW | IBV_ACCESS_REMOTE_ATOMIC);
	atomic_into(&res, PAGE - 3, &tgt, PAGE + 8,
		    IBV_WR_ATOMIC_FETCH_AND_ADD, v1, 0, 0, v1,
		    "RC fetch_add, never-touched target, result across pages");
	atomic_into(&res, 3 * PAGE + 101, &tgt, 2 * PAGE + 16,
		    IBV_WR_ATOMIC_CMP_AND_SWP, 0, v2, 0, v2,
		    "RC cmp_swap (match), never-touched target and result");
	atomic_into(&res, 5 * PAGE + 77, &tgt, PAGE + 8,
		    IBV_WR_ATOMIC_CMP_AND_SWP, v1, v3, v1, v3,
		    "RC cmp_swap (match) on the fetch_add's target");
	atomic_into(&res, 7 * PAGE + 9, &tgt, 9 * PAGE + 24,
		    IBV_WR_ATOMIC_CMP_AND_SWP, 5, v2, 0, 0,
		    "RC cmp_swap (mismatch), never-touched target: kept");
	free_region(&res);
	free_region(&tgt);
}

/* A WQE of @len bytes at @off of @r on @srq. */
static void post_srq(struct ibv_srq *srq, const struct region *r,
		     size_t off, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = sge_in(r, off, len);
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;
	int err = ibv_post_srq_recv(srq, &wr, &bad);

	CHECK(!err, "post_srq_recv: %s", strerror(err));
}

/* Two SENDs into the two WQEs of an SRQ, all buffers never touched. */
static void test_srq(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	const char *what = "RC sends into an SRQ's never-touched ODP buffers";
	struct region s1, s2, dst;
	struct ibv_send_wr wr[2];
	struct ibv_sge sge[2];
	struct ibv_wc wc;
	struct ibv_srq *srq;

	srq = ibv_create_srq(b.pd, &sa);
	CHECK(srq, "create_srq: %s", strerror(errno));
	connect_pair(IBV_QPT_RC, srq);
	memfd_src(&s1, REGION);
	memfd_src(&s2, REGION);
	fresh_anon(&b, &dst, REGION, LW);
	post_srq(srq, &dst, DST_AT, SMALL + GUARD, 1);
	post_srq(srq, &dst, SRQ2_AT, BIG + GUARD, 2);
	wr[0] = wr_of(&sge[0], IBV_WR_SEND, &s1, SRC_AT, SMALL, NULL, 0);
	wr[1] = wr_of(&sge[1], IBV_WR_SEND, &s2, SRC_AT, BIG, NULL, 0);
	wr[0].next = &wr[1];
	post_wr(&a, wr);
	expect_wc(&a, &wc, what, wr[0].wr_id, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_wc(&a, &wc, what, wr[1].wr_id, IBV_WC_SUCCESS, IBV_WC_SEND);
	expect_wc(&b, &wc, what, 1, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == SMALL, "%s: byte_len %u", what, wc.byte_len);
	expect_wc(&b, &wc, what, 2, IBV_WC_SUCCESS, IBV_WC_RECV);
	CHECK(wc.byte_len == BIG, "%s: byte_len %u", what, wc.byte_len);
	check_landed(&dst, DST_AT, SMALL, &s1, SRC_AT, what);
	check_landed(&dst, SRQ2_AT, BIG, &s2, SRC_AT, what);
	printf("ok %s: %u and %u bytes, in posting order\n", what, SMALL, BIG);
	destroy_pair(&a, &b);
	CHECK(!ibv_destroy_srq(srq), "destroy_srq");
	free_region(&s1);
	free_region(&s2);
	free_region(&dst);
}

/* --- UC and UD: dropped while faulting, sent again --------------------- */

/*
 * Posts @wr on A until B has it: up to TRIES times, each after A's
 * completion (@opcode) waiting RETRY_MS for B's completion (*@wc) or,
 * with @want, for the @len bytes at @at to be those. Then nothing more
 * arrives at B. Returns the attempts it took.
 */
static int until_arrived(struct ibv_send_wr *wr, enum ibv_wc_opcode opcode,
			 struct ibv_wc *wc, const uint8_t *at,
			 const uint8_t *want, size_t len, const char *what)
{
	struct timespec nap = { 0, RETRY_MS * 1000000L };
	struct ibv_wc swc;
	int n;

	for (n = 1; n <= TRIES; n++) {
		post_wr(&a, wr);
		expect_wc(&a, &swc, what, wr->wr_id, IBV_WC_SUCCESS, opcode);
		if (!want && conn_poll(b.cq, wc, RETRY_MS))
			break;
		if (want) {
			nanosleep(&nap, NULL);
			if (!memcmp(at, want, len))
				break;
		}
	}
	CHECK(n <= TRIES, "%s: nothing arrived in %d attempts", what, TRIES);
	expect_no_wc(&b, what);
	return n;
}

/*
 * UC (@ah NULL) or UD (through @ah) SENDs into a never-touched receive
 * buffer: first from a never-touched source, then from another one into
 * the receive pages, which are present by then.
 */
static void test_dropped_send(struct ibv_ah *ah)
{
	const char *t = ah ? "UD" : "UC";
	uint32_t grh = ah ? GRH : 0, len = ah ? UD_LEN : SMALL;
	size_t doff = ah ? UD_AT : DST_AT, soff = ah ? UD_SRC : SRC_AT;
	struct region src, dst;
	struct ibv_sge sge, rsge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	char what[112];
	int round, n;

	fresh_anon(&b, &dst, REGION, LW);
	rsge = sge_in(&dst, doff, grh + len + GUARD);
	for (round = 0; round < 2; round++) {
		snprintf(what, sizeof(what), "%s send of %u bytes %s", t, len,
			 round ? "into the pages now present" :
				 "into never-touched ODP memory");
		memfd_src(&src, REGION);
		wr = wr_of(&sge, IBV_WR_SEND, &src, soff, len, NULL, 0);
		if (ah) {
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = b.qp->qp_num;
			wr.wr.ud.remote_qkey = QKEY;
		}
		post_recv_sges(&b, wr.wr_id, &rsge, 1);
		n = until_arrived(&wr, IBV_WC_SEND, &wc, NULL, NULL, 0, what);
		check_recv(&wc, wr.wr_id, IBV_WC_RECV, grh + len, what);
		CHECK(!ah || ((wc.wc_flags & IBV_WC_GRH) &&
			      wc.src_qp == a.qp->qp_num),
		      "%s: wc_flags %#x src_qp %u", what, wc.wc_flags,
		      wc.src_qp);
		/* UD: the GRH between the guard and the payload. */
		check_zero(dst.p + doff - GUARD, GUARD, what);
		check_pattern(dst.p + doff + grh, len, src.seed, soff, what);
		check_zero(dst.p + doff + grh + len, GUARD, what);
		/* The sender waits for its own pages: nothing is dropped. */
		CHECK(!round || n == 1,
		      "%s, from a never-touched source: %d attempts, not 1",
		      what, n);
		printf("ok %s, from a never-touched source: arrived at attempt %d\n",
		       what, n);
		free_region(&src);
	}
	free_region(&dst);
}

/* UC WRITE (with immediate if @imm) into never-touched ODP memory. */
static void test_uc_write(int imm)
{
	struct region src, dst;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;
	uint8_t *want = malloc(SMALL);
	char what[112];
	int n;

	CHECK(want, "out of memory");
	snprintf(what, sizeof(what),
		 "UC %s of %u bytes into never-touched ODP memory",
		 imm ? "write with imm" : "write", SMALL);
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	fill_pattern(want, SMALL, src.seed, SRC_AT);
	wr = wr_of(&sge, imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE,
		   &src, SRC_AT, SMALL, &dst, DST_AT);
	if (imm)
		post_recv_sges(&b, wr.wr_id, NULL, 0);
	/* A WRITE without immediate shows only in the bytes. */
	n = until_arrived(&wr, IBV_WC_RDMA_WRITE, &wc, dst.p + DST_AT,
			  imm ? NULL : want, SMALL, what);
	if (imm) {
		check_recv(&wc, wr.wr_id, IBV_WC_RECV_RDMA_WITH_IMM, SMALL,
			   what);
		check_imm(&wc, what);
	}
	check_landed(&dst, DST_AT, SMALL, &src, SRC_AT, what);
	printf("ok %s: arrived at attempt %d\n", what, n);
	free(want);
	free_region(&src);
	free_region(&dst);
}

/* @e's UD QP through INIT (Q_Key QKEY) and RTR to RTS. */
static void ud_to_rts(struct end *e)
{
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				  .qkey = QKEY };
	int err;

	err = ibv_modify_qp(e->qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	CHECK(!err, "%s: UD QP to INIT: %s", e->name, strerror(err));
	at.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(e->qp, &at, IBV_QP_STATE);
	CHECK(!err, "%s: UD QP to RTR: %s", e->name, strerror(err));
	at.qp_state = IBV_QPS_RTS;
	err = ibv_modify_qp(e->qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN);
	CHECK(!err, "%s: UD QP to RTS: %s", e->name, strerror(err));
}

static void test_ud(void)
{
	struct ibv_ah_attr aha = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = b.gid, .sgid_index = a.gid_index,
			 .hop_limit = 64 },
	};
	struct ibv_ah *ah;

	create_qp(&a, IBV_QPT_UD, MAX_WR, 0, 0);
	create_qp(&b, IBV_QPT_UD, MAX_WR, 0, 0);
	ud_to_rts(&a);
	ud_to_rts(&b);
	ah = ibv_create_ah(a.pd, &aha);
	CHECK(ah, "create_ah: %s", strerror(errno));
	test_dropped_send(ah);
	CHECK(!ibv_destroy_ah(ah), "destroy_ah");
	destroy_pair(&a, &b);
}

/* --- invalidation between RC transfers --------------------------------- */

/* The target dropped by MADV_DONTNEED between two WRITEs. */
static void test_dontneed(void)
{
	const char *what = "RC write after MADV_DONTNEED of its ODP target";
	struct region s1, s2, dst;

	memfd_src(&s1, REGION);
	memfd_src(&s2, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	write_into(&s1, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	CHECK(!madvise(dst.p, dst.len, MADV_DONTNEED), "madvise: %s",
	      strerror(errno));
	check_zero(dst.p + DST_AT - GUARD, SMALL + 2 * GUARD,
		   "the target after MADV_DONTNEED");
	write_into(&s2, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	printf("ok %s: reads zeros in between, the second lands whole\n",
	       what);
	free_region(&s1);
	free_region(&s2);
	free_region(&dst);
}

/* All @len bytes of file @fd to @buf. */
static void read_file(int fd, uint8_t *buf, size_t len)
{
	size_t off;
	ssize_t n;

	for (off = 0; off < len; off += n) {
		n = pread(fd, buf + off, len - off, off);
		CHECK(n > 0, "pread: %s", strerror(errno));
	}
}

/* Both ends' files replaced under their MRs (munmap, MAP_FIXED). */
static void test_remap(void)
{
	const char *what = "RC after munmap and MAP_FIXED of other files";
	struct region src, dst, first, old;
	int seed;

	memfd_src(&src, REGION);
	memfd_region(&b, &dst, REGION, -1, PROT_READ | PROT_WRITE,
		     LW | IBV_ACCESS_REMOTE_WRITE);
	write_into(&src, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	first = src;
	seed = next_seed++;
	close(remap(&src, new_memfd(REGION, seed), seed, PROT_READ));
	old = dst;
	old.fd = remap(&dst, new_memfd(REGION, -1), -1,
		       PROT_READ | PROT_WRITE);
	write_into(&src, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	/* The old target file has the first WRITE, nothing of the second. */
	old.p = malloc(REGION);
	CHECK(old.p, "out of memory");
	read_file(old.fd, old.p, REGION);
	check_landed(&old, DST_AT, SMALL, &first, SRC_AT,
		     "the old target file");
	check_zero(old.p, DST_AT - GUARD, "the old target file");
	check_zero(old.p + DST_AT + SMALL + GUARD,
		   REGION - DST_AT - SMALL - GUARD, "the old target file");
	free(old.p);
	close(old.fd);
	free_region(&dst);
	fresh_anon(&b, &dst, REGION, LW);
	send_into(&src, SRC_AT, SMALL, &dst, DST_AT, what);
	printf("ok %s: WRITE and SEND carry the new file, the old target file kept\n",
	       what);
	free_region(&src);
	free_region(&dst);
}

/* fork() with the child writing its copy of the ODP source. */
static void test_fork(void)
{
	const char *what = "RC write from an ODP source across fork()";
	struct region src, dst, parent;
	pid_t pid;
	int st;

	map_region(&src, REGION, -1, next_seed++, PROT_READ | PROT_WRITE);
	fill_pattern(src.p, REGION, src.seed, 0);
	reg_odp(&a, &src, 0);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	write_into(&src, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		fill_pattern(src.p, REGION, next_seed, 0);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      !WEXITSTATUS(st), "the child: status %#x", st);
	check_pattern(src.p, REGION, src.seed, 0, "the parent's source");
	write_into(&src, SRC_AT, SMALL, &dst, DST_AT + 64 * 1024, 0,
		   "RC write after the child wrote its copy");
	parent = src;
	parent.seed = next_seed + 1;
	next_seed += 2;
	fill_pattern(src.p, REGION, parent.seed, 0);
	write_into(&parent, SRC_AT, SMALL, &dst, DST_AT + 128 * 1024, 0,
		   "RC write after the parent wrote its own");
	printf("ok %s: the child's writes stay in the child, the parent's go out\n",
	       what);
	free_region(&src);
	free_region(&dst);
}

/* --- many WRITEs at once ----------------------------------------------- */

static void test_bulk(void)
{
	const char *what = "RC writes into a never-touched 4 MiB ODP target";
	struct ibv_send_wr wr[BULK_N];
	struct ibv_sge sge[BULK_N];
	struct region src, dst;
	struct ibv_wc wc;
	int i;

	/* connect_pair's QPs take MAX_WR >= BULK_N WRs (create_qp checks). */
	memfd_src(&src, BULK_N * BULK_LEN + PAGE);
	fresh_anon(&b, &dst, BULK_N * BULK_LEN, LW | IBV_ACCESS_REMOTE_WRITE);
	for (i = 0; i < BULK_N; i++) {
		wr[i] = wr_of(&sge[i], IBV_WR_RDMA_WRITE, &src,
			      SRC_AT + (size_t)i * BULK_LEN, BULK_LEN, &dst,
			      (size_t)i * BULK_LEN);
		wr[i].next = i + 1 < BULK_N ? &wr[i + 1] : NULL;
	}
	post_wr(&a, wr);
	for (i = 0; i < BULK_N; i++)
		expect_wc(&a, &wc, what, wr[i].wr_id, IBV_WC_SUCCESS,
			  IBV_WC_RDMA_WRITE);
	check_pattern(dst.p, dst.len, src.seed, SRC_AT, what);
	printf("ok %d %s of %u bytes each, in one post\n", BULK_N, what,
	       BULK_LEN);
	free_region(&src);
	free_region(&dst);
}

/* --- errors ------------------------------------------------------------ */

static void punch_hole(struct region *r)
{
	CHECK(!munmap(r->p + HOLE_AT, HOLE_LEN), "munmap: %s",
	      strerror(errno));
}

/* The hole is still unmapped: nothing else was mapped there meanwhile. */
static void check_hole(const struct region *r, const char *what)
{
	CHECK(msync(r->p + HOLE_AT, HOLE_LEN, MS_ASYNC) && errno == ENOMEM,
	      "%s: the hole was mapped again", what);
}

/*
 * On the pair just connected: @good completes successfully, then @bad
 * with @status, and A's QP is in ERR.
 */
static void good_then_bad(struct ibv_send_wr *good, struct ibv_send_wr *bad,
			  enum ibv_wc_status status, const char *what)
{
	struct ibv_wc wc;

	run_ok(good, wc_opcode(good->opcode), &wc, what);
	post_wr(&a, bad);
	expect_wc(&a, &wc, what, bad->wr_id, status, 0);
	CHECK(conn_qp_state(a.qp) == IBV_QPS_ERR,
	      "%s: A's QP in state %d after the error", what,
	      conn_qp_state(a.qp));
	printf("ok %s: %s\n", what, ibv_wc_status_str(status));
}

/*
 * @op aimed at B's ODP MR where it was munmapped after the registration,
 * or (@never) before it.
 */
static void test_remote_hole(enum ibv_wr_opcode op, int never)
{
	uint32_t len = is_atomic(op) ? 8 : ERR_LEN;
	size_t bad_at = GOOD_AT + 2 * PAGE;
	struct region loc, rem;
	struct ibv_send_wr good, bad;
	struct ibv_sge sge[2];
	char what[112];
	uint64_t v;

	snprintf(what, sizeof(what), "RC %s into a %s part of an ODP MR",
		 op_name(op), never ? "never mapped" : "munmapped");
	/* The QPs first: nothing new is mapped into the hole after it. */
	connect_pair(IBV_QPT_RC, NULL);
	memfd_region(&a, &loc, REGION, next_seed++, PROT_READ | PROT_WRITE,
		     LW);
	map_region(&rem, REGION, -1, -1, PROT_READ | PROT_WRITE);
	if (never)
		punch_hole(&rem);
	reg_odp(&b, &rem, REMOTE_ALL);
	if (!never)
		punch_hole(&rem);
	good = wr_of(&sge[0], op, &loc, GOOD_AT, len, &rem, GOOD_AT);
	bad = wr_of(&sge[1], op, &loc, bad_at, len, &rem, HOLE_AT + 64);
	/* On a zero target: FETCH_ADD of IMM, CMP_SWAP from 0 to IMM. */
	if (is_atomic(op)) {
		good.wr.atomic.compare_add = bad.wr.atomic.compare_add =
			op == IBV_WR_ATOMIC_FETCH_AND_ADD ? IMM : 0;
		good.wr.atomic.swap = bad.wr.atomic.swap = IMM;
	}
	good_then_bad(&good, &bad, IBV_WC_REM_ACCESS_ERR, what);
	check_hole(&rem, what);
	if (op == IBV_WR_RDMA_WRITE) {
		check_landed(&rem, GOOD_AT, len, &loc, GOOD_AT, what);
	} else {
		/* What the good one fetched: zeros, the pattern around. */
		check_pattern(loc.p + GOOD_AT - GUARD, GUARD, loc.seed,
			      GOOD_AT - GUARD, what);
		check_zero(loc.p + GOOD_AT, len, what);
		check_pattern(loc.p + GOOD_AT + len, GUARD, loc.seed,
			      GOOD_AT + len, what);
	}
	if (is_atomic(op)) {
		memcpy(&v, rem.p + GOOD_AT, 8);
		CHECK(v == IMM, "%s: the good one left %#" PRIx64, what, v);
	}
	/* The bad one brought nothing back. */
	check_pattern(loc.p + bad_at, len, loc.seed, bad_at, what);
	destroy_pair(&a, &b);
	free_region(&loc);
	free_region(&rem);
}

/*
 * A SEND or WRITE (@op) gathered from A's ODP MR where it was munmapped
 * after the registration, or (@never) before it.
 */
static void test_local_hole(enum ibv_wr_opcode op, int never)
{
	int send = op == IBV_WR_SEND;
	size_t bad_at = DST_AT + 2 * PAGE;
	struct region src, dst;
	struct ibv_send_wr good, bad;
	struct ibv_sge sge[2], rsge;
	struct ibv_wc wc;
	char what[112];

	snprintf(what, sizeof(what),
		 "RC %s gathered from a %s part of an ODP MR", op_name(op),
		 never ? "never mapped" : "munmapped");
	connect_pair(IBV_QPT_RC, NULL);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	map_region(&src, REGION, -1, next_seed++, PROT_READ | PROT_WRITE);
	fill_pattern(src.p, REGION, src.seed, 0);
	if (never)
		punch_hole(&src);
	reg_odp(&a, &src, 0);
	if (!never)
		punch_hole(&src);
	good = wr_of(&sge[0], op, &src, GOOD_AT, ERR_LEN, send ? NULL : &dst,
		     DST_AT);
	bad = wr_of(&sge[1], op, &src, HOLE_AT + 100, ERR_LEN,
		    send ? NULL : &dst, bad_at);
	if (send) {
		rsge = sge_in(&dst, DST_AT, ERR_LEN + GUARD);
		post_recv_sges(&b, good.wr_id, &rsge, 1);
		rsge = sge_in(&dst, bad_at, ERR_LEN + GUARD);
		post_recv_sges(&b, bad.wr_id, &rsge, 1);
	}
	good_then_bad(&good, &bad, IBV_WC_LOC_PROT_ERR, what);
	check_hole(&src, what);
	if (send) {
		expect_wc(&b, &wc, what, good.wr_id, IBV_WC_SUCCESS,
			  IBV_WC_RECV);
		CHECK(wc.byte_len == ERR_LEN, "%s: byte_len %u", what,
		      wc.byte_len);
	}
	expect_no_wc(&b, what);
	check_landed(&dst, DST_AT, ERR_LEN, &src, GOOD_AT, what);
	check_zero(dst.p + bad_at - GUARD, ERR_LEN + 2 * GUARD, what);
	destroy_pair(&a, &b);
	free_region(&src);
	free_region(&dst);
}

/* A WRITE into an MR with remote write access over a PROT_READ mapping. */
static void test_readonly_target(void)
{
	const char *what = "RC write into an ODP MR over a PROT_READ mapping";
	struct region src, ok_dst, ro;
	struct ibv_send_wr good, bad;
	struct ibv_sge sge[2];

	connect_pair(IBV_QPT_RC, NULL);
	memfd_src(&src, REGION);
	fresh_anon(&b, &ok_dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	memfd_region(&b, &ro, REGION, next_seed++, PROT_READ,
		     LW | IBV_ACCESS_REMOTE_WRITE);
	good = wr_of(&sge[0], IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &ok_dst,
		     DST_AT);
	bad = wr_of(&sge[1], IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &ro,
		    DST_AT);
	good_then_bad(&good, &bad, IBV_WC_REM_ACCESS_ERR, what);
	check_landed(&ok_dst, DST_AT, SMALL, &src, SRC_AT, what);
	check_pattern(ro.p, ro.len, ro.seed, 0, "the read-only file");
	destroy_pair(&a, &b);
	free_region(&src);
	free_region(&ok_dst);
	free_region(&ro);
}

int main(int argc, char **argv)
{
	long long faults_a, faults_b, now_a, now_b;

	argv = prog_args(argc, argv, "r", (int *[]){ &rxe_quirks }, 4, USAGE);
	dev_a = argv[0];
	dev_b = argv[2];
	end_open(&a, "A", dev_a, atoi(argv[1]));
	end_open(&b, "B", dev_b, atoi(argv[3]));
	a.sq_psn = 0x00fff0;
	b.sq_psn = 0x123456;
	if (rxe_quirks) {
		check_no_odp(&a, dev_a);
		check_no_odp(&b, dev_b);
		printf("odp all ok\n");
		return 0;
	}
	check_caps(&a, dev_a);
	check_caps(&b, dev_b);
	end_check_port(&a, IBV_MTU_1024);
	end_check_port(&b, IBV_MTU_1024);
	faults_a = odp_faults(dev_a);
	faults_b = odp_faults(dev_b);

	connect_pair(IBV_QPT_RC, NULL);
	test_rc();
	test_atomics();
	destroy_pair(&a, &b);
	test_srq();

	connect_pair(IBV_QPT_UC, NULL);
	test_dropped_send(NULL);
	test_uc_write(0);
	test_uc_write(1);
	destroy_pair(&a, &b);
	test_ud();

	now_a = odp_faults(dev_a);
	now_b = odp_faults(dev_b);
	CHECK(now_a > faults_a && now_b > faults_b,
	      "odp_faults did not grow: %s %lld -> %lld, %s %lld -> %lld",
	      dev_a, faults_a, now_a, dev_b, faults_b, now_b);
	printf("ok odp_faults grew over the first-touch checks: %s +%lld, %s +%lld\n",
	       dev_a, now_a - faults_a, dev_b, now_b - faults_b);

	connect_pair(IBV_QPT_RC, NULL);
	test_dontneed();
	test_remap();
	test_fork();
	test_bulk();
	destroy_pair(&a, &b);

	test_remote_hole(IBV_WR_RDMA_WRITE, 0);
	test_remote_hole(IBV_WR_RDMA_READ, 1);
	test_remote_hole(IBV_WR_ATOMIC_FETCH_AND_ADD, 0);
	test_remote_hole(IBV_WR_ATOMIC_CMP_AND_SWP, 1);
	test_local_hole(IBV_WR_SEND, 0);
	test_local_hole(IBV_WR_RDMA_WRITE, 1);
	test_readonly_target();

	printf("odp all ok\n");
	return 0;
}
