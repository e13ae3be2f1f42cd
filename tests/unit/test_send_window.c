// SPDX-License-Identifier: GPL-2.0
/*
 * The send window (send_window.c, built unmodified on the kshim/ shim),
 * driven by scripted steps: each step is something user space does, or
 * one pass of the send engine - the requester sending, the completer
 * taking an ACK, a response or a NAK's seek - which ends, as every pass
 * does, in a retire. After each step the window must be exactly as the
 * step says.
 *
 * The requester and the completer are not built here: the steps below
 * do with the window what requester.c, completer.c and read_gap.c do,
 * call for call. Every script runs at several first PSNs and consumer
 * indices, so that PSNs wrap at 2^24 and slots wrap round the ring.
 */
#include "unit.h"

#define RING_LOG2	4
#define RING_SLOTS	(1u << RING_LOG2)
#define RING_MASK	(RING_SLOTS - 1)
#define SLOT_LOG2	8
#define MTU		256
#define MAX_RD_ATOMIC	4
/* A LOCAL_INV of this rkey fails when the requester runs it. */
#define BAD_RKEY	0xbadu
/* What SCRIBBLE writes over a WQE's wr_id in the user's ring. */
#define SCRIBBLED	0xbad0u

#define ANY		(-1)
#define NO		(-2)

enum op {
	POST,		/* the next a WQEs of the script are posted;
			 * ret: how many there were */
	SEND,		/* requester, budget a; ret: first PSN sent, or NO */
	ACK,		/* sroce_swin_ack(a) */
	RELEASE,	/* sroce_swin_release_ack() */
	RESP,		/* responses a.. (b of them, 0: one) in order;
			 * ret: the WQE of the last taken, or NO */
	AHEAD,		/* sroce_swin_read_at(a); ret: its WQE, or NO */
	RESEND,		/* sroce_swin_resend_one(a) */
	REREQ,		/* sroce_swin_rerequest(a, b) */
	SEEK,		/* sroce_swin_seek(a) */
	TIMEOUT,	/* the ACK timeout: back N from the oldest WQE's
			 * resume PSN; ret: that PSN, or NO */
	RESPONSE,	/* sroce_swin_response(a); ret: its WQE, or NO */
	PROBE,		/* sroce_swin_probe_psn(); ret: the PSN, or NO */
	FAIL,		/* the oldest WQE not done fails with status a */
	FLUSH,		/* sroce_swin_flush() */
	DISCARD,	/* sroce_swin_discard() */
	CQ_ROOM,	/* the CQ takes a more completions */
	SCRIBBLE,	/* user space writes over WQE a's wr_id in the ring */
	PROD,		/* user space sets the producer index to cons + a */
	COUNT,		/* ret: counter a (enum count) */
	STOP,
};

enum count { LOCAL_RUNS, OVERRUNS, FATAL, WC_ERRORS };

/*
 * One step and the window after it. PSNs are relative to the script's
 * first PSN, slots to its first consumer index (a WQE's number in the
 * script's list, modulo the ring's size). sq: "!" if the QP is in ERR,
 * then one character per fetched WQE from the consumer index on: '.'
 * not done, 'x' not done but failed its checks, 'D' done, 'E' done with
 * an error.
 */
struct step {
	enum op op;
	u32 a, b;
	int ret;		/* what the call returned; ANY: unchecked */
	u32 idx, off, psn, acked, end;
	u32 resume;		/* one_shot: resume_psn; NO: not one_shot */
	u32 rereq;		/* rereq_pkts, when one_shot */
	u32 held;		/* ack_held: held_ack; NO: none held */
	const char *sq;
	unsigned int ncqe;	/* completions posted so far */
};

#define STEPS_END	{ .op = STOP }

struct wqe_spec {
	u32 opcode;
	u32 len;
	u32 flags;		/* IB_SEND_*, and FAILS */
};

/* Test-only WQE flag: a local operation that fails when run. */
#define FAILS		0x100u
#define SIG		IB_SEND_SIGNALED

struct cqe_spec {
	u64 wr_id;
	enum ib_wc_status status;
	enum ib_wc_opcode opcode;
	u32 byte_len;
};

struct script {
	const struct wqe_spec *wqes;
	unsigned int nwqes;
	const struct step *steps;
	const struct cqe_spec *cqes;
	unsigned int ncqes;
	bool sig_all;
};

#define SCRIPT(w, s, c)							\
	{ .wqes = (w), .nwqes = sizeof(w) / sizeof((w)[0]),		\
	  .steps = (s), .cqes = (c), .ncqes = sizeof(c) / sizeof((c)[0]) }

/* First PSN and first consumer index of each run of a script. */
static const struct { u32 base, cons; } configs[] = {
	{ 0, 0 },
	{ 0xfffff8, 13 },	/* PSNs wrap at 8, slots at 3 */
	{ 0xffffff, 6 },	/* PSNs wrap at 1 */
};

static struct {
	struct sroce_dev dev;
	struct sroce_cq cq;
	struct sroce_qp qp;
	struct rxe_queue_buf *ring;
	u32 base, cons0;
	unsigned int posted;
	unsigned int local_runs;
	const struct script *sc;
} fx;

static u32 rel_psn(u32 psn)
{
	return sroce_psn_sub(psn, fx.base);
}

static u32 abs_psn(u32 psn)
{
	return sroce_psn_add(fx.base, psn);
}

static u32 rel_idx(u32 idx)
{
	return (idx - fx.cons0) & RING_MASK;
}

static struct rxe_send_wqe *ring_slot(u32 n)
{
	return sroce_queue_addr(&fx.qp.sq, fx.cons0 + n);
}

static int setup(const struct script *sc, u32 base, u32 cons)
{
	size_t size = sizeof(*fx.ring) + ((size_t)RING_SLOTS << SLOT_LOG2);
	struct sroce_qp *qp = &fx.qp;

	memset(&fx, 0, sizeof(fx));
	memset(&kshim_log, 0, sizeof(kshim_log));
	fx.sc = sc;
	fx.base = base;
	fx.cons0 = cons;
	fx.ring = calloc(1, size);
	if (!fx.ring)
		return -ENOMEM;
	fx.ring->log2_elem_size = SLOT_LOG2;
	fx.ring->index_mask = RING_MASK;
	fx.ring->producer_index = cons;
	fx.ring->consumer_index = cons;
	fx.cq.room = KSHIM_CQ_SIZE;

	qp->ib_qp.device = &fx.dev.ib_dev;
	qp->ib_qp.qp_num = 17;
	qp->state = IB_QPS_RTS;
	qp->mtu = MTU;
	qp->sig_all = sc->sig_all;
	qp->scq = &fx.cq;
	qp->sq.buf = fx.ring;
	qp->sq.index_mask = RING_MASK;
	qp->sq.log2_elem_size = SLOT_LOG2;
	qp->sq.type = SROCE_QUEUE_SQ;
	qp->sq.user = true;
	qp->sq.cons = cons;
	if (sroce_swin_alloc(&qp->swin, RING_SLOTS, 1u << SLOT_LOG2,
			     GFP_KERNEL))
		return -ENOMEM;
	sroce_swin_reset(qp, base);
	return 0;
}

static void teardown(void)
{
	sroce_swin_free(&fx.qp.swin);
	free(fx.ring);
	fx.ring = NULL;
}

/* User space posts the next WQE of the script (librxe's post_send). */
static void post_one(void)
{
	const struct wqe_spec *ws = &fx.sc->wqes[fx.posted];
	struct rxe_send_wqe *wqe = ring_slot(fx.posted);
	bool local = ws->opcode == IB_WR_LOCAL_INV;

	memset(wqe, 0, 1u << SLOT_LOG2);
	wqe->wr.wr_id = fx.posted;
	wqe->wr.opcode = ws->opcode;
	wqe->wr.send_flags = ws->flags & ~FAILS;
	if (ws->flags & FAILS)
		wqe->wr.ex.invalidate_rkey = BAD_RKEY;
	wqe->dma.length = ws->len;
	wqe->dma.num_sge = local ? 0 : 1;
	wqe->dma.sge[0].length = ws->len;
	fx.posted++;
	fx.ring->producer_index = (fx.cons0 + fx.posted) & RING_MASK;
}

/* The fake requester: requester.c's decisions, without packets. */


/* sroce_req_check() for a kernel RC QP, the SGE way. */
static enum ib_wc_status fake_check(const struct rxe_send_wqe *wqe, u32 *len)
{
	u32 op = wqe->wr.opcode;
	u64 total = 0;
	u32 i;

	*len = 0;
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
		break;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (sroce_wr_is_local(op))
		return IB_WC_SUCCESS;
	for (i = 0; i < wqe->dma.num_sge; i++)
		total += wqe->dma.sge[i].length;
	if (sroce_wr_is_atomic(op)) {
		if (total < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		total = sizeof(u64);
	}
	*len = total;
	return IB_WC_SUCCESS;
}

/* sroce_req_fetch(): the packets a WQE takes, from its kind. */
static struct sroce_send_state *fake_fetch(void)
{
	struct sroce_qp *qp = &fx.qp;
	struct sroce_send_state *st;
	struct rxe_send_wqe *wqe;
	u32 npkts;

	if (qp->state != IB_QPS_RTS)
		return NULL;
	wqe = sroce_swin_fetch(qp, &st);
	if (!wqe)
		return NULL;
	st->status = fake_check(wqe, &st->length);
	st->rd_atomic = wqe->wr.opcode == IB_WR_RDMA_READ ||
			sroce_wr_is_atomic(wqe->wr.opcode);
	if (st->status != IB_WC_SUCCESS || sroce_wr_is_local(wqe->wr.opcode))
		npkts = 0;
	else if (sroce_wr_is_atomic(wqe->wr.opcode))
		npkts = 1;
	else
		npkts = max_t(u32, 1, (st->length + qp->mtu - 1) / qp->mtu);
	sroce_swin_admit(qp, st, npkts);
	return st;
}

/* sroce_req_may_send(). */
static bool fake_may_send(const struct rxe_send_wqe *wqe,
			  const struct sroce_send_state *st)
{
	const struct sroce_send_window *w = &fx.qp.swin;

	if (sroce_psn_diff(w->psn, w->acked_psn) >= SROCE_MAX_INFLIGHT)
		return false;
	if (w->offset)
		return !st->rd_atomic || st->done_bytes == w->offset;
	if ((wqe->wr.send_flags & IB_SEND_FENCE) && w->rd_atomic)
		return false;
	if (st->rd_atomic && w->rd_atomic >= MAX_RD_ATOMIC)
		return false;
	return true;
}

/*
 * sroce_req_step(): one packet, or a local operation. Returns false if
 * the WQE failed; *last once the position is past it.
 */
static bool fake_step(const struct rxe_send_wqe *wqe,
		      struct sroce_send_state *st, bool *last, int *first)
{
	struct sroce_qp *qp = &fx.qp;
	struct sroce_send_window *w = &qp->swin;
	u32 op = wqe->wr.opcode;
	u32 chunk = SROCE_MAX_INFLIGHT * qp->mtu;
	u32 len;

	*last = true;
	if (sroce_wr_is_local(op)) {
		if (wqe->wr.ex.invalidate_rkey == BAD_RKEY)
			return false;
		fx.local_runs++;
		return true;
	}
	if (*first == NO)
		*first = rel_psn(w->psn);
	if (op == IB_WR_RDMA_READ) {
		/* The rest of the chunk, or of the run asked for again. */
		len = min(st->length - w->offset, chunk - w->offset % chunk);
		if (w->one_shot)
			len = min(len, w->rereq_pkts * qp->mtu);
		sroce_swin_sent(qp, max_t(u32, 1,
					  (len + qp->mtu - 1) / qp->mtu), len);
	} else if (sroce_wr_is_atomic(op)) {
		sroce_swin_sent(qp, 1, st->length - w->offset);
	} else {
		len = min(st->length - w->offset, qp->mtu);
		sroce_swin_sent(qp, 1, len);
	}
	*last = w->offset == st->length;
	return true;
}

/* sroce_requester_run() with a budget of packets. */
static int fake_send(int budget)
{
	struct sroce_qp *qp = &fx.qp;
	struct sroce_send_window *w = &qp->swin;
	int first = NO;

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return NO;
	for (;;) {
		struct sroce_send_state *st;
		struct rxe_send_wqe *wqe;
		bool last;

		if (w->idx == w->fetch_idx && !fake_fetch())
			break;
		if (budget <= 0)
			break;
		st = sroce_swin_state(w, w->idx);
		wqe = sroce_swin_wqe(w, w->idx);
		if (st->status != IB_WC_SUCCESS) {
			sroce_swin_finish(st, st->status);
			break;
		}
		if (st->done && sroce_wr_is_local(wqe->wr.opcode)) {
			sroce_swin_pass(qp, st);
			continue;
		}
		if (!fake_may_send(wqe, st))
			break;
		if (!fake_step(wqe, st, &last, &first)) {
			sroce_swin_finish(st, IB_WC_LOC_PROT_ERR);
			break;
		}
		if (last) {
			sroce_swin_pass(qp, st);
			if (st->first_psn == sroce_psn_add(st->last_psn, 1))
				sroce_swin_finish(st, IB_WC_SUCCESS);
		}
		budget--;
		sroce_swin_resend_done(qp);
	}
	return first;
}

/*
 * In-order responses from @psn (read_gap.c's sroce_rgap_response() and
 * completer.c's atomic path, the data already placed): returns the WQE
 * of the last one taken, or NO where one is not the next expected.
 */
static int fake_responses(u32 psn, u32 n)
{
	struct sroce_qp *qp = &fx.qp;
	int ret = NO;

	do {
		struct sroce_send_state *st;
		u32 idx, off;

		st = sroce_swin_response(qp, psn, &idx);
		if (!st)
			return NO;
		off = sroce_psn_diff(psn, st->first_psn) * qp->mtu;
		if (sroce_swin_wqe(&qp->swin, idx)->wr.opcode ==
		    IB_WR_RDMA_READ) {
			if (off != st->done_bytes)
				return NO;
			st->done_bytes += min(st->length - off, qp->mtu);
			if (st->done_bytes == st->length)
				sroce_swin_finish(st, IB_WC_SUCCESS);
		} else {
			if (psn != st->first_psn)
				return NO;
			sroce_swin_finish(st, IB_WC_SUCCESS);
		}
		sroce_swin_placed(qp, idx, st, psn);
		ret = rel_idx(idx);
		psn = sroce_psn_add(psn, 1);
	} while (--n > 0);
	return ret;
}

static int do_step(const struct step *s, bool *retire)
{
	struct sroce_qp *qp = &fx.qp;
	struct sroce_send_state *st;
	u32 psn, idx;
	int ret = 0;

	*retire = true;
	switch (s->op) {
	case POST:
		for (; ret < (int)s->a && fx.posted < fx.sc->nwqes; ret++)
			post_one();
		*retire = false;
		break;
	case SEND:
		ret = fake_send(s->a);
		break;
	case ACK:
		ret = sroce_swin_ack(qp, abs_psn(s->a));
		break;
	case RELEASE:
		ret = sroce_swin_release_ack(qp);
		break;
	case RESP:
		ret = fake_responses(abs_psn(s->a), s->b ? s->b : 1);
		break;
	case AHEAD:
		st = sroce_swin_read_at(qp, abs_psn(s->a), &idx);
		ret = st ? (int)rel_idx(idx) : NO;
		break;
	case RESEND:
		ret = sroce_swin_resend_one(qp, abs_psn(s->a));
		break;
	case REREQ:
		ret = sroce_swin_rerequest(qp, abs_psn(s->a), s->b);
		break;
	case SEEK:
		sroce_swin_seek(qp, abs_psn(s->a));
		break;
	case TIMEOUT:
		st = sroce_swin_oldest(qp);
		ret = NO;
		if (st) {
			psn = sroce_swin_resume_psn(qp, st);
			sroce_swin_seek(qp, psn);
			ret = rel_psn(psn);
		}
		break;
	case RESPONSE:
		st = sroce_swin_response(qp, abs_psn(s->a), &idx);
		ret = st ? (int)rel_idx(idx) : NO;
		break;
	case PROBE:
		ret = sroce_swin_probe_psn(qp, &psn) ? (int)rel_psn(psn) : NO;
		break;
	case FAIL:
		st = sroce_swin_oldest(qp);
		if (st)
			sroce_swin_finish(st, s->a);
		ret = !!st;
		break;
	case FLUSH:
		sroce_swin_flush(qp);
		*retire = false;
		break;
	case DISCARD:
		sroce_swin_discard(qp);
		*retire = false;
		break;
	case CQ_ROOM:
		fx.cq.room = s->a;
		*retire = false;
		break;
	case SCRIBBLE:
		ring_slot(s->a)->wr.wr_id = SCRIBBLED + s->a;
		*retire = false;
		break;
	case PROD:
		fx.ring->producer_index = fx.cons0 + s->a;
		*retire = false;
		break;
	case COUNT:
		ret = s->a == LOCAL_RUNS ? (int)fx.local_runs :
		      s->a == OVERRUNS ?
		      (int)fx.dev.count[SROCE_CNT_SQ_OVERRUN] :
		      s->a == FATAL ? (int)kshim_log.fatal :
		      (int)kshim_log.wc_errors;
		*retire = false;
		break;
	case STOP:
		break;
	}
	return ret;
}

static char wqe_char(const struct sroce_send_state *st)
{
	if (st->done)
		return st->status == IB_WC_SUCCESS ? 'D' : 'E';
	return st->status == IB_WC_SUCCESS ? '.' : 'x';
}

/* The documented invariants (send_window.h), after any step. */
static void check_invariants(int n)
{
	const struct sroce_send_window *w = &fx.qp.swin;
	u32 cons = sroce_queue_consumer_index(&fx.qp.sq);
	u32 i, rd = 0;

	if (sroce_psn_after(w->acked_psn, w->sent_end) ||
	    sroce_psn_after(w->psn, w->sent_end) ||
	    sroce_psn_after(w->sent_end, w->next_psn))
		UNIT_FAIL("step %d: PSNs out of order: acked %u psn %u "
			  "sent_end %u next %u", n, rel_psn(w->acked_psn),
			  rel_psn(w->psn), rel_psn(w->sent_end),
			  rel_psn(w->next_psn));
	if (((w->idx - cons) & RING_MASK) > ((w->fetch_idx - cons) & RING_MASK))
		UNIT_FAIL("step %d: position %u outside the fetched run",
			  n, rel_idx(w->idx));
	for (i = cons; i != w->idx; i = (i + 1) & RING_MASK)
		rd += sroce_swin_state(w, i)->rd_atomic;
	if (w->rd_atomic != rd)
		UNIT_FAIL("step %d: rd_atomic %u, %u reads/atomics passed",
			  n, w->rd_atomic, rd);
	if (sroce_swin_asking(w) != (w->one_shot && w->rereq_pkts))
		UNIT_FAIL("step %d: sroce_swin_asking() disagrees", n);
}

static void check_step(int n, const struct step *s, int ret)
{
	const struct sroce_send_window *w = &fx.qp.swin;
	u32 cons = sroce_queue_consumer_index(&fx.qp.sq);
	char sq[RING_SLOTS + 2], *p = sq;
	u32 i;

	if (s->ret != ANY && ret != s->ret)
		UNIT_FAIL("step %d: returned %d, want %d", n, ret, s->ret);
	CALL(check_invariants(n));
	if (rel_idx(w->idx) != s->idx || w->offset != s->off ||
	    rel_psn(w->psn) != s->psn)
		UNIT_FAIL("step %d: position (%u, %u, psn %u), want "
			  "(%u, %u, psn %u)", n, rel_idx(w->idx), w->offset,
			  rel_psn(w->psn), s->idx, s->off, s->psn);
	if (rel_psn(w->acked_psn) != s->acked ||
	    rel_psn(w->sent_end) != s->end)
		UNIT_FAIL("step %d: acked_psn %u sent_end %u, want %u %u",
			  n, rel_psn(w->acked_psn), rel_psn(w->sent_end),
			  s->acked, s->end);
	if (s->resume == (u32)NO ? w->one_shot :
	    !w->one_shot || rel_psn(w->resume_psn) != s->resume ||
	    w->rereq_pkts != s->rereq)
		UNIT_FAIL("step %d: one_shot %d resume %u rereq %u, want "
			  "resume %d rereq %u", n, w->one_shot,
			  rel_psn(w->resume_psn), w->rereq_pkts,
			  (int)s->resume, s->rereq);
	if (s->held == (u32)NO ? w->ack_held :
	    !w->ack_held || rel_psn(w->held_ack) != s->held)
		UNIT_FAIL("step %d: ack_held %d held_ack %u, want %d", n,
			  w->ack_held, rel_psn(w->held_ack), (int)s->held);
	if (fx.qp.state == IB_QPS_ERR)
		*p++ = '!';
	for (i = cons; i != w->fetch_idx; i = (i + 1) & RING_MASK)
		*p++ = wqe_char(sroce_swin_state(w, i));
	*p = 0;
	if (strcmp(sq, s->sq))
		UNIT_FAIL("step %d: send queue \"%s\", want \"%s\"", n, sq,
			  s->sq);
	if (fx.cq.n != s->ncqe)
		UNIT_FAIL("step %d: %u completions, want %u", n, fx.cq.n,
			  s->ncqe);
}

static void check_cqes(void)
{
	const struct script *sc = fx.sc;
	unsigned int i;

	CHECK_EQ(fx.cq.n, sc->ncqes);
	for (i = 0; i < sc->ncqes; i++) {
		const struct ib_wc *wc = &fx.cq.wc[i];
		const struct cqe_spec *c = &sc->cqes[i];

		if (wc->wr_id != c->wr_id || wc->status != c->status ||
		    wc->opcode != c->opcode || wc->byte_len != c->byte_len ||
		    wc->qp != &fx.qp.ib_qp)
			UNIT_FAIL("completion %u: wr_id %#llx status %d "
				  "opcode %d len %u, want %#llx %d %d %u", i,
				  (unsigned long long)wc->wr_id, wc->status,
				  wc->opcode, wc->byte_len,
				  (unsigned long long)c->wr_id, c->status,
				  c->opcode, c->byte_len);
	}
}

static void run_steps(void)
{
	const struct step *s;
	int n;

	for (n = 0, s = fx.sc->steps; s->op != STOP; s++, n++) {
		bool retire;
		int ret = do_step(s, &retire);

		/* Every pass of the send engine ends so. */
		if (retire)
			sroce_swin_retire(&fx.qp);
		CALL(check_step(n, s, ret));
	}
	CALL(check_cqes());
}

static void run_script(const struct script *sc)
{
	unsigned int i;

	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		if (setup(sc, configs[i].base, configs[i].cons)) {
			teardown();
			UNIT_FAIL("out of memory");
		}
		run_steps();
		teardown();
		if (unit_failed) {
			size_t len = strlen(unit_reason);

			snprintf(unit_reason + len, sizeof(unit_reason) - len,
				 " (first PSN %#x, slot %u)", configs[i].base,
				 configs[i].cons);
			return;
		}
	}
}

/* Columns of the scripts below. */
/*  op       a  b  ret  idx off psn ack end  resume rq held  sq  ncqe */

/*
 * SENDs and WRITEs acknowledged in order: only signalled ones complete;
 * an ACK for nothing sent, or for a PSN already acknowledged, is outside
 * the window and changes nothing. After going back N, an ACK moves the
 * position on; the ACK timeout resends from the first PSN not acked.
 */
static void in_order_acks(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 100, SIG },			/* 0 */
		{ IB_WR_RDMA_WRITE, 600, 0 },			/* 1-3 */
		{ IB_WR_SEND, 256, SIG },			/* 4 */
		{ IB_WR_RDMA_WRITE_WITH_IMM, 512, SIG },	/* 5-6 */
	};
	static const struct step s[] = {
		{ POST, 4, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ ACK, 0, 0, 0, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 2, 0, 0, 1, 256, 2, 0, 2, NO, 0, NO, "..", 0 },
		{ SEND, 10, 0, 2, 4, 0, 7, 0, 7, NO, 0, NO, "....", 0 },
		/* The newest packet is data: a probe may send it again. */
		{ PROBE, 0, 0, 6, 4, 0, 7, 0, 7, NO, 0, NO, "....", 0 },
		/* Back N to 1; an ACK past the position moves it on. */
		{ SEEK, 1, 0, ANY, 1, 0, 1, 0, 7, NO, 0, NO, "....", 0 },
		{ ACK, 2, 0, 1, 1, 512, 3, 3, 7, NO, 0, NO, "...", 1 },
		/* A timeout resends the oldest from its first unacked PSN. */
		{ SEND, 10, 0, 3, 4, 0, 7, 3, 7, NO, 0, NO, "...", 1 },
		{ TIMEOUT, 0, 0, 3, 1, 512, 3, 3, 7, NO, 0, NO, "...", 1 },
		{ ACK, 2, 0, 0, 1, 512, 3, 3, 7, NO, 0, NO, "...", 1 },
		{ ACK, 7, 0, 0, 1, 512, 3, 3, 7, NO, 0, NO, "...", 1 },
		{ ACK, 0xfffff0, 0, 0, 1, 512, 3, 3, 7, NO, 0, NO, "...", 1 },
		{ ACK, 5, 0, 1, 3, 256, 6, 6, 7, NO, 0, NO, ".", 2 },
		{ ACK, 6, 0, 1, 4, 0, 7, 7, 7, NO, 0, NO, "", 3 },
		{ PROBE, 0, 0, NO, 4, 0, 7, 7, 7, NO, 0, NO, "", 3 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_SEND, 100 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 256 },
		{ 3, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/* sig_all: every WQE completes, signalled or not. */
static void in_order_sig_all(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 100, SIG },			/* 0 */
		{ IB_WR_RDMA_WRITE, 600, 0 },			/* 1-3 */
		{ IB_WR_SEND, 256, 0 },				/* 4 */
		{ IB_WR_RDMA_WRITE_WITH_IMM, 512, 0 },		/* 5-6 */
	};
	static const struct step s[] = {
		{ POST, 4, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 4, 0, 7, 0, 7, NO, 0, NO, "....", 0 },
		{ ACK, 3, 0, 1, 4, 0, 7, 4, 7, NO, 0, NO, "..", 2 },
		{ ACK, 6, 0, 1, 4, 0, 7, 7, 7, NO, 0, NO, "", 4 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_SEND, 100 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 600 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 256 },
		{ 3, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
	};
	static const struct script sc = {
		.wqes = w, .nwqes = 4, .steps = s, .cqes = c, .ncqes = 4,
		.sig_all = true,
	};

	run_script(&sc);
}

/*
 * A sequence NAK's packet resent alone: once out, the position returns
 * to where it was. Only for data, only from the newest PSN sent; an ACK
 * past a resend not sent yet makes it unnecessary.
 */
static void resend_one(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_WRITE, 768, SIG },			/* 0-2 */
		{ IB_WR_SEND, 256, 0 },				/* 3 */
		{ IB_WR_RDMA_WRITE, 512, SIG },			/* 4-5 */
		{ IB_WR_RDMA_READ, 256, SIG },			/* 6 */
		{ IB_WR_ATOMIC_FETCH_AND_ADD, 8, SIG },		/* 7 */
	};
	static const struct step s[] = {
		{ POST, 5, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 20, 0, 0, 5, 0, 8, 0, 8, NO, 0, NO, ".....", 0 },
		/* A NAK for 1 acknowledges 0 first. */
		{ ACK, 0, 0, 1, 5, 0, 8, 1, 8, NO, 0, NO, ".....", 0 },
		{ RESEND, 1, 0, 1, 0, 256, 1, 1, 8, 8, 0, NO, ".....", 0 },
		/* Not from the newest PSN sent: no second one. */
		{ RESEND, 2, 0, 0, 0, 256, 1, 1, 8, 8, 0, NO, ".....", 0 },
		{ SEND, 1, 0, 1, 5, 0, 8, 1, 8, NO, 0, NO, ".....", 0 },
		/* A read, an atomic, a PSN acknowledged: go back N. */
		{ RESEND, 6, 0, 0, 5, 0, 8, 1, 8, NO, 0, NO, ".....", 0 },
		{ RESEND, 7, 0, 0, 5, 0, 8, 1, 8, NO, 0, NO, ".....", 0 },
		{ RESEND, 0, 0, 0, 5, 0, 8, 1, 8, NO, 0, NO, ".....", 0 },
		{ RESEND, 3, 0, 1, 1, 0, 3, 1, 8, 8, 0, NO, ".....", 0 },
		/* Up to the resend: it still goes. */
		{ ACK, 2, 0, 1, 1, 0, 3, 3, 8, 8, 0, NO, "....", 1 },
		/* Past it: it does not. */
		{ ACK, 4, 0, 1, 5, 0, 8, 5, 8, NO, 0, NO, "...", 1 },
		{ ACK, 5, 0, 1, 5, 0, 8, 6, 8, NO, 0, NO, "..", 2 },
		{ RESP, 6, 0, 3, 5, 0, 8, 7, 8, NO, 0, NO, ".", 3 },
		{ RESP, 7, 0, 4, 5, 0, 8, 8, 8, NO, 0, NO, "", 4 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 768 },
		{ 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
		{ 3, IB_WC_SUCCESS, IB_WC_RDMA_READ, 256 },
		{ 4, IB_WC_SUCCESS, IB_WC_FETCH_ADD, 8 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * Going back N: into the middle of a WRITE (offset from the PSN), to an
 * atomic, over a local operation already run (not run again), and not
 * past a fenced one that has not run.
 */
static void go_back_n(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_WRITE, 1024, SIG },		/* 0-3 */
		{ IB_WR_LOCAL_INV, 0, SIG },			/* at 4 */
		{ IB_WR_RDMA_WRITE, 512, 0 },			/* 4-5 */
		{ IB_WR_ATOMIC_CMP_AND_SWP, 8, SIG },		/* 6 */
		{ IB_WR_RDMA_READ, 512, SIG },			/* 7-8 */
		{ IB_WR_LOCAL_INV, 0, SIG | IB_SEND_FENCE },	/* at 9 */
		{ IB_WR_SEND, 100, SIG },			/* 9 */
	};
	static const struct step s[] = {
		{ POST, 7, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		/* The fence holds 5 until the atomic and the read are done. */
		{ SEND, 20, 0, 0, 5, 0, 9, 0, 9, NO, 0, NO, ".D....", 0 },
		{ COUNT, LOCAL_RUNS, 0, 1, 5, 0, 9, 0, 9, NO, 0, NO,
		  ".D....", 0 },
		{ SEEK, 2, 0, ANY, 0, 512, 2, 0, 9, NO, 0, NO, ".D....", 0 },
		{ SEND, 3, 0, 2, 2, 256, 5, 0, 9, NO, 0, NO, ".D....", 0 },
		{ COUNT, LOCAL_RUNS, 0, 1, 2, 256, 5, 0, 9, NO, 0, NO,
		  ".D....", 0 },
		{ SEEK, 6, 0, ANY, 3, 0, 6, 0, 9, NO, 0, NO, ".D....", 0 },
		/* Done at the position: sending goes on after it. */
		{ RESP, 6, 0, 3, 4, 0, 7, 7, 9, NO, 0, NO, "..", 3 },
		/* A response at the rewound position is not asked again. */
		{ RESP, 7, 0, 4, 4, 256, 8, 8, 9, NO, 0, NO, "..", 3 },
		{ SEND, 5, 0, 8, 5, 0, 9, 8, 9, NO, 0, NO, "..", 3 },
		{ SEEK, 9, 0, ANY, 5, 0, 9, 8, 9, NO, 0, NO, "..", 3 },
		{ RESP, 8, 0, 4, 5, 0, 9, 9, 9, NO, 0, NO, ".", 4 },
		{ SEND, 5, 0, 9, 7, 0, 10, 9, 10, NO, 0, NO, ".", 5 },
		{ COUNT, LOCAL_RUNS, 0, 2, 7, 0, 10, 9, 10, NO, 0, NO, ".", 5 },
		{ SEEK, 9, 0, ANY, 6, 0, 9, 9, 10, NO, 0, NO, ".", 5 },
		{ ACK, 9, 0, 1, 7, 0, 10, 10, 10, NO, 0, NO, "", 6 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 1024 },
		{ 1, IB_WC_SUCCESS, IB_WC_LOCAL_INV, 0 },
		{ 3, IB_WC_SUCCESS, IB_WC_COMP_SWAP, 8 },
		{ 4, IB_WC_SUCCESS, IB_WC_RDMA_READ, 512 },
		{ 5, IB_WC_SUCCESS, IB_WC_LOCAL_INV, 0 },
		{ 6, IB_WC_SUCCESS, IB_WC_SEND, 100 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * An ACK past a read whose last responses are missing is held: acked_psn
 * stops at the hole, the position stays. Repeated or older ACKs are not
 * news. The run asked for again shrinks as its responses come, and ends
 * with the read; then the held ACK completes the WRITE after it.
 */
static void read_held_ack(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 1024, SIG },			/* 0-3 */
		{ IB_WR_RDMA_WRITE, 256, SIG },			/* 4 */
		{ IB_WR_SEND, 256, 0 },				/* 5 */
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 6, 0, 6, NO, 0, NO, "...", 0 },
		{ RESP, 0, 2, 0, 3, 0, 6, 2, 6, NO, 0, NO, "...", 0 },
		{ ACK, 4, 0, 1, 3, 0, 6, 2, 6, NO, 0, 5, "...", 0 },
		/* A newer ACK adds to it; repeated or older, no news. */
		{ ACK, 5, 0, 1, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ ACK, 5, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ ACK, 4, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		/* Within the read, with an ACK held: it only adds. */
		{ ACK, 3, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ RELEASE, 0, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ AHEAD, 3, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ REREQ, 2, 0, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ REREQ, 6, 1, 0, 3, 0, 6, 2, 6, NO, 0, 6, "...", 0 },
		{ REREQ, 2, 2, 1, 0, 512, 2, 2, 6, 6, 2, 6, "...", 0 },
		{ REREQ, 3, 1, 0, 0, 512, 2, 2, 6, 6, 2, 6, "...", 0 },
		/* A second ACK while the request waits: still held. */
		{ ACK, 5, 0, 0, 0, 512, 2, 2, 6, 6, 2, 6, "...", 0 },
		/* What came meanwhile is not asked for... */
		{ RESP, 2, 0, 0, 0, 768, 3, 3, 6, 6, 1, 6, "...", 0 },
		/* ...and once the read is done, nothing is. */
		{ RESP, 3, 0, 0, 3, 0, 6, 4, 6, NO, 0, 6, "..", 1 },
		/* Not a read's PSN any more: the position stays. */
		{ REREQ, 3, 1, 0, 3, 0, 6, 4, 6, NO, 0, 6, "..", 1 },
		{ RELEASE, 0, 0, 1, 3, 0, 6, 6, 6, NO, 0, NO, "", 2 },
		{ RELEASE, 0, 0, 0, 3, 0, 6, 6, 6, NO, 0, NO, "", 2 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 1024 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A held ACK applies as far as the next read still missing responses,
 * and is held again there.
 */
static void release_to_next_read(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 512, SIG },			/* 0-1 */
		{ IB_WR_RDMA_WRITE, 256, SIG },			/* 2 */
		{ IB_WR_RDMA_READ, 512, SIG },			/* 3-4 */
		{ IB_WR_SEND, 256, SIG },			/* 5 */
	};
	static const struct step s[] = {
		{ POST, 4, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 4, 0, 6, 0, 6, NO, 0, NO, "....", 0 },
		{ RESP, 0, 0, 0, 4, 0, 6, 1, 6, NO, 0, NO, "....", 0 },
		{ ACK, 5, 0, 1, 4, 0, 6, 1, 6, NO, 0, 6, "....", 0 },
		{ AHEAD, 3, 0, 2, 4, 0, 6, 1, 6, NO, 0, 6, "....", 0 },
		{ REREQ, 1, 1, 1, 0, 256, 1, 1, 6, 6, 1, 6, "....", 0 },
		{ SEND, 1, 0, 1, 4, 0, 6, 1, 6, NO, 0, 6, "....", 0 },
		{ RESP, 1, 0, 0, 4, 0, 6, 2, 6, NO, 0, 6, "...", 1 },
		{ RELEASE, 0, 0, 1, 4, 0, 6, 3, 6, NO, 0, 6, "..", 2 },
		{ RESP, 3, 0, 2, 4, 0, 6, 4, 6, NO, 0, 6, "..", 2 },
		{ REREQ, 4, 1, 1, 2, 256, 4, 4, 6, 6, 1, 6, "..", 2 },
		{ SEND, 1, 0, 4, 4, 0, 6, 4, 6, NO, 0, 6, "..", 2 },
		{ RESP, 4, 0, 2, 4, 0, 6, 5, 6, NO, 0, 6, ".", 3 },
		{ RELEASE, 0, 0, 1, 4, 0, 6, 6, 6, NO, 0, NO, "", 4 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 512 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 256 },
		{ 2, IB_WC_SUCCESS, IB_WC_RDMA_READ, 512 },
		{ 3, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * The ACK timeout goes back N to the read an ACK is held behind: the
 * held ACK stays, and still completes the SEND sent again after it.
 */
static void timeout_keeps_held(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 512, SIG },			/* 0-1 */
		{ IB_WR_SEND, 256, SIG },			/* 2 */
	};
	static const struct step s[] = {
		{ POST, 2, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 2, 0, 3, 0, 3, NO, 0, NO, "..", 0 },
		{ RESP, 0, 0, 0, 2, 0, 3, 1, 3, NO, 0, NO, "..", 0 },
		{ ACK, 2, 0, 1, 2, 0, 3, 1, 3, NO, 0, 3, "..", 0 },
		{ TIMEOUT, 0, 0, 1, 0, 256, 1, 1, 3, NO, 0, 3, "..", 0 },
		{ RELEASE, 0, 0, 0, 0, 256, 1, 1, 3, NO, 0, 3, "..", 0 },
		{ SEND, 10, 0, 1, 2, 0, 3, 1, 3, NO, 0, 3, "..", 0 },
		{ RESP, 1, 0, 0, 2, 0, 3, 2, 3, NO, 0, 3, ".", 1 },
		{ RELEASE, 0, 0, 1, 2, 0, 3, 3, 3, NO, 0, NO, "", 2 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 512 },
		{ 1, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * Responses ahead of a lost one: the run is asked for again; an ACK
 * past the read while that request waits to go out is held, not a go
 * back N (30bf522). The request goes out shortened to the run, and
 * the position returns.
 */
static void read_gap_ask(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 1536, SIG },			/* 0-5 */
		{ IB_WR_RDMA_WRITE, 256, SIG },			/* 6 */
		{ IB_WR_SEND, 256, SIG },			/* 7 */
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 8, 0, 8, NO, 0, NO, "...", 0 },
		{ RESP, 0, 0, 0, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ RESP, 2, 0, NO, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ RESPONSE, 5, 0, 0, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ RESPONSE, 6, 0, NO, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ RESPONSE, 8, 0, NO, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ AHEAD, 2, 0, 0, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ AHEAD, 4, 0, 0, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ AHEAD, 6, 0, NO, 3, 0, 8, 1, 8, NO, 0, NO, "...", 0 },
		{ REREQ, 1, 1, 1, 0, 256, 1, 1, 8, 8, 1, NO, "...", 0 },
		{ ACK, 7, 0, 1, 0, 256, 1, 1, 8, 8, 1, 8, "...", 0 },
		{ ACK, 7, 0, 0, 0, 256, 1, 1, 8, 8, 1, 8, "...", 0 },
		{ SEND, 1, 0, 1, 3, 0, 8, 1, 8, NO, 0, 8, "...", 0 },
		/* 1 came, then 2-4 that were ahead are counted. */
		{ RESP, 1, 4, 0, 3, 0, 8, 5, 8, NO, 0, 8, "...", 0 },
		{ RELEASE, 0, 0, 0, 3, 0, 8, 5, 8, NO, 0, 8, "...", 0 },
		/* The read's last response is asked for too. */
		{ REREQ, 5, 1, 1, 0, 1280, 5, 5, 8, 8, 1, 8, "...", 0 },
		{ SEND, 5, 0, 5, 3, 0, 8, 5, 8, NO, 0, 8, "...", 0 },
		{ RESP, 5, 0, 0, 3, 0, 8, 6, 8, NO, 0, 8, "..", 1 },
		{ RELEASE, 0, 0, 1, 3, 0, 8, 8, 8, NO, 0, NO, "", 3 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 1536 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 256 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * The first response of a read lost, later ones ahead: asking for it
 * takes acked_psn to it. It comes late, before the request went out:
 * the run is there, nothing is asked for, though the read is not done.
 */
static void read_first_lost(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_WRITE, 256, SIG },			/* 0 */
		{ IB_WR_RDMA_READ, 1024, SIG },			/* 1-4 */
		{ IB_WR_SEND, 256, SIG },			/* 5 */
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 6, 0, 6, NO, 0, NO, "...", 0 },
		{ AHEAD, 2, 0, 1, 3, 0, 6, 0, 6, NO, 0, NO, "...", 0 },
		{ AHEAD, 3, 0, 1, 3, 0, 6, 0, 6, NO, 0, NO, "...", 0 },
		{ REREQ, 1, 1, 1, 1, 0, 1, 1, 6, 6, 1, NO, "...", 0 },
		{ RESP, 1, 0, 1, 3, 0, 6, 2, 6, NO, 0, NO, "..", 1 },
		{ RESP, 2, 3, 1, 3, 0, 6, 5, 6, NO, 0, NO, ".", 2 },
		{ ACK, 5, 0, 1, 3, 0, 6, 6, 6, NO, 0, NO, "", 3 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 256 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_READ, 1024 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A read response implies the ACK of the WRITE a resend alone was about
 * to start in: it retires at the position, and the resend has nothing
 * left to send.
 */
static void done_at_position(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_WRITE, 512, SIG },			/* 0-1 */
		{ IB_WR_RDMA_READ, 256, SIG },			/* 2 */
		{ IB_WR_RDMA_WRITE, 512, SIG },			/* 3-4 */
		{ IB_WR_RDMA_READ, 256, SIG },			/* 5 */
	};
	static const struct step s[] = {
		{ POST, 2, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 2, 0, 3, 0, 3, NO, 0, NO, "..", 0 },
		{ ACK, 0, 0, 1, 2, 0, 3, 1, 3, NO, 0, NO, "..", 0 },
		{ RESEND, 1, 0, 1, 0, 256, 1, 1, 3, 3, 0, NO, "..", 0 },
		{ RESP, 2, 0, 1, 2, 0, 3, 3, 3, NO, 0, NO, "", 2 },
		/* Gone back N: the next WQE starts at its own first PSN. */
		{ POST, 2, 0, ANY, 2, 0, 3, 3, 3, NO, 0, NO, "", 2 },
		{ SEND, 10, 0, 3, 4, 0, 6, 3, 6, NO, 0, NO, "..", 2 },
		{ SEEK, 3, 0, ANY, 2, 0, 3, 3, 6, NO, 0, NO, "..", 2 },
		{ RESP, 5, 0, 3, 4, 0, 6, 6, 6, NO, 0, NO, "", 4 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_READ, 256 },
		{ 2, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
		{ 3, IB_WC_SUCCESS, IB_WC_RDMA_READ, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A NAK's go back N past a read moves the position forward over a
 * request for the read's run that waits to go out: sroce_swin_asking()
 * turns false, so that read_gap.c asks again (3308e7a). The held ACK
 * stays.
 */
static void nak_drops_rereq(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 1024, SIG },			/* 0-3 */
		{ IB_WR_RDMA_WRITE, 512, SIG },			/* 4-5 */
		{ IB_WR_SEND, 256, SIG },			/* 6 */
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 7, 0, 7, NO, 0, NO, "...", 0 },
		{ RESP, 0, 2, 0, 3, 0, 7, 2, 7, NO, 0, NO, "...", 0 },
		{ AHEAD, 3, 0, 0, 3, 0, 7, 2, 7, NO, 0, NO, "...", 0 },
		{ REREQ, 2, 1, 1, 0, 512, 2, 2, 7, 7, 1, NO, "...", 0 },
		/* A sequence NAK for 5: its ACK for 4 first, held... */
		{ ACK, 4, 0, 1, 0, 512, 2, 2, 7, 7, 1, 5, "...", 0 },
		/* ...then back N to 5, not possible alone from here. */
		{ SEEK, 5, 0, ANY, 1, 256, 5, 2, 7, NO, 0, 5, "...", 0 },
		{ REREQ, 2, 1, 1, 0, 512, 2, 2, 7, 5, 1, 5, "...", 0 },
		{ REREQ, 1, 1, 0, 0, 512, 2, 2, 7, 5, 1, 5, "...", 0 },
		{ SEND, 1, 0, 2, 1, 256, 5, 2, 7, NO, 0, 5, "...", 0 },
		{ SEND, 5, 0, 5, 3, 0, 7, 2, 7, NO, 0, 5, "...", 0 },
		{ RESP, 2, 2, 0, 3, 0, 7, 4, 7, NO, 0, 5, "..", 1 },
		{ RELEASE, 0, 0, 1, 3, 0, 7, 5, 7, NO, 0, NO, "..", 1 },
		{ ACK, 6, 0, 1, 3, 0, 7, 7, 7, NO, 0, NO, "", 3 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 1024 },
		{ 1, IB_WC_SUCCESS, IB_WC_RDMA_WRITE, 512 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * Where an ACK past a read or atomic cannot be held, the window goes
 * back N to where its data stopped: an ACK within a read with none held
 * (30bf522), a one-packet resend waiting, a position not past the read,
 * an atomic.
 */
static void read_go_back(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 1024, SIG },			/* 0-3 */
		{ IB_WR_SEND, 256, SIG },			/* 4 */
		{ IB_WR_SEND, 512, SIG },			/* 5-6 */
		{ IB_WR_RDMA_READ, 512, SIG },			/* 7-8 */
		{ IB_WR_SEND, 256, SIG },			/* 9 */
		{ IB_WR_ATOMIC_CMP_AND_SWP, 8, SIG },		/* 10 */
		{ IB_WR_SEND, 256, SIG },			/* 11 */
	};
	static const struct step s[] = {
		{ POST, 2, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 2, 0, 5, 0, 5, NO, 0, NO, "..", 0 },
		{ RESP, 0, 0, 0, 2, 0, 5, 1, 5, NO, 0, NO, "..", 0 },
		{ ACK, 2, 0, 1, 0, 256, 1, 1, 5, NO, 0, NO, "..", 0 },
		{ SEND, 10, 0, 1, 2, 0, 5, 1, 5, NO, 0, NO, "..", 0 },
		{ RESP, 1, 3, 0, 2, 0, 5, 4, 5, NO, 0, NO, ".", 1 },
		{ ACK, 4, 0, 1, 2, 0, 5, 5, 5, NO, 0, NO, "", 2 },
		/* A one-packet resend waits: not held. */
		{ POST, 3, 0, ANY, 2, 0, 5, 5, 5, NO, 0, NO, "", 2 },
		{ SEND, 10, 0, 5, 5, 0, 10, 5, 10, NO, 0, NO, "...", 2 },
		{ RESEND, 9, 0, 1, 4, 0, 9, 5, 10, 10, 0, NO, "...", 2 },
		{ ACK, 9, 0, 1, 3, 0, 7, 7, 10, NO, 0, NO, "..", 3 },
		{ SEND, 10, 0, 7, 5, 0, 10, 7, 10, NO, 0, NO, "..", 3 },
		/* The position at the read: not held either. */
		{ SEEK, 7, 0, ANY, 3, 0, 7, 7, 10, NO, 0, NO, "..", 3 },
		{ ACK, 9, 0, 1, 3, 0, 7, 7, 10, NO, 0, NO, "..", 3 },
		{ RESP, 7, 2, 3, 4, 0, 9, 9, 10, NO, 0, NO, ".", 4 },
		{ ACK, 9, 0, 1, 5, 0, 10, 10, 10, NO, 0, NO, "", 5 },
		/* An atomic is never held. */
		{ POST, 2, 0, ANY, 5, 0, 10, 10, 10, NO, 0, NO, "", 5 },
		{ SEND, 10, 0, 10, 7, 0, 12, 10, 12, NO, 0, NO, "..", 5 },
		{ ACK, 11, 0, 1, 5, 0, 10, 10, 12, NO, 0, NO, "..", 5 },
		{ SEND, 10, 0, 10, 7, 0, 12, 10, 12, NO, 0, NO, "..", 5 },
		{ RESP, 10, 0, 5, 7, 0, 12, 11, 12, NO, 0, NO, ".", 6 },
		{ ACK, 11, 0, 1, 7, 0, 12, 12, 12, NO, 0, NO, "", 7 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 1024 },
		{ 1, IB_WC_SUCCESS, IB_WC_SEND, 256 },
		{ 2, IB_WC_SUCCESS, IB_WC_SEND, 512 },
		{ 3, IB_WC_SUCCESS, IB_WC_RDMA_READ, 512 },
		{ 4, IB_WC_SUCCESS, IB_WC_SEND, 256 },
		{ 5, IB_WC_SUCCESS, IB_WC_COMP_SWAP, 8 },
		{ 6, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A read of more than SROCE_MAX_INFLIGHT packets goes in chunks, each
 * once the last has come; asked again from inside a chunk, only the
 * rest of that chunk, and a run only as long as it is.
 */
static void read_chunks(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_RDMA_READ, 130 * MTU, SIG },		/* 0-129 */
		{ IB_WR_SEND, 256, SIG },			/* 130 */
	};
	static const struct step s[] = {
		{ POST, 2, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 0, 32768, 128, 0, 128, NO, 0, NO, ".", 0 },
		{ RESP, 0, 100, 0, 0, 32768, 128, 100, 128, NO, 0, NO,
		  ".", 0 },
		{ SEND, 10, 0, NO, 0, 32768, 128, 100, 128, NO, 0, NO,
		  ".", 0 },
		{ SEEK, 100, 0, ANY, 0, 25600, 100, 100, 128, NO, 0, NO,
		  ".", 0 },
		{ SEND, 10, 0, 100, 0, 32768, 128, 100, 128, NO, 0, NO,
		  ".", 0 },
		{ RESP, 100, 28, 0, 0, 32768, 128, 128, 128, NO, 0, NO,
		  ".", 0 },
		{ SEND, 10, 0, 128, 2, 0, 131, 128, 131, NO, 0, NO, "..", 0 },
		{ RESP, 128, 0, 0, 2, 0, 131, 129, 131, NO, 0, NO, "..", 0 },
		{ ACK, 130, 0, 1, 2, 0, 131, 129, 131, NO, 0, 131, "..", 0 },
		{ REREQ, 129, 1, 1, 0, 33024, 129, 129, 131, 131, 1, 131,
		  "..", 0 },
		{ SEND, 1, 0, 129, 2, 0, 131, 129, 131, NO, 0, 131, "..", 0 },
		{ RESP, 129, 0, 0, 2, 0, 131, 130, 131, NO, 0, 131, ".", 1 },
		{ RELEASE, 0, 0, 1, 2, 0, 131, 131, 131, NO, 0, NO, "", 2 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_RDMA_READ, 130 * MTU },
		{ 1, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A WQE that failed retires in its turn, after those before it are
 * done, and puts the QP in ERR (its completion is posted, signalled or
 * not); the flush completes what was never fetched from the ring.
 */
static void error_in_order(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, 0 },				/* 0 */
		{ IB_WR_SEND, 256, SIG },			/* 1 */
		{ IB_WR_LOCAL_INV, 0, FAILS },			/* at 2 */
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_RDMA_WRITE, 512, 0 },
	};
	static const struct step s[] = {
		{ POST, 5, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 2, 0, 2, 0, 2, NO, 0, NO, "..E", 0 },
		{ ACK, 0, 0, 1, 2, 0, 2, 1, 2, NO, 0, NO, ".E", 0 },
		{ SEEK, 1, 0, ANY, 1, 0, 1, 1, 2, NO, 0, NO, ".E", 0 },
		/* The seek and the resend stop at the failed WQE. */
		{ SEND, 10, 0, 1, 2, 0, 2, 1, 2, NO, 0, NO, ".E", 0 },
		{ SEEK, 2, 0, ANY, 2, 0, 2, 1, 2, NO, 0, NO, ".E", 0 },
		{ ACK, 1, 0, 1, 3, 0, 2, 2, 2, NO, 0, NO, "!", 2 },
		{ COUNT, WC_ERRORS, 0, 1, 3, 0, 2, 2, 2, NO, 0, NO, "!", 2 },
		{ SEND, 10, 0, NO, 3, 0, 2, 2, 2, NO, 0, NO, "!", 2 },
		{ FLUSH, 0, 0, ANY, 5, 0, 2, 2, 2, NO, 0, NO, "!", 4 },
		{ FLUSH, 0, 0, ANY, 5, 0, 2, 2, 2, NO, 0, NO, "!", 4 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 1, IB_WC_SUCCESS, IB_WC_SEND, 256 },
		{ 2, IB_WC_LOC_PROT_ERR, IB_WC_LOCAL_INV, 0 },
		{ 3, IB_WC_WR_FLUSH_ERR, IB_WC_SEND, 0 },
		{ 4, IB_WC_WR_FLUSH_ERR, IB_WC_RDMA_WRITE, 0 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * The flush in ring order: fetched WQEs from the kernel's copies, with
 * their own error or WR_FLUSH_ERR, the rest from the ring as it is now.
 * A full CQ stops it; the next flush goes on from the kernel's copies.
 * The WQE whose completion found the CQ full has left the ring without
 * one: a real CQ stays in error after an overflow (cq.h) and would
 * take nothing more anyway.
 */
static void flush_full_cq(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, SIG },			/* 0 */
		{ IB_WR_RDMA_WRITE, 512, 0 },			/* 1-2 */
		{ IB_WR_RDMA_READ, 256, 0 },			/* 3 */
		{ IB_WR_RDMA_READ_WITH_INV, 256, 0 },		/* refused */
		{ IB_WR_SEND, 256, 0 },
		{ IB_WR_SEND, 100, SIG },
	};
	static const struct step s[] = {
		{ POST, 6, 0, 6, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		/* Fetched, it failed its checks; the requester reaches it. */
		{ SEND, 4, 0, 0, 3, 0, 4, 0, 4, NO, 0, NO, "...x", 0 },
		{ SEND, 5, 0, NO, 3, 0, 4, 0, 4, NO, 0, NO, "...E", 0 },
		/* A NAK's remote access error fails the oldest. */
		{ FAIL, IB_WC_REM_ACCESS_ERR, 0, 1, 3, 0, 4, 0, 4, NO, 0, NO,
		  "!..E", 1 },
		{ SCRIBBLE, 1, 0, ANY, 3, 0, 4, 0, 4, NO, 0, NO, "!..E", 1 },
		{ SCRIBBLE, 4, 0, ANY, 3, 0, 4, 0, 4, NO, 0, NO, "!..E", 1 },
		{ CQ_ROOM, 0, 0, ANY, 3, 0, 4, 0, 4, NO, 0, NO, "!..E", 1 },
		{ FLUSH, 0, 0, ANY, 2, 0, 4, 0, 4, NO, 0, NO, "!.E", 1 },
		{ SCRIBBLE, 2, 0, ANY, 2, 0, 4, 0, 4, NO, 0, NO, "!.E", 1 },
		{ CQ_ROOM, 10, 0, ANY, 2, 0, 4, 0, 4, NO, 0, NO, "!.E", 1 },
		{ FLUSH, 0, 0, ANY, 6, 0, 4, 0, 4, NO, 0, NO, "!", 5 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_REM_ACCESS_ERR, IB_WC_SEND, 256 },
		{ 2, IB_WC_WR_FLUSH_ERR, IB_WC_RDMA_READ, 0 },
		{ 3, IB_WC_LOC_QP_OP_ERR, IB_WC_SEND, 0 },
		{ SCRIBBLED + 4, IB_WC_WR_FLUSH_ERR, IB_WC_SEND, 0 },
		{ 5, IB_WC_WR_FLUSH_ERR, IB_WC_SEND, 0 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A full CQ at retire: the QP goes to ERR, and the flush reports the
 * acknowledged WQE behind it as flushed.
 */
static void retire_full_cq(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
	};
	static const struct step s[] = {
		{ POST, 2, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 2, 0, 2, 0, 2, NO, 0, NO, "..", 0 },
		{ CQ_ROOM, 0, 0, ANY, 2, 0, 2, 0, 2, NO, 0, NO, "..", 0 },
		{ ACK, 1, 0, 1, 2, 0, 2, 2, 2, NO, 0, NO, "!D", 0 },
		{ CQ_ROOM, 5, 0, ANY, 2, 0, 2, 2, 2, NO, 0, NO, "!D", 0 },
		{ FLUSH, 0, 0, ANY, 2, 0, 2, 2, 2, NO, 0, NO, "!", 1 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 1, IB_WC_WR_FLUSH_ERR, IB_WC_SEND, 0 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A producer index moved back behind what was fetched: ERR, one fatal
 * event, counted. The flush then stops at that producer index, so WQE 1,
 * fetched and sent, gets no completion: user space took it back.
 */
static void overrun_backwards(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 1, 0, 0, 1, 0, 1, 0, 1, NO, 0, NO, "..", 0 },
		{ PROD, 1, 0, ANY, 1, 0, 1, 0, 1, NO, 0, NO, "..", 0 },
		{ SEND, 5, 0, 1, 2, 0, 2, 0, 2, NO, 0, NO, "!..", 0 },
		{ COUNT, OVERRUNS, 0, 1, 2, 0, 2, 0, 2, NO, 0, NO, "!..", 0 },
		{ COUNT, FATAL, 0, 1, 2, 0, 2, 0, 2, NO, 0, NO, "!..", 0 },
		{ SEND, 5, 0, NO, 2, 0, 2, 0, 2, NO, 0, NO, "!..", 0 },
		{ FLUSH, 0, 0, ANY, 1, 0, 2, 0, 2, NO, 0, NO, "!", 1 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 0, IB_WC_WR_FLUSH_ERR, IB_WC_SEND, 0 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/*
 * A producer index more than the ring's size ahead looks, masked, like
 * one behind what was fetched: refused the same. A full ring is not.
 */
static void overrun_ahead(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 3, 0, 3, NO, 0, NO, "...", 0 },
		{ PROD, RING_SLOTS + 2, 0, ANY, 3, 0, 3, 0, 3, NO, 0, NO,
		  "...", 0 },
		{ SEND, 10, 0, NO, 3, 0, 3, 0, 3, NO, 0, NO, "!...", 0 },
		{ COUNT, OVERRUNS, 0, 1, 3, 0, 3, 0, 3, NO, 0, NO, "!...", 0 },
		{ COUNT, FATAL, 0, 1, 3, 0, 3, 0, 3, NO, 0, NO, "!...", 0 },
		STEPS_END,
	};
	static const struct step s2[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 10, 0, 0, 3, 0, 3, 0, 3, NO, 0, NO, "...", 0 },
		{ PROD, RING_SLOTS, 0, ANY, 3, 0, 3, 0, 3, NO, 0, NO,
		  "...", 0 },
		{ SEND, 10, 0, NO, 3, 0, 3, 0, 3, NO, 0, NO, "!...", 0 },
		{ COUNT, OVERRUNS, 0, 1, 3, 0, 3, 0, 3, NO, 0, NO, "!...", 0 },
		STEPS_END,
	};
	/* A ring of RING_SLOTS - 1 posted WQEs, one fetched. */
	static const struct step s3[] = {
		{ POST, 1, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 1, 0, 0, 1, 0, 1, 0, 1, NO, 0, NO, ".", 0 },
		{ PROD, RING_SLOTS - 1, 0, ANY, 1, 0, 1, 0, 1, NO, 0, NO,
		  ".", 0 },
		{ SEND, 0, 0, NO, 1, 0, 1, 0, 1, NO, 0, NO, "..", 0 },
		{ COUNT, OVERRUNS, 0, 0, 1, 0, 1, 0, 1, NO, 0, NO, "..", 0 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {};
	static const struct script sc = SCRIPT(w, s, c);
	static const struct script sc2 = SCRIPT(w, s2, c);
	static const struct script sc3 = SCRIPT(w, s3, c);

	CALL(run_script(&sc));
	CALL(run_script(&sc2));
	CALL(run_script(&sc3));
}

/* Slots used again once round the ring start from a clean state. */
static void ring_reuse(void)
{
	static const struct wqe_spec w[20] = {
		[0 ... 18] = { IB_WR_SEND, 256, 0 },
		[19] = { IB_WR_SEND, 256, SIG },
	};
	static const struct step s[] = {
		{ POST, 12, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 20, 0, 0, 12, 0, 12, 0, 12, NO, 0, NO,
		  "............", 0 },
		{ ACK, 11, 0, 1, 12, 0, 12, 12, 12, NO, 0, NO, "", 0 },
		{ POST, 8, 0, ANY, 12, 0, 12, 12, 12, NO, 0, NO, "", 0 },
		{ SEND, 20, 0, 12, 4, 0, 20, 12, 20, NO, 0, NO,
		  "........", 0 },
		{ ACK, 19, 0, 1, 4, 0, 20, 20, 20, NO, 0, NO, "", 1 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {
		{ 19, IB_WC_SUCCESS, IB_WC_SEND, 256 },
	};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

/* Modify to RESET: every posted WQE goes, without a completion. */
static void discard(void)
{
	static const struct wqe_spec w[] = {
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
		{ IB_WR_SEND, 256, SIG },
	};
	static const struct step s[] = {
		{ POST, 3, 0, ANY, 0, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		{ SEND, 1, 0, 0, 1, 0, 1, 0, 1, NO, 0, NO, "..", 0 },
		{ RESEND, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, NO, "..", 0 },
		{ DISCARD, 0, 0, ANY, 3, 0, 0, 0, 0, NO, 0, NO, "", 0 },
		STEPS_END,
	};
	static const struct cqe_spec c[] = {};
	static const struct script sc = SCRIPT(w, s, c);

	run_script(&sc);
}

UNIT_MAIN(UNIT_CASE(in_order_acks), UNIT_CASE(in_order_sig_all),
	  UNIT_CASE(resend_one), UNIT_CASE(go_back_n),
	  UNIT_CASE(read_held_ack), UNIT_CASE(release_to_next_read),
	  UNIT_CASE(timeout_keeps_held),
	  UNIT_CASE(read_gap_ask),
	  UNIT_CASE(read_first_lost), UNIT_CASE(done_at_position),
	  UNIT_CASE(nak_drops_rereq), UNIT_CASE(read_go_back),
	  UNIT_CASE(read_chunks), UNIT_CASE(error_in_order),
	  UNIT_CASE(flush_full_cq), UNIT_CASE(retire_full_cq),
	  UNIT_CASE(overrun_backwards), UNIT_CASE(overrun_ahead),
	  UNIT_CASE(ring_reuse), UNIT_CASE(discard))
