// SPDX-License-Identifier: GPL-2.0
/*
 * odp [-r] [-P] DEV_A GID_A DEV_B GID_B: on-demand paging (ODP) memory regions
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
 *  - both devices' odp_caps: general IBV_ODP_SUPPORT and
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
 *    PROT_READ mapping - IBV_WC_REM_ACCESS_ERR, the file unchanged;
 *  - memfd_secret() memory, which is not in the kernel's own map: a WRITE
 *    into B's ODP MR over it - IBV_WC_REM_ACCESS_ERR, a WRITE gathered
 *    from A's - IBV_WC_LOC_PROT_ERR, neither changes it (said and skipped
 *    where the kernel has none: 6.1 by default);
 *  - invalidation while traffic runs: A's 16-page source is a MAP_PRIVATE
 *    mapping of a memfd of "generation" g (each 1024-byte chunk - the
 *    packet it travels in, which the requester reads at once - holds g,
 *    its offset, then pattern g), which another thread changes for 2.5 s,
 *    in turn: mmap(MAP_FIXED) of a new memfd of g + 1 over it (the munmap
 *    and the map in one call: a moment without a mapping would fail the
 *    transfer, rightly); a copy-on-write of every page (the same bytes);
 *    fork(), the child writing a generation never published into its
 *    copy; g + 1 written into the memfd under the private copies, then
 *    MADV_DONTNEED of those, so that the file shows. A change to g is
 *    published as begun before its first step and as done once its last
 *    system call has returned (its invalidation is over). Meanwhile RC
 *    WRITEs and SENDs (every third) of the whole source, one at a time,
 *    into B's ODP memory (a shared mapping of a memfd, which fork()
 *    leaves alone), zeroed before each: every chunk that arrives is
 *    whole of one generation, no older than the one done before the
 *    post and no newer than the one begun at the completion (so exactly
 *    that one if no change was under way), never a child's, never zeros
 *    or foreign bytes. A page may mix two generations only between its
 *    packets, with a change under way. A transfer not complete after
 *    1 s pauses the changes, and must then complete (counted). The
 *    counts of transfers, pages of two generations, generations and
 *    changes of each kind are reported;
 *  - the other way: B's target (private anonymous memory) dropped by
 *    MADV_DONTNEED every millisecond, then every 100 ms, for 1.5 s each,
 *    while A WRITEs and SENDs into it: each completes successfully (what
 *    lands is not checked). A transfer still waiting when the drops
 *    stop must complete then: a page dropped again before the packet
 *    that faulted it in is sent again is missing again, and with drops
 *    faster than that round trip a transfer may not progress until they
 *    stop (reported). A WRITE after lands whole;
 *  - a type 2 memory window over an ODP MR: see test_mw();
 *  - prefetch (ibv_advise_mr(), by its uverbs command): errors (an
 *    unknown advice: EOPNOTSUPP; no such key, past the region's end,
 *    PREFETCH_WRITE without local write, another PD's region, a
 *    munmapped part: EFAULT), a pinned region (success); PREFETCH and
 *    PREFETCH_WRITE before a WRITE, PREFETCH_NO_FAULT of half-touched
 *    memory, an asynchronous PREFETCH_WRITE, dereg under one: see
 *    test_advise();
 *  - implicit ODP, a registration of (NULL, SIZE_MAX) on each device:
 *    sparse WRITEs and READs, its pieces, errors, the bound: see
 *    test_implicit();
 *  - the device's bound, 4 x MemTotal registered on demand by all users
 *    together (nothing else may hold ODP regions on DEV_A then), checked
 *    over reserved PROT_NONE address space (an ODP registration needs no
 *    memory): one registration of 4 x MemTotal + 1 GiB is refused with
 *    ENOMEM; floor(4 x MemTotal / 1 GiB) registrations of 1 GiB fit, the
 *    next is refused with ENOMEM, a registration of the rest up to the
 *    bound fits, one page more is refused; a deregistration of 1 GiB
 *    lets another one in; with all deregistered, 1 GiB fits again.
 * -r (rdma_rxe, which has no ODP on our kernels): only checks that the
 * devices report no IBV_ODP_SUPPORT and that a registration with
 * IBV_ACCESS_ON_DEMAND fails with EOPNOTSUPP or EINVAL, reported on a
 * line "rxe quirk: no ODP ...".
 * -P (A only, for a teardown): 8 asynchronous PREFETCH_WRITEs of 64 MiB
 * each into a never-touched ODP region; once an eighth of its pages are
 * in (mincore), prints how many, then "odp all ok", and waits for a line
 * (or the end) on stdin; then prints "in at the end: N of M pages" and
 * exits.
 * Prints "ok ..." per check; exits 1 at the first failure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl.h>

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
#define RACE_LEN	(16 * PAGE)	/* the races' sources and targets */
#define CHUNK		1024u		/* a packet, at path MTU 1024 */
#define CHUNK_HDR	8		/* its generation and offset */
#define RACE_MS		2500		/* the source changed meanwhile */
#define DROP_MS		1500		/* the target dropped meanwhile */
#define DROP_FAST_US	1000		/* every so often, */
#define DROP_SLOW_US	100000		/* and so */
#define STARVE_MS	1000		/* then a transfer pauses them */
#define NAP_US		1000		/* between two changes */
#define CHILD_GEN	0x0c41d0u	/* what fork()ed children write */
#define MAX_GEN		(1u << 16)	/* generations stay below */
#define GIB		(1ull << 30)
#define PREFETCH_PIECES	8		/* -P */
#define PREFETCH_PIECE	(64u << 20)
#define USAGE		"usage: odp [-r] [-P] DEV_A GID_A DEV_B GID_B"

#define LW		IBV_ACCESS_LOCAL_WRITE
#define REMOTE_ALL	(LW | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

#include "check.h"
#include "data_pattern.h"
#include "data_xfer.h"
#include "end.h"
#include "pattern_memfd.h"
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
	map_region(r, len, pattern_memfd(len, seed), seed, prot);
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

/* @dst at @doff holds @len bytes of @src from @soff, zeros around them. */
static void check_landed(const struct region *dst, size_t doff, size_t len,
			 const struct region *src, size_t soff,
			 const char *what)
{
	check_pattern_in_zeros(dst->p + doff, len, src->seed, soff, what);
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

/* B's next completion (*@wc) is a successful @opcode of @len bytes. */
static void expect_recv(struct ibv_wc *wc, uint64_t wr_id,
			enum ibv_wc_opcode opcode, uint32_t len,
			const char *what)
{
	expect_wc(&b, wc, what, wr_id, IBV_WC_SUCCESS, opcode);
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
	CHECK((gen & IBV_ODP_SUPPORT) && (gen & IBV_ODP_SUPPORT_IMPLICIT),
	      "%s: odp general_caps %#" PRIx64 ": want SUPPORT and IMPLICIT",
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

/* Port 1's odp_faults of @dev (fresh: port_counter.h). */
static long long odp_faults(const char *dev)
{
	long long v;

	v = port_counter(dev, "odp_faults");

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
	expect_recv(&wc, wr.wr_id, IBV_WC_RECV, len, what);
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
		expect_recv(&wc, wr.wr_id, IBV_WC_RECV_RDMA_WITH_IMM, len,
			    what);
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
	expect_recv(&wc, 1, IBV_WC_RECV, SMALL, what);
	expect_recv(&wc, 2, IBV_WC_RECV, BIG, what);
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
	conn_ud_to_rts(a.qp, a.name, QKEY, 0);
	conn_ud_to_rts(b.qp, b.name, QKEY, 0);
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
	close(remap(&src, pattern_memfd(REGION, seed), seed, PROT_READ));
	old = dst;
	old.fd = remap(&dst, pattern_memfd(REGION, -1), -1,
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
		expect_recv(&wc, good.wr_id, IBV_WC_RECV, ERR_LEN, what);
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

/*
 * A region over memfd_secret() memory on @e, holding pattern next_seed;
 * false if this kernel has no secret memory (6.1 without the boot
 * parameter secretmem.enable=1).
 */
static int secret_region(struct end *e, struct region *r, unsigned int access)
{
	int fd = syscall(SYS_memfd_secret, 0);

	if (fd < 0)
		return 0;
	CHECK(!ftruncate(fd, REGION), "ftruncate: %s", strerror(errno));
	map_region(r, REGION, fd, next_seed++, PROT_READ | PROT_WRITE);
	/* The process may use its secret pages; the kernel may not. */
	fill_pattern(r->p, REGION, r->seed, 0);
	reg_odp(e, r, access);
	return 1;
}

/*
 * memfd_secret() pages are not in the kernel's own map, so no engine
 * may copy to or from them: a WRITE into B's ODP MR over them fails with
 * IBV_WC_REM_ACCESS_ERR, a WRITE gathered from A's with
 * IBV_WC_LOC_PROT_ERR; neither changes them.
 */
static void test_secret(void)
{
	const char *in = "RC write into an ODP MR over memfd_secret() memory";
	const char *out = "RC write gathered from an ODP MR over memfd_secret() memory";
	struct region src, dst, sec;
	struct ibv_send_wr good, bad;
	struct ibv_sge sge[2];

	connect_pair(IBV_QPT_RC, NULL);
	if (!secret_region(&b, &sec, LW | IBV_ACCESS_REMOTE_WRITE)) {
		printf("ok no memfd_secret() on this kernel (%s): secret memory not checked\n",
		       strerror(errno));
		destroy_pair(&a, &b);
		return;
	}
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	good = wr_of(&sge[0], IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &dst,
		     DST_AT);
	bad = wr_of(&sge[1], IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &sec,
		    DST_AT);
	good_then_bad(&good, &bad, IBV_WC_REM_ACCESS_ERR, in);
	check_pattern(sec.p, sec.len, sec.seed, 0, "the secret memory");
	destroy_pair(&a, &b);
	free_region(&sec);
	free_region(&dst);

	connect_pair(IBV_QPT_RC, NULL);
	CHECK(secret_region(&a, &sec, 0), "memfd_secret: %s", strerror(errno));
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	good = wr_of(&sge[0], IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &dst,
		     DST_AT);
	bad = wr_of(&sge[1], IBV_WR_RDMA_WRITE, &sec, SRC_AT, SMALL, &dst,
		    DST_AT + SMALL + GUARD);
	good_then_bad(&good, &bad, IBV_WC_LOC_PROT_ERR, out);
	check_zero(dst.p + DST_AT + SMALL, SMALL + 2 * GUARD, out);
	check_pattern(sec.p, sec.len, sec.seed, 0, "the secret memory");
	destroy_pair(&a, &b);
	free_region(&sec);
	free_region(&dst);
	free_region(&src);
}

/* --- invalidation while traffic runs ----------------------------------- */

/* Generation @gen of the RACE_LEN bytes of a race buffer, to @p. */
static void fill_gen(uint8_t *p, uint32_t gen)
{
	uint32_t off, i;

	for (off = 0; off < RACE_LEN; off += CHUNK) {
		memcpy(p + off, &gen, sizeof(gen));
		memcpy(p + off + sizeof(gen), &off, sizeof(off));
		for (i = CHUNK_HDR; i < CHUNK; i++)
			p[off + i] = pattern_byte(gen, off + i);
	}
}

/*
 * The generation that the CHUNK bytes at @c, offset @off of a race
 * buffer, are whole of; fails if they are no generation's.
 */
static uint32_t chunk_gen(const uint8_t *c, uint32_t off, const char *what)
{
	uint32_t gen, at, i;

	memcpy(&gen, c, sizeof(gen));
	memcpy(&at, c + sizeof(gen), sizeof(at));
	CHECK(gen != CHILD_GEN,
	      "%s: the chunk at %u holds what a fork()ed child wrote into its copy of the source",
	      what, off);
	CHECK(gen && gen < MAX_GEN && at == off,
	      "%s: the chunk at %u is no generation's (it starts %#x %#x): not written, or not from the process's memory",
	      what, off, gen, at);
	for (i = CHUNK_HDR; i < CHUNK; i++)
		CHECK(c[i] == pattern_byte(gen, off + i),
		      "%s: the chunk at %u starts as generation %u, but its byte %u is %#x, expected %#x: one packet mixes different memory",
		      what, off, gen, i, c[i], pattern_byte(gen, off + i));
	return gen;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

static void nap_us(long us)
{
	struct timespec t = { 0, us * 1000 };

	nanosleep(&t, NULL);
}

/*
 * A's source of the race and the thread that changes it. A change to
 * generation g is @begun = g before its first step, @done = g once its
 * last system call has returned (its invalidation is over).
 */
struct race {
	uint8_t *src;		/* RACE_LEN bytes, MAP_PRIVATE of @fd */
	int fd;			/* the memfd of the newest generation */
	uint8_t *buf;		/* where a generation is put together */
	atomic_uint begun;
	atomic_uint done;
	atomic_int pause;	/* no change until it is cleared */
	atomic_int stop;
	unsigned long remaps, cows, forks, dontneeds;
};

/* Generation @gen into the memfd @fd, by pwrite(2). */
static void gen_pwrite(struct race *r, int fd, uint32_t gen)
{
	size_t off;
	ssize_t n;

	fill_gen(r->buf, gen);
	for (off = 0; off < RACE_LEN; off += n) {
		n = pwrite(fd, r->buf + off, RACE_LEN - off, off);
		CHECK(n > 0, "race: pwrite to the memfd: %s", strerror(errno));
	}
}

static int gen_memfd(struct race *r, uint32_t gen)
{
	int fd = memfd_create("odp-race", MFD_CLOEXEC);

	CHECK(fd >= 0, "race: memfd_create: %s", strerror(errno));
	gen_pwrite(r, fd, gen);
	return fd;
}

static void gen_publish(atomic_uint *at, uint32_t gen)
{
	atomic_store_explicit(at, gen, memory_order_release);
}

/* A pause between two changes, longer while the traffic asks for one. */
static void race_nap(struct race *r)
{
	do
		nap_us(NAP_US);
	while (atomic_load(&r->pause) && !atomic_load(&r->stop));
}

/*
 * Until told to stop, in turn: another file mapped over the source by
 * one mmap(MAP_FIXED) (the old mapping unmapped and the new one mapped
 * under the process's mmap lock: never a moment without a mapping, which
 * would fail the transfer, rightly); a private copy of every page, of the
 * same bytes (copy-on-write: nothing for the peer to see); fork(), the
 * child writing CHILD_GEN into its copy; the next generation written into
 * the file under the private copies, and MADV_DONTNEED of those, so that
 * the file shows.
 */
static void *race_mutator(void *arg)
{
	struct race *r = arg;
	volatile uint8_t *v = r->src;
	uint32_t gen = atomic_load(&r->done);
	size_t i;
	pid_t pid;
	int fd, st;

	while (!atomic_load(&r->stop)) {
		fd = gen_memfd(r, gen + 1);
		gen_publish(&r->begun, gen + 1);
		CHECK(mmap(r->src, RACE_LEN, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_FIXED, fd, 0) == r->src,
		      "race: mmap(MAP_FIXED): %s", strerror(errno));
		close(r->fd);
		r->fd = fd;
		gen_publish(&r->done, ++gen);
		r->remaps++;
		race_nap(r);

		for (i = 0; i < RACE_LEN; i += PAGE)
			v[i] = v[i];
		r->cows++;
		race_nap(r);

		pid = fork();
		CHECK(pid >= 0, "race: fork: %s", strerror(errno));
		if (!pid) {
			fill_gen(r->src, CHILD_GEN);
			_exit(0);
		}
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		      !WEXITSTATUS(st), "race: the child: status %#x", st);
		r->forks++;
		race_nap(r);

		gen_pwrite(r, r->fd, gen + 1);
		gen_publish(&r->begun, gen + 1);
		CHECK(!madvise(r->src, RACE_LEN, MADV_DONTNEED),
		      "race: madvise: %s", strerror(errno));
		gen_publish(&r->done, ++gen);
		r->dontneeds++;
		race_nap(r);
	}
	return NULL;
}

/* What the race's transfers brought. */
struct race_count {
	unsigned long writes, sends;
	unsigned long racing;	/* with a change under way */
	unsigned long mixed;	/* pages of two generations (racing ones) */
	unsigned long paused;	/* waited STARVE_MS: the changes paused */
	long longest;		/* ms, the longest transfer */
	uint32_t lo, hi;	/* the generations seen */
	unsigned long distinct;
	uint8_t seen[MAX_GEN];
};

/*
 * @dst after a transfer of the whole source, posted once generation @lo
 * was done and completed before a change beyond @hi had begun: each
 * CHUNK is whole of a generation in [@lo, @hi]. (A packet is read at
 * once, but a page takes 4 of them: a change between two shows.)
 */
static void check_race_dst(const uint8_t *dst, uint32_t lo, uint32_t hi,
			   struct race_count *c, const char *what)
{
	uint32_t off, gen, first = 0;
	int mixed = 0;

	for (off = 0; off < RACE_LEN; off += CHUNK) {
		gen = chunk_gen(dst + off, off, what);
		CHECK(gen >= lo,
		      "%s: the chunk at %u is of generation %u, but generation %u had replaced it before the transfer was posted",
		      what, off, gen, lo);
		CHECK(gen <= hi,
		      "%s: the chunk at %u is of generation %u, which no change had begun to map before the completion (newest: %u)",
		      what, off, gen, hi);
		if (!(off % PAGE)) {
			first = gen;
			mixed = 0;
		} else if (gen != first && !mixed) {
			mixed = 1;
			c->mixed++;
		}
		if (!c->seen[gen]) {
			c->seen[gen] = 1;
			c->distinct++;
		}
		c->lo = gen < c->lo ? gen : c->lo;
		c->hi = gen > c->hi ? gen : c->hi;
	}
}

/* @wc is A's successful completion of @wr_id, as @opcode. */
static void check_wc_ok(const struct ibv_wc *wc, uint64_t wr_id,
			enum ibv_wc_opcode opcode, const char *what)
{
	CHECK(wc->wr_id == wr_id && wc->status == IBV_WC_SUCCESS &&
	      wc->opcode == opcode && wc->qp_num == a.qp->qp_num,
	      "%s: A's completion wr_id %llu status '%s' opcode %d qp %u, expected wr_id %llu success opcode %d qp %u",
	      what, (unsigned long long)wc->wr_id,
	      ibv_wc_status_str(wc->status), wc->opcode, wc->qp_num,
	      (unsigned long long)wr_id, opcode, a.qp->qp_num);
}

/*
 * One WRITE (or SEND, into a receive WQE over all of @dst) of the whole
 * race source @src into @dst, byte-checked. One that has not completed
 * after STARVE_MS pauses the changes until it has (within WAIT_MS).
 */
static void race_once(struct race *r, const struct region *src,
		      const struct region *dst, int send,
		      struct race_count *c)
{
	const char *what = send ?
		"RC send from an ODP source changed meanwhile" :
		"RC write from an ODP source changed meanwhile";
	enum ibv_wc_opcode op = send ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
	struct ibv_sge sge, rsge;
	struct ibv_send_wr wr;
	struct timespec t0;
	struct ibv_wc wc;
	uint32_t lo, hi;
	long took;

	memset(dst->p, 0, RACE_LEN);
	wr = wr_of(&sge, send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, src, 0,
		   RACE_LEN, send ? NULL : dst, 0);
	if (send) {
		rsge = sge_in(dst, 0, RACE_LEN);
		post_recv_sges(&b, wr.wr_id, &rsge, 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	lo = atomic_load_explicit(&r->done, memory_order_acquire);
	post_wr(&a, &wr);
	if (!conn_poll(a.cq, &wc, STARVE_MS)) {
		atomic_store(&r->pause, 1);
		c->paused++;
		CHECK(conn_poll(a.cq, &wc, WAIT_MS),
		      "%s: no completion at A %d ms after the changes paused (%ld ms after the post)",
		      what, WAIT_MS, ms_since(&t0));
		atomic_store(&r->pause, 0);
	}
	took = ms_since(&t0);
	check_wc_ok(&wc, wr.wr_id, op, what);
	if (send) {
		expect_recv(&wc, wr.wr_id, IBV_WC_RECV, RACE_LEN, what);
	}
	hi = atomic_load_explicit(&r->begun, memory_order_acquire);
	check_race_dst(dst->p, lo, hi, c, what);
	if (send)
		c->sends++;
	else
		c->writes++;
	c->racing += lo != hi;
	c->longest = took > c->longest ? took : c->longest;
}

/*
 * RC WRITEs and SENDs (every third) of A's ODP source into B's ODP
 * memory for RACE_MS, while race_mutator() changes the source under
 * them; then, the changes over, one WRITE of the last generation whole.
 * B's memory is a shared mapping (of a memfd): fork() leaves it alone,
 * so that only the source is invalidated.
 */
static void test_race(void)
{
	static struct race_count c;
	struct race r = { .fd = -1 };
	struct region src, dst;
	struct timespec t0;
	uint32_t last;
	pthread_t t;
	int err;

	c.lo = UINT32_MAX;
	r.buf = malloc(RACE_LEN);
	CHECK(r.buf, "out of memory");
	r.fd = gen_memfd(&r, 1);
	atomic_init(&r.begun, 1);
	atomic_init(&r.done, 1);
	atomic_init(&r.pause, 0);
	atomic_init(&r.stop, 0);
	r.src = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		     r.fd, 0);
	CHECK(r.src != MAP_FAILED, "mmap: %s", strerror(errno));
	src = (struct region){ .p = r.src, .len = RACE_LEN, .fd = -1,
			       .seed = -1 };
	reg_odp(&a, &src, 0);
	memfd_region(&b, &dst, RACE_LEN, -1, PROT_READ | PROT_WRITE,
		     LW | IBV_ACCESS_REMOTE_WRITE);
	connect_pair(IBV_QPT_RC, NULL);

	err = pthread_create(&t, NULL, race_mutator, &r);
	CHECK(!err, "pthread_create: %s", strerror(err));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms_since(&t0) < RACE_MS)
		race_once(&r, &src, &dst, (c.writes + c.sends) % 3 == 2, &c);
	atomic_store(&r.stop, 1);
	err = pthread_join(t, NULL);
	CHECK(!err, "pthread_join: %s", strerror(err));
	CHECK(c.racing && c.distinct > 1 && r.remaps > 1 && r.forks > 1 &&
	      r.dontneeds > 1,
	      "the race raced too little: %lu transfers while a change was under way, %lu generations seen, %lu remaps, %lu forks, %lu MADV_DONTNEEDs",
	      c.racing, c.distinct, r.remaps, r.forks, r.dontneeds);

	/* Nothing changes any more: the last generation, whole. */
	last = atomic_load(&r.done);
	race_once(&r, &src, &dst, 0, &c);
	CHECK(c.hi == last, "the last write: generation %u seen, %u done",
	      c.hi, last);
	printf("ok RC writes and sends from an ODP source changed while they run: %lu WRITE and %lu SEND transfers of %u bytes (the longest %ld ms, %lu waited %d ms and paused the changes), %lu of them while a change was under way, %lu pages arrived of two generations; generations %u to %u arrived (%lu distinct); changes: %lu mmap(MAP_FIXED) of another file, %lu copy-on-write of every page, %lu fork() with the child writing its copy, %lu MADV_DONTNEED; every %u-byte packet whole, of a generation no older than the last change done before the post, none of a child's\n",
	       c.writes, c.sends, RACE_LEN, c.longest, c.paused, STARVE_MS,
	       c.racing, c.mixed, c.lo, c.hi, c.distinct, r.remaps, r.cows,
	       r.forks, r.dontneeds, CHUNK);
	destroy_pair(&a, &b);
	free_region(&src);
	close(r.fd);
	free_region(&dst);
	free(r.buf);
}

/* MADV_DONTNEED of @p for @len bytes, every @nap_us until @stop. */
struct dropper {
	uint8_t *p;
	size_t len;
	long nap_us;
	atomic_int stop;
	unsigned long drops;
};

static void *drop_loop(void *arg)
{
	struct dropper *d = arg;

	while (!atomic_load(&d->stop)) {
		CHECK(!madvise(d->p, d->len, MADV_DONTNEED),
		      "madvise: %s", strerror(errno));
		d->drops++;
		nap_us(d->nap_us);
	}
	return NULL;
}

static void drop_stop(struct dropper *d, pthread_t t)
{
	int err;

	atomic_store(&d->stop, 1);
	err = pthread_join(t, NULL);
	CHECK(!err, "pthread_join: %s", strerror(err));
}

/*
 * The other way round: B's ODP target (private anonymous memory) is
 * dropped by MADV_DONTNEED every @every_us while A WRITEs and SENDs
 * (every third) into it, one at a time, for DROP_MS; what lands is not
 * checked. Each completes successfully: the responder drops a packet
 * that finds its page missing, and has the requester send it again once
 * the fault is served. But if the page is dropped again before the
 * packet is back, it is missing again: with drops faster than that round
 * trip a transfer may make no progress until they stop. So the one still
 * waiting at DROP_MS must complete within WAIT_MS once the drops have
 * stopped. Then one WRITE lands whole.
 */
static void test_target_dropped(long every_us)
{
	const char *what = "RC transfer into an ODP target dropped meanwhile";
	long long faults = odp_faults(dev_b);
	long long drops = port_counter(dev_b, "rx_odp_fault_drops");
	unsigned long writes = 0, sends = 0;
	long left, took, longest = 0, after = -1;
	struct dropper d = { 0 };
	struct region src, dst;
	struct ibv_sge sge, rsge;
	struct ibv_send_wr wr;
	struct timespec t0, t1;
	enum ibv_wc_opcode op;
	struct ibv_wc wc;
	char why[128] = "";
	pthread_t t;
	int err, send;

	CHECK(drops >= 0, "%s: no hw counter rx_odp_fault_drops", dev_b);
	connect_pair(IBV_QPT_RC, NULL);
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, RACE_LEN + 2 * PAGE,
		   LW | IBV_ACCESS_REMOTE_WRITE);
	d.p = dst.p;
	d.len = dst.len;
	d.nap_us = every_us;
	atomic_init(&d.stop, 0);
	err = pthread_create(&t, NULL, drop_loop, &d);
	CHECK(!err, "pthread_create: %s", strerror(err));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (after < 0 && (left = DROP_MS - ms_since(&t0)) > 0) {
		send = (writes + sends) % 3 == 2;
		op = send ? IBV_WC_SEND : IBV_WC_RDMA_WRITE;
		wr = wr_of(&sge, send ? IBV_WR_SEND : IBV_WR_RDMA_WRITE, &src,
			   SRC_AT, RACE_LEN, send ? NULL : &dst, PAGE);
		if (send) {
			rsge = sge_in(&dst, PAGE, RACE_LEN);
			post_recv_sges(&b, wr.wr_id, &rsge, 1);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		post_wr(&a, &wr);
		if (!conn_poll(a.cq, &wc, left)) {
			/* Starved: the drops stop, the transfer goes on. */
			drop_stop(&d, t);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			CHECK(conn_poll(a.cq, &wc, WAIT_MS),
			      "%s: no completion at A %d ms after the drops stopped (%ld ms after the post)",
			      what, WAIT_MS, ms_since(&t1));
			after = ms_since(&t0);
			snprintf(why, sizeof(why),
				 "; the last, posted %ld ms before the drops stopped, completed %ld ms after",
				 ms_since(&t1) - after, after);
		}
		check_wc_ok(&wc, wr.wr_id, op, what);
		took = ms_since(&t1);
		longest = took > longest ? took : longest;
		if (send) {
			expect_recv(&wc, wr.wr_id, IBV_WC_RECV, RACE_LEN, what);
			sends++;
		} else {
			writes++;
		}
	}
	if (after < 0)
		drop_stop(&d, t);
	CHECK(d.drops > 1, "%s: only %lu MADV_DONTNEEDs", what, d.drops);
	write_into(&src, SRC_AT, RACE_LEN, &dst, PAGE, 0,
		   "RC write after the target was dropped under traffic");
	printf("ok %s: %lu WRITE and %lu SEND transfers of %u bytes completed successfully under %lu MADV_DONTNEEDs of it every %ld us, the longest in %ld ms%s (%s: +%lld faults served, +%lld packets dropped for them); a write after lands whole\n",
	       what, writes, sends, RACE_LEN, d.drops, every_us, longest, why,
	       dev_b, odp_faults(dev_b) - faults,
	       port_counter(dev_b, "rx_odp_fault_drops") - drops);
	destroy_pair(&a, &b);
	free_region(&src);
	free_region(&dst);
}

/* --- the device's bound on ODP registrations --------------------------- */

/* MemTotal of /proc/meminfo, in bytes. */
static unsigned long long mem_total(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	CHECK(f, "/proc/meminfo: %s", strerror(errno));
	while (!kb && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) != 1)
			kb = 0;
	fclose(f);
	CHECK(kb, "no MemTotal in /proc/meminfo");
	return kb * 1024;
}

/* An ODP registration on A of [@p, @p + @len): NULL, errno if refused. */
static struct ibv_mr *reg_span(uint8_t *p, size_t len)
{
	errno = 0;
	return ibv_reg_mr(a.pd, p, len, LW | IBV_ACCESS_ON_DEMAND);
}

/* @mr (from reg_span()) was refused with ENOMEM. */
static void refused(struct ibv_mr *mr, const char *what)
{
	int err = errno;

	if (mr)
		ibv_dereg_mr(mr);
	CHECK(!mr && err == ENOMEM, "%s: %s, expected ENOMEM", what,
	      mr ? "registered" : strerror(err));
}

/*
 * The device registers at most 4 x MemTotal on demand, all users
 * together: A has no other ODP region now (nor has anybody else).
 * Registered over address space that is reserved (PROT_NONE), not
 * mapped: an ODP registration does not need the memory.
 */
static void test_bound(void)
{
	unsigned long long mem = mem_total(), bound = 4 * mem;
	size_t max = bound / GIB, rest = bound - max * GIB;
	size_t span = (max + 2) * GIB, n, i;
	struct ibv_mr **mr, *tail = NULL;
	uint8_t *p;
	int err;

	mr = calloc(max + 2, sizeof(*mr));
	CHECK(mr, "out of memory");
	p = mmap(NULL, span, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(p != MAP_FAILED, "mmap of %zu bytes of PROT_NONE: %s", span,
	      strerror(errno));
	refused(reg_span(p, bound + GIB),
		"one ODP registration of 4 x MemTotal + 1 GiB");
	for (n = 0; n <= max; n++) {
		mr[n] = reg_span(p + n * GIB, GIB);
		if (!mr[n])
			break;
	}
	err = errno;
	CHECK(n == max && err == ENOMEM,
	      "%zu ODP registrations of 1 GiB, then %s; 4 x MemTotal is %llu bytes: expected %zu, then ENOMEM",
	      n, n > max ? "no refusal" : strerror(err), bound, max);
	if (rest) {
		tail = reg_span(p + max * GIB, rest);
		CHECK(tail, "the last %zu bytes up to 4 x MemTotal: %s", rest,
		      strerror(errno));
	}
	refused(reg_span(p + span - PAGE, PAGE),
		"one page past 4 x MemTotal");
	/* A deregistration gives its pages back, and only those. */
	CHECK(!ibv_dereg_mr(mr[0]), "dereg_mr");
	mr[0] = reg_span(p, GIB);
	CHECK(mr[0], "1 GiB again after a deregistration of 1 GiB: %s",
	      strerror(errno));
	refused(reg_span(p + span - PAGE, PAGE),
		"one page past 4 x MemTotal, after a deregistration and a registration of 1 GiB");
	for (i = 0; i < n; i++)
		CHECK(!ibv_dereg_mr(mr[i]), "dereg_mr");
	if (tail)
		CHECK(!ibv_dereg_mr(tail), "dereg_mr");
	mr[0] = reg_span(p, GIB);
	CHECK(mr[0], "1 GiB after all were deregistered: %s",
	      strerror(errno));
	CHECK(!ibv_dereg_mr(mr[0]), "dereg_mr");
	CHECK(mem_total() == mem, "MemTotal changed during the check");
	CHECK(!munmap(p, span), "munmap: %s", strerror(errno));
	free(mr);
	printf("ok ODP registrations on %s bounded by 4 x MemTotal (%llu kB): one of %llu MiB refused (ENOMEM); %zu of 1 GiB and one of %zu KiB fit exactly, one page more is refused; a deregistration gives its pages back\n",
	       dev_a, mem >> 10, (bound + GIB) >> 20, n, rest >> 10);
}

/* --- memory windows ---------------------------------------------------- */

#define WIN_AT		PAGE		/* the window in B's region */
#define WIN_LEN		(8 * PAGE)

/* @wr (RDMA or atomic, aimed at B) through the window's key @rkey. */
static struct ibv_send_wr *via(struct ibv_send_wr *wr, uint32_t rkey)
{
	if (is_atomic(wr->opcode))
		wr->wr.atomic.rkey = rkey;
	else
		wr->wr.rdma.rkey = rkey;
	return wr;
}

/*
 * A type 2 window bound to an ODP region B never touched: WRITE, READ
 * and FETCH_ADD through its key fault the pages in and land; after
 * MADV_DONTNEED of the window's pages a WRITE lands in new ones; dereg
 * of the region fails with EBUSY while the window is bound; a WRITE one
 * byte past the window is a remote access error.
 */
static void test_mw(void)
{
	const char *what = "RC through a type 2 window on a never-touched ODP MR";
	size_t wr_at = WIN_AT + DST_AT, fa_at = WIN_AT + 7 * PAGE;
	struct region src, dst, sink;
	struct ibv_send_wr wr, good, *bad_wr;
	struct ibv_sge sge, sge2;
	struct ibv_mw *mw;
	struct ibv_wc wc;
	uint32_t rkey;
	uint64_t v;

	connect_pair(IBV_QPT_RC, NULL);
	memfd_src(&src, REGION);
	fresh_anon(&a, &sink, REGION, LW);
	fresh_anon(&b, &dst, REGION, REMOTE_ALL | IBV_ACCESS_MW_BIND);
	mw = ibv_alloc_mw(b.pd, IBV_MW_TYPE_2);
	CHECK(mw, "%s: alloc_mw: %s", what, strerror(errno));
	rkey = ibv_inc_rkey(mw->rkey);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = next_id++;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = dst.mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)(dst.p + WIN_AT);
	wr.bind_mw.bind_info.length = WIN_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
		IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	CHECK(!ibv_post_send(b.qp, &wr, &bad_wr), "%s: post BIND_MW", what);
	expect_wc(&b, &wc, what, wr.wr_id, IBV_WC_SUCCESS, IBV_WC_BIND_MW);

	wr = wr_of(&sge, IBV_WR_RDMA_WRITE, &src, SRC_AT, SMALL, &dst, wr_at);
	run_ok(via(&wr, rkey), IBV_WC_RDMA_WRITE, &wc, what);
	check_landed(&dst, wr_at, SMALL, &src, SRC_AT, what);
	wr = wr_of(&sge, IBV_WR_RDMA_READ, &sink, DST_AT, SMALL, &dst, wr_at);
	run_ok(via(&wr, rkey), IBV_WC_RDMA_READ, &wc, what);
	check_landed(&sink, DST_AT, SMALL, &src, SRC_AT, what);
	wr = wr_of(&sge, IBV_WR_ATOMIC_FETCH_AND_ADD, &sink, 6 * PAGE, 8,
		   &dst, fa_at);
	wr.wr.atomic.compare_add = IMM;
	run_ok(via(&wr, rkey), IBV_WC_FETCH_ADD, &wc, what);
	memcpy(&v, sink.p + 6 * PAGE, 8);
	CHECK(v == 0, "%s: FETCH_ADD returned %#" PRIx64, what, v);
	memcpy(&v, dst.p + fa_at, 8);
	CHECK(v == IMM, "%s: FETCH_ADD left %#" PRIx64, what, v);
	printf("ok %s: WRITE, READ and FETCH_ADD through the window land\n",
	       what);

	CHECK(!madvise(dst.p + WIN_AT, WIN_LEN, MADV_DONTNEED),
	      "madvise: %s", strerror(errno));
	check_zero(dst.p + WIN_AT, WIN_LEN, what);
	wr = wr_of(&sge, IBV_WR_RDMA_WRITE, &src, 2 * PAGE, SMALL, &dst,
		   wr_at);
	run_ok(via(&wr, rkey), IBV_WC_RDMA_WRITE, &wc, what);
	check_landed(&dst, wr_at, SMALL, &src, 2 * PAGE, what);
	printf("ok %s: after MADV_DONTNEED of the window's pages a WRITE through it lands in new ones\n",
	       what);

	errno = 0;
	CHECK(ibv_dereg_mr(dst.mr) == EBUSY || errno == EBUSY,
	      "%s: dereg of the region under a bound window: %s", what,
	      strerror(errno));
	printf("ok %s: dereg of the region while bound: EBUSY\n", what);

	good = wr_of(&sge, IBV_WR_RDMA_WRITE, &src, SRC_AT, 100, &dst,
		     WIN_AT + WIN_LEN - 100);
	wr = wr_of(&sge2, IBV_WR_RDMA_WRITE, &src, SRC_AT, 101, &dst,
		   WIN_AT + WIN_LEN - 100);
	good_then_bad(via(&good, rkey), via(&wr, rkey),
		      IBV_WC_REM_ACCESS_ERR,
		      "RC WRITE one byte past a window on an ODP MR");
	check_landed(&dst, WIN_AT + WIN_LEN - 100, 100, &src, SRC_AT, what);
	check_zero(dst.p + WIN_AT + WIN_LEN, PAGE, what);
	destroy_pair(&a, &b);
	CHECK(!ibv_dealloc_mw(mw), "dealloc_mw");
	free_region(&src);
	free_region(&sink);
	free_region(&dst);
}

/* --- prefetch (ibv_advise_mr) ------------------------------------------ */

/*
 * ibv_advise_mr() of @n SGEs on @e's PD, by the uverbs command itself:
 * Debian 12's librxe has no advise_mr, so libibverbs would refuse it
 * before asking the kernel. 0 or the errno.
 */
static int advise(struct end *e, struct ibv_pd *pd, uint64_t advice,
		  uint32_t flags, struct ibv_sge *sge, uint32_t n)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[4];
	} cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.hdr.length = sizeof(cmd);
	cmd.hdr.object_id = UVERBS_OBJECT_MR;
	cmd.hdr.method_id = UVERBS_METHOD_ADVISE_MR;
	cmd.hdr.num_attrs = 4;
	/* The uverbs ABI our devices speak: rxe's (librxe is the provider). */
	cmd.hdr.driver_id = RDMA_DRIVER_RXE;
	cmd.attr[0].attr_id = UVERBS_ATTR_ADVISE_MR_PD_HANDLE;
	cmd.attr[0].data = pd->handle;
	cmd.attr[1].attr_id = UVERBS_ATTR_ADVISE_MR_ADVICE;
	cmd.attr[1].len = sizeof(uint64_t);
	cmd.attr[1].data = advice;
	cmd.attr[2].attr_id = UVERBS_ATTR_ADVISE_MR_FLAGS;
	cmd.attr[2].len = sizeof(uint32_t);
	cmd.attr[2].data = flags;
	cmd.attr[3].attr_id = UVERBS_ATTR_ADVISE_MR_SGE_LIST;
	cmd.attr[3].len = n * sizeof(struct ib_uverbs_sge);
	cmd.attr[3].data = (uintptr_t)sge;
	return ioctl(e->ctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd) ? errno : 0;
}

/* A synchronous prefetch of @len bytes at @off of @r on @e. */
static int prefetch(struct end *e, const struct region *r, size_t off,
		    uint32_t len, uint64_t advice)
{
	struct ibv_sge sge = sge_in(r, off, len);

	return advise(e, e->pd, advice, IB_UVERBS_ADVISE_MR_FLAG_FLUSH, &sge,
		      1);
}

static void prefetch_ok(struct end *e, const struct region *r, size_t off,
			uint32_t len, uint64_t advice, const char *what)
{
	int err = prefetch(e, r, off, len, advice);

	CHECK(!err, "%s: advise_mr %" PRIu64 " of %u bytes: %s", what,
	      advice, len, strerror(err));
}

static void prefetch_refused(struct end *e, struct ibv_pd *pd,
			     uint64_t advice, uint32_t flags,
			     struct ibv_sge sge, int want, const char *what)
{
	int err = advise(e, pd, advice, flags, &sge, 1);

	CHECK(err == want, "advise_mr of %s: %s, expected %s", what,
	      err ? strerror(err) : "success", strerror(want));
	printf("ok advise_mr of %s: %s\n", what, strerror(want));
}

/* Pages [first, first + n) of @r are resident (mincore) exactly. */
static int resident_exactly(const struct region *r, size_t first, size_t n)
{
	unsigned char vec[REGION / PAGE];
	size_t i;

	CHECK(!mincore(r->p, r->len, vec), "mincore: %s", strerror(errno));
	for (i = 0; i < r->len / PAGE; i++)
		if (!(vec[i] & 1) != !(i >= first && i < first + n))
			return 0;
	return 1;
}

static void check_no_faults(long long fa, long long fb, const char *what)
{
	long long na = odp_faults(dev_a), nb = odp_faults(dev_b);

	CHECK(na == fa && nb == fb,
	      "%s: pages faulted in anyway: odp_faults %s +%lld, %s +%lld",
	      what, dev_a, na - fa, dev_b, nb - fb);
}

/*
 * Errors: each refused as ibv_advise_mr(3) says, before anything is
 * done: an unknown advice (EOPNOTSUPP); a key of no region, a range past
 * the region's end, PREFETCH_WRITE on a region without local write, a
 * region of another PD (EFAULT); a synchronous prefetch over the
 * never-mapped part of a region (EFAULT). A region's pages that are
 * pinned need nothing: success.
 */
static void test_advise_errors(void)
{
	struct region r, ro, pinned, other, holed;
	struct ibv_pd *pd2;
	struct ibv_sge sge;
	struct ibv_mr *mr;

	fresh_anon(&a, &r, REGION, LW);
	fresh_anon(&a, &ro, REGION, 0);
	/* Pinned: present already. */
	map_region(&pinned, REGION, -1, -1, PROT_READ | PROT_WRITE);
	mr = ibv_reg_mr(a.pd, pinned.p, pinned.len, LW);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	pinned.mr = mr;
	prefetch_ok(&a, &pinned, 0, REGION,
		    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		    "a pinned region");
	printf("ok advise_mr of a pinned region: nothing to do, success\n");
	sge = sge_in(&r, 0, PAGE);
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT + 1,
			 IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sge, EOPNOTSUPP,
			 "an unknown advice");
	sge.lkey ^= 0x80;
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
			 IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sge, EFAULT,
			 "a key of no region");
	sge = sge_in(&r, REGION - PAGE, PAGE + 1);
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH, 0,
			 sge, EFAULT, "a range one byte past the region");
	sge = sge_in(&ro, 0, PAGE);
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			 0, sge, EFAULT,
			 "PREFETCH_WRITE on a region without local write");
	pd2 = ibv_alloc_pd(a.ctx);
	CHECK(pd2, "alloc_pd: %s", strerror(errno));
	map_region(&other, REGION, -1, -1, PROT_READ | PROT_WRITE);
	other.mr = ibv_reg_mr(pd2, other.p, other.len,
			      LW | IBV_ACCESS_ON_DEMAND);
	CHECK(other.mr, "ODP reg_mr on a second PD: %s", strerror(errno));
	sge = sge_in(&other, 0, PAGE);
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
			 IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sge, EFAULT,
			 "a region of another PD");
	CHECK(resident_exactly(&other, 0, 0),
	      "advise_mr of another PD's region brought pages in");
	map_region(&holed, REGION, -1, -1, PROT_READ | PROT_WRITE);
	reg_odp(&a, &holed, LW);
	punch_hole(&holed);
	sge = sge_in(&holed, HOLE_AT - PAGE, 2 * PAGE);
	prefetch_refused(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			 IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sge, EFAULT,
			 "a range running into a munmapped part, synchronously");
	check_hole(&holed, "advise_mr over a hole");
	free_region(&pinned);
	free_region(&holed);
	free_region(&other);
	CHECK(!ibv_dealloc_pd(pd2), "dealloc_pd");
	free_region(&ro);
	free_region(&r);
}

/*
 * Prefetch, then transfer: the pages are present before the transfer,
 * so neither device faults (odp_faults unchanged); every byte checked.
 *  - PREFETCH of A's never-touched memfd source and PREFETCH_WRITE of
 *    B's fresh anonymous target, synchronous: mincore shows exactly the
 *    target's pages in; a WRITE between them faults nothing;
 *  - PREFETCH_NO_FAULT, synchronous, over 8 pages of B's fresh target of
 *    which the process touched the first 4: only those 4 come in
 *    (mincore), a WRITE into them faults nothing, one into the other 4
 *    does (the counter can tell);
 *  - PREFETCH_WRITE without FLUSH: returns at once, the pages come in
 *    (mincore, within 5 s) and a WRITE lands;
 *  - an asynchronous PREFETCH_WRITE of 64 MiB, the region deregistered
 *    at once: dereg does not wait for all of it (under 5 s).
 */
static void test_advise(void)
{
	const char *what;
	struct region src, dst;
	struct timespec t0, t1;
	struct ibv_sge sge;
	long long fa, fb, nb;
	int i, err;
	size_t big = 64u << 20;

	test_advise_errors();
	connect_pair(IBV_QPT_RC, NULL);

	what = "RC WRITE after synchronous PREFETCH / PREFETCH_WRITE";
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	prefetch_ok(&a, &src, SRC_AT, BIG, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
		    what);
	prefetch_ok(&b, &dst, DST_AT, BIG,
		    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE, what);
	CHECK(resident_exactly(&dst, DST_AT / PAGE,
			       (DST_AT + BIG - 1) / PAGE - DST_AT / PAGE + 1),
	      "%s: the target's resident pages are not exactly those prefetched",
	      what);
	fa = odp_faults(dev_a);
	fb = odp_faults(dev_b);
	write_into(&src, SRC_AT, BIG, &dst, DST_AT, 0, what);
	check_no_faults(fa, fb, what);
	printf("ok %s of %u bytes: no page faulted in by the transfer\n",
	       what, BIG);
	free_region(&src);
	free_region(&dst);

	what = "RC WRITE after PREFETCH_NO_FAULT";
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	/* The process touches 4 pages, leaving them zero. */
	for (i = 0; i < 4; i++)
		((volatile uint8_t *)dst.p)[i * PAGE] = 0;
	prefetch_ok(&a, &src, 0, 8 * PAGE, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH,
		    what);
	prefetch_ok(&b, &dst, 0, 8 * PAGE,
		    IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, what);
	CHECK(resident_exactly(&dst, 0, 4),
	      "%s: NO_FAULT changed which pages are resident", what);
	fa = odp_faults(dev_a);
	fb = odp_faults(dev_b);
	write_into(&src, GUARD, 4 * PAGE - 2 * GUARD, &dst, GUARD, 0, what);
	check_no_faults(fa, fb, what);
	write_into(&src, 4 * PAGE + GUARD, 4 * PAGE - 2 * GUARD, &dst,
		   4 * PAGE + GUARD, 0, what);
	nb = odp_faults(dev_b);
	CHECK(nb > fb, "%s: the pages NO_FAULT left out were not faulted in (odp_faults %lld -> %lld)",
	      what, fb, nb);
	printf("ok %s: the 4 present pages mapped without a fault, the 4 absent ones left out (faulted by the next WRITE)\n",
	       what);
	free_region(&src);
	free_region(&dst);

	what = "asynchronous PREFETCH_WRITE";
	memfd_src(&src, REGION);
	fresh_anon(&b, &dst, REGION, LW | IBV_ACCESS_REMOTE_WRITE);
	sge = sge_in(&dst, 0, 16 * PAGE);
	err = advise(&b, b.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0,
		     &sge, 1);
	CHECK(!err, "%s: %s", what, strerror(err));
	for (i = 0; i < 500 && !resident_exactly(&dst, 0, 16); i++)
		usleep(10000);
	CHECK(i < 500, "%s: the 16 pages did not come in within 5 s", what);
	write_into(&src, SRC_AT, SMALL, &dst, DST_AT, 0, what);
	printf("ok %s: returned at once, the 16 pages in after %d ms, a WRITE lands\n",
	       what, i * 10);
	free_region(&src);
	free_region(&dst);

	what = "dereg under an asynchronous PREFETCH_WRITE of 64 MiB";
	map_region(&dst, big, -1, -1, PROT_READ | PROT_WRITE);
	reg_odp(&b, &dst, LW);
	sge = sge_in(&dst, 0, big);
	err = advise(&b, b.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0,
		     &sge, 1);
	CHECK(!err, "%s: %s", what, strerror(err));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	free_region(&dst);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(t1.tv_sec - t0.tv_sec < 5, "%s: took %ld s", what,
	      (long)(t1.tv_sec - t0.tv_sec));
	printf("ok %s: dereg and munmap took %ld ms\n", what,
	       (long)((t1.tv_sec - t0.tv_sec) * 1000 +
		      (t1.tv_nsec - t0.tv_nsec) / 1000000));
	destroy_pair(&a, &b);
}

/* --- implicit ODP ------------------------------------------------------ */

#define PIECE		(2u << 20)	/* sroce's children of implicit regions */
#define SPARSE		(1ull << 30)	/* B's sparse buffer */
#define SPARSE_N	128		/* pieces of it written */
#define SPARSE_LEN	64		/* bytes to each */
#define KERNEL_VA	0xffff888000000000ull

static struct ibv_mr *reg_implicit(struct end *e, unsigned int access)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, NULL, SIZE_MAX,
				       access | IBV_ACCESS_ON_DEMAND);

	CHECK(mr, "%s: implicit ODP registration (NULL, SIZE_MAX): %s",
	      e->name, strerror(errno));
	return mr;
}

/*
 * The driver attribute @key of @dev's MR with @lkey (rdma resource show
 * mr -dd, which lists the MRs of every process), or -1.
 */
static long long mr_attr(const char *dev, uint32_t lkey, const char *key)
{
	char cmd[160], line[1024], want[32], *p;
	long long v = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma -dd resource show mr dev %s", dev);
	snprintf(want, sizeof(want), " lkey 0x%x ", lkey);
	f = popen(cmd, "r");
	CHECK(f, "popen %s: %s", cmd, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, want))
			continue;
		p = strstr(line, key);
		if (p && p[strlen(key)] == ' ')
			v = atoll(p + strlen(key) + 1);
	}
	pclose(f);
	return v;
}

/* @len bytes of anonymous memory, aligned to PIECE, without huge pages. */
static uint8_t *map_aligned(size_t len, int prot)
{
	uint8_t *p = mmap(NULL, len + PIECE, prot,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t at;

	CHECK(p != MAP_FAILED, "mmap of %zu bytes: %s", len + PIECE,
	      strerror(errno));
	at = ((uintptr_t)p + PIECE - 1) & ~(uintptr_t)(PIECE - 1);
	if (at > (uintptr_t)p)
		munmap(p, at - (uintptr_t)p);
	munmap((uint8_t *)at + len, (uintptr_t)p + PIECE - at);
	CHECK(!madvise((void *)at, len, MADV_NOHUGEPAGE), "madvise: %s",
	      strerror(errno));
	return (uint8_t *)at;
}

/* The offset in B's sparse buffer of write @i: piece (i x 197) mod 512. */
static size_t sparse_at(unsigned int i)
{
	size_t piece = (i * 197u) % (SPARSE / PIECE);
	size_t in = GUARD + (pattern_byte(i, 0) * 4093u + i * 61u) %
			    (PIECE - SPARSE_LEN - 2 * GUARD);

	return piece * PIECE + (in & ~7ul);
}

/*
 * A WRITE of 64 bytes from A's implicit region to @remote (0: to an
 * address just munmapped) through B's implicit key, after a good one to
 * B's @good: a remote access error, B's region makes no child for it.
 */
static void implicit_bad_write(struct ibv_mr *amr, struct ibv_mr *bmr,
			       const uint8_t *src, uint8_t *good,
			       uint64_t remote, const char *what)
{
	struct ibv_send_wr wr[2];
	struct ibv_sge sge[2];
	long long before = mr_attr(dev_b, bmr->lkey, "odp_children");
	uint8_t *hole;
	int i;

	connect_pair(IBV_QPT_RC, NULL);
	/* After connect_pair(), whose queues are mappings too. */
	if (!remote) {
		hole = map_aligned(PIECE, PROT_READ | PROT_WRITE);
		CHECK(!munmap(hole, PIECE), "munmap: %s", strerror(errno));
		remote = (uintptr_t)hole + 128;
	}
	for (i = 0; i < 2; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)src,
					   .length = SPARSE_LEN,
					   .lkey = amr->lkey };
		wr[i] = (struct ibv_send_wr){
			.wr_id = next_id++, .sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = i ? remote :
							(uintptr_t)good,
				     .rkey = bmr->rkey },
		};
	}
	good_then_bad(&wr[0], &wr[1], IBV_WC_REM_ACCESS_ERR, what);
	CHECK(!memcmp(good, src, SPARSE_LEN), "%s: the good WRITE", what);
	CHECK(mr_attr(dev_b, bmr->lkey, "odp_children") == before,
	      "%s: B's implicit region made a child for it (%lld -> %lld)",
	      what, before, mr_attr(dev_b, bmr->lkey, "odp_children"));
	destroy_pair(&a, &b);
}

/*
 * Implicit ODP, one registration of (NULL, SIZE_MAX) on each end:
 *  - 128 WRITEs of 64 bytes from a never-touched memfd source of A's,
 *    through A's implicit region, into a never-touched 1 GiB of B's
 *    (MAP_NORESERVE), each into its own 2 MiB piece at an offset of its
 *    own, through B's implicit rkey at B's own addresses: each lands,
 *    the 64 bytes around it stay zero; READs bring each back into fresh
 *    memory of A's through A's implicit region;
 *  - B's region holds one child per 2 MiB piece written (odp_children,
 *    rdma resource show mr -dd), 128 and no more: its page lists are
 *    those of 256 MiB, not of all it covers;
 *  - a WRITE to a munmapped address of B's, or to a kernel address: a
 *    remote access error, and no child made for it;
 *  - the device's bound: PREFETCH_NO_FAULT through B's implicit region
 *    over 4 x MemTotal + 64 MiB of reserved (PROT_READ, untouched)
 *    address space makes children until the bound, then fails (EFAULT);
 *    an explicit ODP registration of 1 GiB is then refused (ENOMEM);
 *    after the implicit region's dereg it fits.
 */
static void test_implicit(void)
{
	const char *what = "implicit ODP: sparse WRITEs into 1 GiB";
	unsigned long long bound = 4 * mem_total();
	size_t span = bound + (64u << 20), off;
	struct ibv_mr *amr, *bmr, *mr;
	struct region src, back;
	struct ibv_send_wr wr;
	struct ibv_sge sge, *sges;
	struct ibv_wc wc;
	uint8_t *sparse, *reserve;
	long long children, pages;
	unsigned int i, n;
	int err;

	amr = reg_implicit(&a, LW);
	bmr = reg_implicit(&b, LW | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	map_region(&src, REGION, pattern_memfd(REGION, next_seed++), 0,
		   PROT_READ);
	src.seed = next_seed - 1;
	map_region(&back, REGION, -1, -1, PROT_READ | PROT_WRITE);
	sparse = map_aligned(SPARSE, PROT_READ | PROT_WRITE);
	CHECK(mr_attr(dev_b, bmr->lkey, "odp_children") == 0,
	      "%s: B's fresh implicit region has children (%lld), or rdma resource show mr -dd does not show them",
	      what, mr_attr(dev_b, bmr->lkey, "odp_children"));

	connect_pair(IBV_QPT_RC, NULL);
	for (i = 0; i < SPARSE_N; i++) {
		off = sparse_at(i);
		sge = (struct ibv_sge){ .addr = (uintptr_t)(src.p + i * 1000),
					.length = SPARSE_LEN,
					.lkey = amr->lkey };
		wr = (struct ibv_send_wr){
			.wr_id = next_id++, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = (uintptr_t)(sparse + off),
				     .rkey = bmr->rkey },
		};
		run_ok(&wr, IBV_WC_RDMA_WRITE, &wc, what);
		check_zero(sparse + off - GUARD, GUARD, what);
		check_pattern(sparse + off, SPARSE_LEN, src.seed, i * 1000,
			      what);
		check_zero(sparse + off + SPARSE_LEN, GUARD, what);
		/* And back, into A's fresh memory. */
		sge.addr = (uintptr_t)(back.p + i * 1000);
		wr.wr_id = next_id++;
		wr.opcode = IBV_WR_RDMA_READ;
		run_ok(&wr, IBV_WC_RDMA_READ, &wc, what);
		check_pattern(back.p + i * 1000, SPARSE_LEN, src.seed,
			      i * 1000, what);
	}
	destroy_pair(&a, &b);
	children = mr_attr(dev_b, bmr->lkey, "odp_children");
	pages = mr_attr(dev_b, bmr->lkey, "odp_pages");
	CHECK(children == SPARSE_N && pages == SPARSE_N * (PIECE / PAGE),
	      "%s: B's implicit region has %lld children (%lld pages), expected one per 2 MiB piece written: %u",
	      what, children, pages, SPARSE_N);
	printf("ok %s: %u WRITEs and READs of %u bytes through both implicit regions land; B's holds %lld children of 2 MiB (%lld pages' lists), one per piece written\n",
	       what, SPARSE_N, SPARSE_LEN, children, pages);

	implicit_bad_write(amr, bmr, src.p, sparse + sparse_at(0), 0,
			   "implicit ODP: a WRITE to a munmapped address");
	implicit_bad_write(amr, bmr, src.p, sparse + sparse_at(1),
			   KERNEL_VA, "implicit ODP: a WRITE to a kernel address");
	CHECK(!munmap(sparse, SPARSE), "munmap: %s", strerror(errno));

	/* Reserved address space (PROT_NONE) makes no children either. */
	reserve = map_aligned(64u << 20, PROT_NONE);
	children = mr_attr(dev_b, bmr->lkey, "odp_children");
	sge = (struct ibv_sge){ .addr = (uintptr_t)reserve,
				.length = 64u << 20, .lkey = bmr->lkey };
	err = advise(&b, b.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
		     IB_UVERBS_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	CHECK(err == EFAULT &&
	      mr_attr(dev_b, bmr->lkey, "odp_children") == children,
	      "implicit ODP: PREFETCH_NO_FAULT over 64 MiB of PROT_NONE: %s, children %lld -> %lld; expected EFAULT and none made",
	      err ? strerror(err) : "success", children,
	      mr_attr(dev_b, bmr->lkey, "odp_children"));
	printf("ok implicit ODP: PREFETCH_NO_FAULT over 64 MiB of PROT_NONE address space: EFAULT, no child made\n");
	CHECK(!munmap(reserve, 64u << 20), "munmap: %s", strerror(errno));

	/* The bound, on B's device: nothing else holds ODP regions there. */
	what = "implicit ODP: the device's bound";
	reserve = mmap(NULL, span, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(reserve != MAP_FAILED, "mmap of %zu bytes: %s", span,
	      strerror(errno));
	n = (span + GIB - 1) / GIB;
	sges = calloc(n, sizeof(*sges));
	CHECK(sges, "out of memory");
	for (i = 0; i < n; i++)
		sges[i] = (struct ibv_sge){
			.addr = (uintptr_t)reserve + i * GIB,
			.length = i + 1 < n ? GIB : span - i * GIB,
			.lkey = bmr->lkey };
	err = advise(&b, b.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT,
		     IB_UVERBS_ADVISE_MR_FLAG_FLUSH, sges, n);
	children = mr_attr(dev_b, bmr->lkey, "odp_children");
	CHECK(err == EFAULT, "%s: PREFETCH_NO_FAULT over 4 x MemTotal + 64 MiB: %s, expected EFAULT",
	      what, err ? strerror(err) : "success");
	CHECK(children > 0 &&
	      (unsigned long long)children * PIECE <= bound &&
	      (unsigned long long)children * PIECE + PIECE > bound,
	      "%s: %lld children of 2 MiB, against a bound of %llu bytes",
	      what, children, bound);
	mr = ibv_reg_mr(b.pd, reserve, GIB, LW | IBV_ACCESS_ON_DEMAND);
	err = errno;
	if (mr)
		ibv_dereg_mr(mr);
	CHECK(!mr && err == ENOMEM,
	      "%s: an explicit ODP registration of 1 GiB with the bound used up: %s, expected ENOMEM",
	      what, mr ? "registered" : strerror(err));
	CHECK(!ibv_dereg_mr(bmr), "dereg_mr of the implicit region");
	mr = ibv_reg_mr(b.pd, reserve, GIB, LW | IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "%s: 1 GiB after the implicit region's dereg: %s", what,
	      strerror(errno));
	CHECK(!ibv_dereg_mr(mr), "dereg_mr");
	printf("ok %s: PREFETCH_NO_FAULT over 4 x MemTotal + 64 MiB stops at %lld children of 2 MiB (EFAULT), an explicit registration of 1 GiB is then refused (ENOMEM), and fits after the implicit region's dereg\n",
	       what, children);
	free(sges);
	CHECK(!munmap(reserve, span), "munmap: %s", strerror(errno));
	CHECK(!ibv_dereg_mr(amr), "dereg_mr of the implicit region");
	free_region(&src);
	free_region(&back);
}

/*
 * -P: PREFETCH_PIECES asynchronous PREFETCH_WRITEs of PREFETCH_PIECE
 * bytes each into a never-touched ODP region of A; once an eighth of the
 * pages are in, a wait for a line on stdin, the rest still coming in:
 * whoever runs it takes the device away (or kills the process) then.
 */
static void prefetch_and_wait(void)
{
	struct ibv_sge sge[PREFETCH_PIECES];
	struct timespec t0;
	unsigned char *vec;
	struct region r;
	size_t i, n = 0;
	char line[16];
	int err;

	fresh_anon(&a, &r, PREFETCH_PIECES * PREFETCH_PIECE, LW);
	for (i = 0; i < PREFETCH_PIECES; i++)
		sge[i] = sge_in(&r, i * PREFETCH_PIECE, PREFETCH_PIECE);
	for (i = 0; i < PREFETCH_PIECES; i++) {
		err = advise(&a, a.pd, IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			     0, &sge[i], 1);
		CHECK(!err, "asynchronous advise_mr %zu: %s", i, strerror(err));
	}
	vec = malloc(r.len / PAGE);
	CHECK(vec, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Under way: an eighth of the pages in, and then it goes on. */
	while (n < r.len / PAGE / 8) {
		CHECK(ms_since(&t0) < WAIT_MS,
		      "the prefetches brought %zu pages in within %d ms", n,
		      WAIT_MS);
		nap_us(1000);
		CHECK(!mincore(r.p, r.len, vec), "mincore: %s",
		      strerror(errno));
		for (i = 0, n = 0; i < r.len / PAGE; i++)
			n += vec[i] & 1;
	}
	printf("ok %d asynchronous prefetches of %u MiB under way: %zu of %zu pages in after %ld ms\n",
	       PREFETCH_PIECES, PREFETCH_PIECE >> 20, n, r.len / PAGE,
	       ms_since(&t0));
	printf("odp all ok\n");
	CHECK(fgets(line, sizeof(line), stdin) || feof(stdin), "stdin");
	CHECK(!mincore(r.p, r.len, vec), "mincore: %s", strerror(errno));
	for (i = 0, n = 0; i < r.len / PAGE; i++)
		n += vec[i] & 1;
	printf("in at the end: %zu of %zu pages\n", n, r.len / PAGE);
	exit(0);
}

int main(int argc, char **argv)
{
	long long faults_a, faults_b, now_a, now_b;
	int prefetch_only = 0;

	argv = prog_args(argc, argv, "rP",
			 (int *[]){ &rxe_quirks, &prefetch_only }, 4, USAGE);
	dev_a = argv[0];
	dev_b = argv[2];
	end_open(&a, "A", dev_a, atoi(argv[1]));
	if (prefetch_only)
		prefetch_and_wait();
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
	test_secret();

	test_race();
	test_target_dropped(DROP_FAST_US);
	test_target_dropped(DROP_SLOW_US);
	test_mw();
	test_advise();
	test_implicit();
	test_bound();

	printf("odp all ok\n");
	return 0;
}
