// SPDX-License-Identifier: GPL-2.0
/*
 * kverbs_selftest: kernel verbs of an RDMA device, black box. Only the
 * exported RDMA core API is used, as a kernel ULP uses it (no driver
 * sources are linked), on the device named by the module parameter:
 *
 *	insmod kverbs_selftest.ko dev=sroce0		(or dev=rxe0)
 *
 * so the same checks run against rdma_rxe to prove the test itself. All
 * traffic is loopback: the QPs live on the one device and talk to its own
 * RoCE v2 GID (the first IPv4 one), with the netdev's own MAC as dmac.
 * Buffers are DMA-mapped with ib_dma_map_single/ib_dma_map_sg and used
 * through the PD's local_dma_lkey, or through a fast-reg MR.
 *
 * Checks, each group on QPs of its own (a group that leaves its QPs in
 * ERR does not spoil the next):
 *  - device: the port is ACTIVE, a RoCE v2 GID with an IPv4 address;
 *    ib_alloc_pd, ib_alloc_cq (IB_POLL_DIRECT, polled with ib_poll_cq).
 *  - RC connection (INIT/RTR/RTS with an AV of type RoCE), ib_query_qp
 *    giving back the state, path MTU, PSNs, destination and GID;
 *    SEND_WITH_IMM of 3000 bytes from 3 SGEs into 2 receive SGEs
 *    (several packets at path MTU 1024): opcode, byte_len, IB_WC_WITH_IMM,
 *    immediate, the bytes, and nothing written outside the receive SGEs;
 *    an unsignalled SEND followed by a signalled one gives one completion;
 *    an IB_SEND_INLINE SEND of 64 bytes with a bogus lkey, its buffer
 *    scribbled over as soon as ib_post_send returns; a SEND posted before
 *    its receive completes once the receive is posted (RNR retry);
 *    posting with interrupts off and with bottom halves off.
 *  - a fast-reg MR (ib_alloc_mr, ib_map_mr_sg over 4 separately allocated
 *    pages, IB_WR_REG_MR completing as IB_WC_REG_MR) on the responder:
 *    RDMA WRITE (2 local SGEs, unaligned remote offset), WRITE_WITH_IMM
 *    (IB_WC_RECV_RDMA_WITH_IMM), RDMA READ (byte_len), FETCH_AND_ADD and
 *    CMP_AND_SWP (miss and hit), the pages compared with a model;
 *    IB_WR_LOCAL_INV (IB_WC_LOCAL_INV), then a WRITE with the stale rkey
 *    completes with IB_WC_REM_ACCESS_ERR, writes nothing, the requester
 *    goes to ERR and the responder raises IB_EVENT_QP_ACCESS_ERR.
 *  - on a pair whose PSNs wrap during the transfers: a zero-based MR
 *    (ib_map_mr_sg_zbva) whose first and last SG entries are partial
 *    pages, WRITE and READ through it and LOCAL_INV; the first MR
 *    registered again (new key): WRITE and READ, then SEND_WITH_INV
 *    (IB_WC_WITH_INVALIDATE, ex.invalidate_rkey), after which a READ with
 *    that rkey completes with IB_WC_REM_ACCESS_ERR (and the responder's
 *    IB_EVENT_QP_ACCESS_ERR).
 *  - flushing, as ib_drain_qp() needs it (done by hand, with a bounded
 *    wait, so that a broken driver fails instead of hanging): receives
 *    outstanding on a connected QP moved to ERR complete in order with
 *    IB_WC_WR_FLUSH_ERR; a send and a receive posted in ERR are flushed.
 *  - post-time errors: ib_post_send/ib_post_recv in RESET (-EINVAL,
 *    bad_wr); too many SGEs, IB_WR_LSO, inline data over the limit, a
 *    chain whose third WR is bad (-EINVAL, bad_wr at it, the first two
 *    posted); the SQ filled on a QP in INIT, and on a QP in RTS whose
 *    peer never answers (-ENOMEM, bad_wr at the first WR not posted);
 *    the RQ filled (-ENOMEM); RDMA WRITE on a UD QP; then every posted WR
 *    is flushed exactly once, in order.
 *  - a kernel SRQ shared by two QPs: ib_post_recv on such a QP is
 *    refused; sends to both arrive, wc.qp tells which QP, the SRQ's WQEs
 *    are taken in order; ib_query_srq; the SRQ filled (-ENOMEM); a QP of
 *    the SRQ moved to ERR raises IB_EVENT_QP_LAST_WQE_REACHED and flushes
 *    none of the SRQ's WQEs, which still serve the other QP.
 *  - UD: two UD QPs, an AH from rdma_create_ah(RDMA_CREATE_AH_SLEEPABLE)
 *    to the own GID; a send with the wrong Q_Key is dropped; a
 *    SEND_WITH_IMM lands after the 40-byte GRH area (byte_len includes
 *    it), with IB_WC_GRH, src_qp, IB_WC_WITH_NETWORK_HDR_TYPE (IPv4), and
 *    an IPv4 header in the GRH area that the core parses back to our GID.
 *
 * Every wait is bounded (timeout_ms, default 5000, polling with
 * usleep_range). Each failed check prints "kverbs_selftest: FAILED: ...";
 * the end prints "kverbs_selftest: N passed, N failed" and the module
 * fails to load if any check failed.
 *
 * rxe_quirks=1 accepts what rdma_rxe (6.1) is known to do differently,
 * printing each as "kverbs_selftest: rxe quirk: ..." (seen on Debian's
 * 6.1.0-57 rdma_rxe):
 *  - ib_create_qp hands back the caps asked for (16 WRs), not the
 *    rounded-up ones its rings have (31, which ib_query_qp reports and
 *    posting enforces); the fill checks use what ib_query_qp says;
 *  - ib_post_send before RTS fails with -EINVAL (rxe takes send WRs from
 *    RTS on; sroce queues them in INIT and RTR until RTS), so the
 *    fill-in-INIT check cannot run there;
 *  - no IB_EVENT_QP_ACCESS_ERR (local access violation work queue error)
 *    on the responder of an RDMA access with a bad rkey;
 *  - no IB_EVENT_QP_LAST_WQE_REACHED when a QP of an SRQ enters ERR
 *    (rxe 6.1 never raises it).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define PFX "kverbs_selftest: "

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test (e.g. sroce0 or rxe0)");

static bool rxe_quirks;
module_param(rxe_quirks, bool, 0444);
MODULE_PARM_DESC(rxe_quirks, "accept rdma_rxe's known deviations");

static unsigned int timeout_ms = 5000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "longest wait for one completion or event");

static int passed, failed;

/* Counts a check; evaluates to whether it passed. */
#define CHECK(cond, fmt, ...) ({					\
	bool __ok = !!(cond);						\
	if (__ok) {							\
		passed++;						\
	} else {							\
		failed++;						\
		pr_err(PFX "FAILED: " fmt "\n", ##__VA_ARGS__);		\
	}								\
	__ok;								\
})

/* A deviation of rdma_rxe, accepted with rxe_quirks=1 only. */
#define QUIRK(fmt, ...) ({						\
	bool __q = rxe_quirks;						\
	if (__q) {							\
		passed++;						\
		pr_info(PFX "rxe quirk: " fmt "\n", ##__VA_ARGS__);	\
	}								\
	__q;								\
})

/* What every group shares: the device, its GID, the PD. */
static struct {
	struct ib_device *dev;
	u32 port;
	u8 sgid_index;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	struct ib_pd *pd;
	u32 lkey;
} kv;

/* --- asynchronous events ------------------------------------------------ */

#define MAX_EVENTS 32
static DEFINE_SPINLOCK(ev_lock);
static struct {
	void *obj;
	enum ib_event_type type;
} events[MAX_EVENTS];
static int nr_events;

static void record_event(void *obj, enum ib_event_type type)
{
	unsigned long flags;

	spin_lock_irqsave(&ev_lock, flags);
	if (nr_events < MAX_EVENTS) {
		events[nr_events].obj = obj;
		events[nr_events].type = type;
		nr_events++;
	}
	spin_unlock_irqrestore(&ev_lock, flags);
}

static void qp_event(struct ib_event *ev, void *ctx)
{
	pr_info(PFX "event '%s' on QP %u\n", ib_event_msg(ev->event),
		ev->element.qp->qp_num);
	record_event(ev->element.qp, ev->event);
}

static void srq_event(struct ib_event *ev, void *ctx)
{
	pr_info(PFX "event '%s' on SRQ\n", ib_event_msg(ev->event));
	record_event(ev->element.srq, ev->event);
}

static bool has_event(void *obj, enum ib_event_type type)
{
	unsigned long flags;
	bool found = false;
	int i;

	spin_lock_irqsave(&ev_lock, flags);
	for (i = 0; i < nr_events; i++)
		if (events[i].obj == obj && events[i].type == type)
			found = true;
	spin_unlock_irqrestore(&ev_lock, flags);
	return found;
}

static bool wait_event_of(void *obj, enum ib_event_type type,
			  unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (!has_event(obj, type)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

/* Forgets the events of an object about to be freed. */
static void forget_events(void *obj)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&ev_lock, flags);
	for (i = 0; i < nr_events; i++)
		if (events[i].obj == obj)
			events[i].obj = NULL;
	spin_unlock_irqrestore(&ev_lock, flags);
}

/*
 * @obj gets a @type event within a second; @rxe_lacks: rdma_rxe is known
 * not to raise it (accepted with rxe_quirks=1).
 */
static void expect_event(void *obj, enum ib_event_type type, bool rxe_lacks,
			 const char *what)
{
	bool ok = wait_event_of(obj, type, 1000);

	if (ok || !rxe_lacks ||
	    !QUIRK("no '%s' event: %s", ib_event_msg(type), what))
		CHECK(ok, "no '%s' event: %s", ib_event_msg(type), what);
}

/* --- buffers -------------------------------------------------------------- */

struct kbuf {
	void *va;
	u64 dma;
	size_t len;
};

static bool kbuf_alloc(struct kbuf *b, size_t len)
{
	b->len = len;
	b->va = kzalloc(len, GFP_KERNEL);
	if (!CHECK(b->va, "kzalloc(%zu)", len))
		return false;
	b->dma = ib_dma_map_single(kv.dev, b->va, len, DMA_BIDIRECTIONAL);
	if (!CHECK(!ib_dma_mapping_error(kv.dev, b->dma),
		   "ib_dma_map_single(%zu)", len)) {
		kfree(b->va);
		b->va = NULL;
		return false;
	}
	return true;
}

static void kbuf_free(struct kbuf *b)
{
	if (!b->va)
		return;
	ib_dma_unmap_single(kv.dev, b->dma, b->len, DMA_BIDIRECTIONAL);
	kfree(b->va);
	b->va = NULL;
}

/* Before the CPU looks at what the device wrote. */
static void kbuf_sync(struct kbuf *b)
{
	ib_dma_sync_single_for_cpu(kv.dev, b->dma, b->len, DMA_BIDIRECTIONAL);
}

static struct ib_sge kbuf_sge(const struct kbuf *b, size_t off, u32 len)
{
	return (struct ib_sge){
		.addr = b->dma + off, .length = len, .lkey = kv.lkey,
	};
}

/* Byte @i of pattern @seed. */
static u8 pat(u32 seed, size_t i)
{
	return (u8)(seed * 31 + i * 7 + (i >> 8) + 1);
}

static void fill(void *p, size_t len, u32 seed, size_t base)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(seed, base + i);
}

/* Index of the first byte of @p that is not pattern @seed, or -1. */
static long pat_diff(const void *p, size_t len, u32 seed, size_t base)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != pat(seed, base + i))
			return i;
	return -1;
}

static long mem_diff(const void *a, const void *b, size_t len)
{
	const u8 *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return i;
	return -1;
}

static bool all_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* --- completions ---------------------------------------------------------- */

/*
 * Completions that never came. After a few, a device that has stopped
 * completing anything is not waited for in full each time: the module
 * must finish loading well within the guest's time limit.
 */
static int missed;
#define MISSED_MAX	3
#define MISSED_WAIT_MS	200

/* One completion within @ms: 0, -ETIMEDOUT, or the poll error. */
static int poll_wc(struct ib_cq *cq, struct ib_wc *wc, unsigned int ms)
{
	unsigned long end;
	int n;

	if (ms == timeout_ms && missed >= MISSED_MAX)
		ms = min_t(unsigned int, ms, MISSED_WAIT_MS);
	end = jiffies + msecs_to_jiffies(ms);
	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n < 0)
			return n;
		if (n)
			return 0;
		if (time_after(jiffies, end)) {
			if (ms >= timeout_ms && ++missed == MISSED_MAX)
				pr_err(PFX "%d completions missed: waiting %u ms, not %u, from now on\n",
				       missed, MISSED_WAIT_MS, timeout_ms);
			return -ETIMEDOUT;
		}
		usleep_range(50, 200);
	}
}

static const char *wc_status(enum ib_wc_status st)
{
	return ib_wc_status_msg(st);
}

/*
 * The next completion of @cq is @wr_id with @status, and, if it succeeded
 * and @opcode >= 0, of that opcode. Leaves it in @wc.
 */
static bool expect_wc(struct ib_cq *cq, struct ib_wc *wc, u64 wr_id,
		      enum ib_wc_status status, int opcode, const char *what)
{
	int err = poll_wc(cq, wc, timeout_ms);

	if (!CHECK(!err, "%s: no completion within %u ms (%d)", what,
		   timeout_ms, err))
		return false;
	return CHECK(wc->wr_id == wr_id && wc->status == status &&
		     (status != IB_WC_SUCCESS || opcode < 0 ||
		      wc->opcode == opcode),
		     "%s: completion wr_id %#llx status '%s' (%d) opcode %d vendor_err %#x, expected wr_id %#llx status '%s' opcode %d",
		     what, wc->wr_id, wc_status(wc->status), wc->status,
		     wc->opcode, wc->vendor_err, wr_id, wc_status(status),
		     opcode);
}

/* Nothing (more) arrives on @cq within @ms. */
static bool expect_no_wc(struct ib_cq *cq, unsigned int ms, const char *what)
{
	struct ib_wc wc;
	int err = poll_wc(cq, &wc, ms);

	return CHECK(err == -ETIMEDOUT,
		     "%s: unexpected completion wr_id %#llx status '%s' opcode %d (poll %d)",
		     what, wc.wr_id, wc_status(wc.status), wc.opcode, err);
}

static struct ib_cq *cq_alloc(int nr, const char *what)
{
	struct ib_cq *cq = ib_alloc_cq(kv.dev, NULL, nr, 0, IB_POLL_DIRECT);

	if (!CHECK(!IS_ERR(cq), "ib_alloc_cq(%d) for %s: %ld", nr, what,
		   PTR_ERR(cq)))
		return NULL;
	return cq;
}

static void cq_free(struct ib_cq *cq)
{
	if (cq)
		ib_free_cq(cq);
}

/* --- queue pairs ---------------------------------------------------------- */

static struct ib_qp *qp_create(enum ib_qp_type type, struct ib_cq *cq,
			       struct ib_srq *srq, u32 wr, u32 sge, u32 inl,
			       struct ib_qp_cap *cap, const char *what)
{
	struct ib_qp_init_attr ia = {
		.event_handler = qp_event,
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = {
			.max_send_wr = wr,
			.max_recv_wr = srq ? 0 : wr,
			.max_send_sge = sge,
			.max_recv_sge = srq ? 0 : sge,
			.max_inline_data = inl,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = type,
		.port_num = kv.port,
	};
	struct ib_qp_init_attr qia;
	struct ib_qp_attr qa;
	struct ib_qp *qp;
	int err;

	if (!cq)
		return NULL;
	qp = ib_create_qp(kv.pd, &ia);
	if (!CHECK(!IS_ERR(qp), "ib_create_qp for %s: %ld", what,
		   PTR_ERR(qp)))
		return NULL;
	CHECK(ia.cap.max_send_wr >= wr && ia.cap.max_send_sge >= sge &&
	      ia.cap.max_inline_data >= inl &&
	      (srq || (ia.cap.max_recv_wr >= wr && ia.cap.max_recv_sge >= sge)),
	      "%s: caps %u/%u/%u/%u/%u below the %u/%u/%u/%u/%u asked for",
	      what, ia.cap.max_send_wr, ia.cap.max_send_sge,
	      ia.cap.max_recv_wr, ia.cap.max_recv_sge,
	      ia.cap.max_inline_data, wr, sge, srq ? 0 : wr, srq ? 0 : sge,
	      inl);
	/* What create returned is what the QP has (ib_query_qp). */
	err = ib_query_qp(qp, &qa, IB_QP_CAP, &qia);
	if (CHECK(!err, "ib_query_qp for %s: %d", what, err) &&
	    memcmp(&qa.cap, &ia.cap, sizeof(qa.cap))) {
		static bool told;

		if (!rxe_quirks)
			CHECK(0, "%s: ib_create_qp gave caps %u/%u/%u/%u/%u, ib_query_qp %u/%u/%u/%u/%u",
			      what, ia.cap.max_send_wr, ia.cap.max_send_sge,
			      ia.cap.max_recv_wr, ia.cap.max_recv_sge,
			      ia.cap.max_inline_data, qa.cap.max_send_wr,
			      qa.cap.max_send_sge, qa.cap.max_recv_wr,
			      qa.cap.max_recv_sge, qa.cap.max_inline_data);
		else if (!told && QUIRK("ib_create_qp returns the caps asked for (%u send WRs, %u receive WRs), not the QP's (%u, %u: ib_query_qp)",
					ia.cap.max_send_wr, ia.cap.max_recv_wr,
					qa.cap.max_send_wr, qa.cap.max_recv_wr))
			told = true;
		ia.cap = qa.cap;
	}
	if (cap)
		*cap = ia.cap;
	return qp;
}

static void qp_destroy(struct ib_qp *qp)
{
	int err;

	if (!qp)
		return;
	forget_events(qp);
	err = ib_destroy_qp(qp);
	CHECK(!err, "ib_destroy_qp: %d", err);
}

static void fill_ah(struct rdma_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(kv.dev, kv.port);
	rdma_ah_set_port_num(ah, kv.port);
	rdma_ah_set_sl(ah, 0);
	rdma_ah_set_grh(ah, &kv.gid, 0, kv.sgid_index, 64, 0);
	memcpy(ah->roce.dmac, kv.mac, ETH_ALEN);
}

static int modify(struct ib_qp *qp, struct ib_qp_attr *a, int mask,
		  const char *what)
{
	int err = ib_modify_qp(qp, a, mask);

	CHECK(!err, "ib_modify_qp(QP %u) to %s: %d", qp->qp_num, what, err);
	return err;
}

static int rc_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = kv.port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};

	return modify(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		      IB_QP_ACCESS_FLAGS, "INIT");
}

static int rc_to_rtr(struct ib_qp *qp, u32 dest_qpn, u32 rq_psn)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = IB_MTU_1024,
		.dest_qp_num = dest_qpn,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
	};

	fill_ah(&a.ah_attr);
	return modify(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
		      IB_QP_DEST_QPN | IB_QP_RQ_PSN |
		      IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER, "RTR");
}

static int rc_to_rts(struct ib_qp *qp, u32 sq_psn, u8 timeout)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS,
		.timeout = timeout,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = sq_psn,
		.max_rd_atomic = 1,
	};

	return modify(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
		      IB_QP_RNR_RETRY | IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC,
		      "RTS");
}

static int rc_connect(struct ib_qp *qp, u32 dest_qpn, u32 sq_psn,
		      u32 rq_psn)
{
	return rc_to_init(qp) ?: rc_to_rtr(qp, dest_qpn, rq_psn) ?:
	       rc_to_rts(qp, sq_psn, 14);
}

static int to_err(struct ib_qp *qp)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_ERR };

	return modify(qp, &a, IB_QP_STATE, "ERR");
}

static int qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int err = ib_query_qp(qp, &a, IB_QP_STATE, &ia);

	return err ? err : a.qp_state;
}

/* The QP reaches @state within timeout_ms (the engine may lag its CQE). */
static bool wait_state(struct ib_qp *qp, enum ib_qp_state state)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);
	int s;

	while ((s = qp_state(qp)) != state) {
		if (time_after(jiffies, end))
			break;
		usleep_range(500, 1000);
	}
	return CHECK(s == state, "QP %u in state %d, expected %d",
		     qp->qp_num, s, state);
}

/* Two connected RC QPs, each with a CQ of its own: A requests, B serves. */
struct pair {
	struct ib_cq *cq[2];
	struct ib_qp *qp[2];
	struct ib_qp_cap cap[2];
};

#define PA(p) ((p)->qp[0])
#define PB(p) ((p)->qp[1])
#define CA(p) ((p)->cq[0])
#define CB(p) ((p)->cq[1])

/* ib_query_qp of a freshly connected requester tells what it was given. */
static void pair_query(struct pair *p, const char *what, u32 psn_a,
		       u32 psn_b)
{
	struct ib_qp_init_attr ia;
	struct ib_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	err = ib_query_qp(PA(p), &a, IB_QP_STATE | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_AV | IB_QP_SQ_PSN |
			  IB_QP_RQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			  IB_QP_RNR_RETRY, &ia);
	if (!CHECK(!err, "%s: ib_query_qp: %d", what, err))
		return;
	CHECK(a.qp_state == IB_QPS_RTS && a.path_mtu == IB_MTU_1024 &&
	      a.dest_qp_num == PB(p)->qp_num && a.sq_psn == psn_a &&
	      a.rq_psn == psn_b && a.timeout == 14 && a.retry_cnt == 7 &&
	      a.rnr_retry == 7,
	      "%s: ib_query_qp: state %d path_mtu %d dest_qp %u sq_psn %#x rq_psn %#x timeout %u retry %u rnr_retry %u",
	      what, a.qp_state, a.path_mtu, a.dest_qp_num, a.sq_psn, a.rq_psn,
	      a.timeout, a.retry_cnt, a.rnr_retry);
	CHECK((rdma_ah_get_ah_flags(&a.ah_attr) & IB_AH_GRH) &&
	      !memcmp(rdma_ah_read_grh(&a.ah_attr)->dgid.raw, kv.gid.raw, 16) &&
	      rdma_ah_read_grh(&a.ah_attr)->sgid_index == kv.sgid_index,
	      "%s: ib_query_qp: path is not the one given", what);
}

static void pair_destroy(struct pair *p)
{
	qp_destroy(p->qp[0]);
	qp_destroy(p->qp[1]);
	cq_free(p->cq[0]);
	cq_free(p->cq[1]);
	memset(p, 0, sizeof(*p));
}

static bool pair_create(struct pair *p, const char *what, u32 psn_a,
			u32 psn_b, u32 inl)
{
	memset(p, 0, sizeof(*p));
	p->cq[0] = cq_alloc(128, what);
	p->cq[1] = cq_alloc(128, what);
	p->qp[0] = qp_create(IB_QPT_RC, p->cq[0], NULL, 16, 4, inl,
			     &p->cap[0], what);
	p->qp[1] = qp_create(IB_QPT_RC, p->cq[1], NULL, 16, 4, 0, &p->cap[1],
			     what);
	if (!p->qp[0] || !p->qp[1] ||
	    rc_connect(p->qp[0], p->qp[1]->qp_num, psn_a, psn_b) ||
	    rc_connect(p->qp[1], p->qp[0]->qp_num, psn_b, psn_a)) {
		pair_destroy(p);
		return false;
	}
	pair_query(p, what, psn_a, psn_b);
	return true;
}

/* --- posting helpers -------------------------------------------------------- */

static int post_recv(struct ib_qp *qp, u64 wr_id, struct ib_sge *sg,
		     int nsge)
{
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = sg,
				 .num_sge = nsge };
	const struct ib_recv_wr *bad = NULL;
	int err = ib_post_recv(qp, &wr, &bad);

	CHECK(!err, "ib_post_recv(QP %u, wr_id %#llx): %d", qp->qp_num,
	      wr_id, err);
	return err;
}

static int post_send(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		     struct ib_sge *sg, int nsge, int flags, __be32 imm)
{
	struct ib_send_wr wr = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = nsge,
		.opcode = op, .send_flags = flags,
	};
	const struct ib_send_wr *bad = NULL;
	int err;

	/* @imm carries the rkey of the invalidating opcodes. */
	if (op == IB_WR_SEND_WITH_INV || op == IB_WR_LOCAL_INV)
		wr.ex.invalidate_rkey = be32_to_cpu(imm);
	else
		wr.ex.imm_data = imm;
	err = ib_post_send(qp, &wr, &bad);
	CHECK(!err, "ib_post_send(QP %u, opcode %d, wr_id %#llx): %d",
	      qp->qp_num, op, wr_id, err);
	return err;
}

static int post_rdma(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		     struct ib_sge *sg, int nsge, u64 raddr, u32 rkey,
		     __be32 imm)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id, .sg_list = sg, .num_sge = nsge,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = imm,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad = NULL;
	int err = ib_post_send(qp, &wr.wr, &bad);

	CHECK(!err, "ib_post_send(QP %u, RDMA opcode %d, wr_id %#llx): %d",
	      qp->qp_num, op, wr_id, err);
	return err;
}

/* --- device --------------------------------------------------------------- */

/* The first RoCE v2 GID with an IPv4 address, and its netdev's MAC. */
static bool find_gid(void)
{
	struct ib_port_attr pa;
	bool found = false;
	int i, err;

	err = ib_query_port(kv.dev, kv.port, &pa);
	if (!CHECK(!err, "ib_query_port: %d", err))
		return false;
	CHECK(pa.state == IB_PORT_ACTIVE, "port state %d, not ACTIVE",
	      pa.state);
	CHECK(pa.active_mtu >= IB_MTU_1024, "active_mtu %d below 1024",
	      pa.active_mtu);

	for (i = 0; i < pa.gid_tbl_len && !found; i++) {
		const struct ib_gid_attr *ga;
		struct net_device *nd;

		ga = rdma_get_gid_attr(kv.dev, kv.port, i);
		if (IS_ERR(ga))
			continue;
		if (i < 256 && ga->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)ga->gid.raw)) {
			rcu_read_lock();
			nd = rdma_read_gid_attr_ndev_rcu(ga);
			if (!IS_ERR(nd)) {
				memcpy(kv.mac, nd->dev_addr, ETH_ALEN);
				kv.gid = ga->gid;
				kv.sgid_index = i;
				found = true;
			}
			rcu_read_unlock();
		}
		rdma_put_gid_attr(ga);
	}
	if (!CHECK(found, "no RoCE v2 GID with an IPv4 address on %s port %u",
		   dev, kv.port))
		return false;
	pr_info(PFX "%s: GID index %u (%pI6), MAC %pM\n", dev, kv.sgid_index,
		kv.gid.raw, kv.mac);
	/*
	 * A parent device (the NIC) must not turn this into a device that
	 * DMA-maps through the NIC: the addresses below are kernel VAs.
	 */
	pr_info(PFX "%s: parent %s\n", dev,
		kv.dev->dev.parent ? dev_name(kv.dev->dev.parent) : "none");
	if (!CHECK(ib_uses_virt_dma(kv.dev), "%s DMA-maps through %s", dev,
		   kv.dev->dma_device ? dev_name(kv.dev->dma_device) : "?"))
		return false;
	return true;
}

/* --- RC SEND ---------------------------------------------------------------- */

/*
 * SEND_WITH_IMM of 3000 bytes gathered from 3 SGEs, scattered into two
 * 2048-byte receive SGEs: three packets at path MTU 1024.
 */
static void test_send_imm(struct pair *p, struct kbuf *s, struct kbuf *r)
{
	static const u32 off[3] = { 0, 1500, 3000 }, len[3] = { 1000, 1200, 800 };
	struct ib_sge ssg[3], rsg[2];
	__be32 imm = cpu_to_be32(0x1234abcd);
	u8 *exp;
	struct ib_wc wc;
	u32 total = 0;
	int i;

	exp = kmalloc(4096, GFP_KERNEL);
	if (!CHECK(exp, "kmalloc"))
		return;
	fill(s->va, s->len, 1, 0);
	memset(r->va, 0, r->len);
	for (i = 0; i < 3; i++) {
		ssg[i] = kbuf_sge(s, off[i], len[i]);
		memcpy(exp + total, (u8 *)s->va + off[i], len[i]);
		total += len[i];
	}
	rsg[0] = kbuf_sge(r, 0, 2048);
	rsg[1] = kbuf_sge(r, 4096, 2048);

	if (post_recv(PB(p), 0x101, rsg, 2) ||
	    post_send(PA(p), IB_WR_SEND_WITH_IMM, 0x102, ssg, 3,
		      IB_SEND_SIGNALED, imm))
		goto out;
	expect_wc(CA(p), &wc, 0x102, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND_WITH_IMM, sender");
	if (expect_wc(CB(p), &wc, 0x101, IB_WC_SUCCESS, IB_WC_RECV,
		      "SEND_WITH_IMM, receiver")) {
		CHECK(wc.byte_len == total, "SEND_WITH_IMM byte_len %u, not %u",
		      wc.byte_len, total);
		CHECK(wc.qp == PB(p), "SEND_WITH_IMM: wc.qp is not the receiver");
		CHECK(wc.wc_flags & IB_WC_WITH_IMM,
		      "SEND_WITH_IMM: no IB_WC_WITH_IMM (wc_flags %#x)",
		      wc.wc_flags);
		CHECK(wc.ex.imm_data == imm, "SEND_WITH_IMM: imm %#x, not %#x",
		      be32_to_cpu(wc.ex.imm_data), be32_to_cpu(imm));
		kbuf_sync(r);
		CHECK(mem_diff(r->va, exp, 2048) < 0 &&
		      mem_diff((u8 *)r->va + 4096, exp + 2048, total - 2048) < 0,
		      "SEND_WITH_IMM: data differs (first SGE at %ld, second at %ld)",
		      mem_diff(r->va, exp, 2048),
		      mem_diff((u8 *)r->va + 4096, exp + 2048, total - 2048));
		CHECK(all_zero((u8 *)r->va + 2048, 2048) &&
		      all_zero((u8 *)r->va + 4096 + total - 2048,
			       r->len - 4096 - (total - 2048)),
		      "SEND_WITH_IMM: bytes written outside the receive SGEs");
	}
out:
	kfree(exp);
}

/* An unsignalled SEND, then a signalled one: one send completion. */
static void test_unsignaled(struct pair *p, struct kbuf *s, struct kbuf *r)
{
	struct ib_sge ssg[2] = { kbuf_sge(s, 0, 100), kbuf_sge(s, 100, 200) };
	struct ib_sge rsg[2] = { kbuf_sge(r, 0, 512), kbuf_sge(r, 512, 512) };
	struct ib_send_wr w[2] = {
		{ .wr_id = 0x111, .sg_list = &ssg[0], .num_sge = 1,
		  .opcode = IB_WR_SEND, .next = &w[1] },
		{ .wr_id = 0x112, .sg_list = &ssg[1], .num_sge = 1,
		  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;
	int err;

	fill(s->va, 300, 2, 0);
	memset(r->va, 0, 1024);
	if (post_recv(PB(p), 0x113, &rsg[0], 1) ||
	    post_recv(PB(p), 0x114, &rsg[1], 1))
		return;
	err = ib_post_send(PA(p), &w[0], &bad);
	if (!CHECK(!err, "ib_post_send of 2 SENDs: %d", err))
		return;
	expect_wc(CA(p), &wc, 0x112, IB_WC_SUCCESS, IB_WC_SEND,
		  "signalled SEND after an unsignalled one");
	if (expect_wc(CB(p), &wc, 0x113, IB_WC_SUCCESS, IB_WC_RECV,
		      "first of two SENDs"))
		CHECK(wc.byte_len == 100 && !(wc.wc_flags & IB_WC_WITH_IMM),
		      "first SEND: byte_len %u wc_flags %#x", wc.byte_len,
		      wc.wc_flags);
	if (expect_wc(CB(p), &wc, 0x114, IB_WC_SUCCESS, IB_WC_RECV,
		      "second of two SENDs"))
		CHECK(wc.byte_len == 200, "second SEND: byte_len %u",
		      wc.byte_len);
	kbuf_sync(r);
	CHECK(pat_diff(r->va, 100, 2, 0) < 0 &&
	      pat_diff((u8 *)r->va + 512, 200, 2, 100) < 0,
	      "two SENDs: data differs");
	expect_no_wc(CA(p), 100, "unsignalled SEND");
}

/* IB_SEND_INLINE: the data is taken at post time; the lkey is ignored. */
static void test_inline(struct pair *p, struct kbuf *r)
{
	struct ib_sge rsg = kbuf_sge(r, 0, 256), ssg;
	struct ib_wc wc;
	u8 *src;

	if (!CHECK(p->cap[0].max_inline_data >= 64,
		   "max_inline_data %u after asking for 64",
		   p->cap[0].max_inline_data))
		return;
	src = kmalloc(64, GFP_KERNEL);
	if (!CHECK(src, "kmalloc"))
		return;
	fill(src, 64, 5, 0);
	memset(r->va, 0, 256);
	ssg = (struct ib_sge){ .addr = (uintptr_t)src, .length = 64, .lkey = 0 };
	if (post_recv(PB(p), 0x121, &rsg, 1) ||
	    post_send(PA(p), IB_WR_SEND, 0x122, &ssg, 1,
		      IB_SEND_SIGNALED | IB_SEND_INLINE, 0))
		goto out;
	memset(src, 0xee, 64);
	expect_wc(CA(p), &wc, 0x122, IB_WC_SUCCESS, IB_WC_SEND,
		  "inline SEND, sender");
	if (expect_wc(CB(p), &wc, 0x121, IB_WC_SUCCESS, IB_WC_RECV,
		      "inline SEND, receiver")) {
		CHECK(wc.byte_len == 64, "inline SEND byte_len %u", wc.byte_len);
		kbuf_sync(r);
		CHECK(pat_diff(r->va, 64, 5, 0) < 0,
		      "inline SEND: data differs at %ld (not copied at post time?)",
		      pat_diff(r->va, 64, 5, 0));
	}
out:
	kfree(src);
}

/*
 * Posting as ULPs do from any context but hard interrupts: with
 * interrupts off (ib_mad posts under spin_lock_irqsave), and with bottom
 * halves off (completion handlers of IB_POLL_SOFTIRQ CQs).
 */
static void test_post_context(struct pair *p, struct kbuf *s, struct kbuf *r)
{
	struct ib_sge ssg[2] = { kbuf_sge(s, 0, 64), kbuf_sge(s, 64, 64) };
	struct ib_sge rsg[2] = { kbuf_sge(r, 0, 64), kbuf_sge(r, 64, 64) };
	struct ib_recv_wr rw[2] = {
		{ .wr_id = 0x141, .sg_list = &rsg[0], .num_sge = 1 },
		{ .wr_id = 0x142, .sg_list = &rsg[1], .num_sge = 1 },
	};
	struct ib_send_wr sw[2] = {
		{ .wr_id = 0x143, .sg_list = &ssg[0], .num_sge = 1,
		  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		{ .wr_id = 0x144, .sg_list = &ssg[1], .num_sge = 1,
		  .opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
	};
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	unsigned long flags;
	int er[2], es[2];
	struct ib_wc wc;

	fill(s->va, 128, 7, 0);
	memset(r->va, 0, 128);
	local_irq_save(flags);
	er[0] = ib_post_recv(PB(p), &rw[0], &rbad);
	es[0] = ib_post_send(PA(p), &sw[0], &sbad);
	local_irq_restore(flags);
	local_bh_disable();
	er[1] = ib_post_recv(PB(p), &rw[1], &rbad);
	es[1] = ib_post_send(PA(p), &sw[1], &sbad);
	local_bh_enable();
	if (!CHECK(!er[0] && !es[0] && !er[1] && !es[1],
		   "posting with interrupts off: %d %d, with BHs off: %d %d",
		   er[0], es[0], er[1], es[1]))
		return;
	expect_wc(CA(p), &wc, 0x143, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND posted with interrupts off");
	expect_wc(CA(p), &wc, 0x144, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND posted with BHs off");
	expect_wc(CB(p), &wc, 0x141, IB_WC_SUCCESS, IB_WC_RECV,
		  "receive posted with interrupts off");
	expect_wc(CB(p), &wc, 0x142, IB_WC_SUCCESS, IB_WC_RECV,
		  "receive posted with BHs off");
	kbuf_sync(r);
	CHECK(pat_diff(r->va, 128, 7, 0) < 0,
	      "SENDs posted with interrupts or BHs off: data differs");
}

/*
 * A SEND before the receive is posted: RNR NAKs (rnr_retry 7: for ever)
 * until it is, then it completes.
 */
static void test_rnr(struct pair *p, struct kbuf *s, struct kbuf *r)
{
	struct ib_sge ssg = kbuf_sge(s, 0, 128), rsg = kbuf_sge(r, 0, 128);
	struct ib_wc wc;

	fill(s->va, 128, 6, 0);
	memset(r->va, 0, 128);
	if (post_send(PA(p), IB_WR_SEND, 0x131, &ssg, 1, IB_SEND_SIGNALED, 0))
		return;
	expect_no_wc(CA(p), 50, "SEND with no receive posted");
	if (post_recv(PB(p), 0x130, &rsg, 1))
		return;
	expect_wc(CA(p), &wc, 0x131, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND retried after RNR, sender");
	if (expect_wc(CB(p), &wc, 0x130, IB_WC_SUCCESS, IB_WC_RECV,
		      "SEND retried after RNR, receiver")) {
		kbuf_sync(r);
		CHECK(wc.byte_len == 128 && pat_diff(r->va, 128, 6, 0) < 0,
		      "SEND after RNR: byte_len %u or data wrong", wc.byte_len);
	}
}

/* --- fast-reg MR -------------------------------------------------------------- */

#define MR_PAGES	4
#define MR_LEN		(MR_PAGES * PAGE_SIZE)

/*
 * A fast-reg MR over MR_PAGES separate pages. The region starts @off0
 * bytes into the first page and ends @lastlen bytes into the last one
 * (the first and last SG entries are partial pages); @zbva: mapped with
 * ib_map_mr_sg_zbva, so that its iova is 0.
 */
struct frmr {
	struct page *pages[MR_PAGES];
	struct scatterlist sgl[MR_PAGES];
	int nents;
	struct ib_mr *mr;
	u8 *model;		/* what the pages should hold */
	u32 off0, len;		/* the region within the pages */
	bool zbva;
};

static void frmr_free(struct frmr *f)
{
	int i, err;

	if (f->mr) {
		err = ib_dereg_mr(f->mr);
		CHECK(!err, "ib_dereg_mr: %d", err);
	}
	if (f->nents > 0)
		ib_dma_unmap_sg(kv.dev, f->sgl, MR_PAGES, DMA_BIDIRECTIONAL);
	for (i = 0; i < MR_PAGES; i++)
		if (f->pages[i])
			__free_page(f->pages[i]);
	kfree(f->model);
	memset(f, 0, sizeof(*f));
}

static bool frmr_alloc(struct frmr *f, u32 off0, u32 lastlen, bool zbva)
{
	int i;

	memset(f, 0, sizeof(*f));
	f->off0 = off0;
	f->len = MR_LEN - off0 - (PAGE_SIZE - lastlen);
	f->zbva = zbva;
	f->model = kmalloc(MR_LEN, GFP_KERNEL);
	if (!CHECK(f->model, "kmalloc"))
		return false;
	sg_init_table(f->sgl, MR_PAGES);
	/* Separate pages, in no particular order in memory. */
	for (i = 0; i < MR_PAGES; i++) {
		f->pages[i] = alloc_page(GFP_KERNEL);
		if (!CHECK(f->pages[i], "alloc_page"))
			goto err;
		fill(page_address(f->pages[i]), PAGE_SIZE, 0xb0, i * PAGE_SIZE);
		sg_set_page(&f->sgl[i], f->pages[i],
			    i == 0 ? PAGE_SIZE - off0 :
			    i == MR_PAGES - 1 ? lastlen : PAGE_SIZE,
			    i == 0 ? off0 : 0);
	}
	fill(f->model, MR_LEN, 0xb0, 0);
	f->nents = ib_dma_map_sg(kv.dev, f->sgl, MR_PAGES, DMA_BIDIRECTIONAL);
	if (!CHECK(f->nents > 0, "ib_dma_map_sg: %d", f->nents))
		goto err;
	f->mr = ib_alloc_mr(kv.pd, IB_MR_TYPE_MEM_REG, MR_PAGES);
	if (!CHECK(!IS_ERR(f->mr), "ib_alloc_mr(MEM_REG, %d): %ld", MR_PAGES,
		   PTR_ERR(f->mr))) {
		f->mr = NULL;
		goto err;
	}
	return true;
err:
	frmr_free(f);
	return false;
}

/* The pages hold what the model says. */
static bool frmr_check(struct frmr *f, const char *what)
{
	long d = -1;
	int i;

	for (i = 0; i < f->nents; i++)
		ib_dma_sync_single_for_cpu(kv.dev, sg_dma_address(&f->sgl[i]),
					   sg_dma_len(&f->sgl[i]),
					   DMA_BIDIRECTIONAL);
	for (i = 0; i < MR_PAGES && d < 0; i++) {
		d = mem_diff(page_address(f->pages[i]),
			     f->model + i * PAGE_SIZE, PAGE_SIZE);
		if (d >= 0)
			d += i * PAGE_SIZE;
	}
	return CHECK(d < 0, "%s: MR byte %ld is %#x, expected %#x", what, d,
		     d < 0 ? 0 : ((u8 *)page_address(f->pages[d / PAGE_SIZE]))[d % PAGE_SIZE],
		     d < 0 ? 0 : f->model[d]);
}

/*
 * ib_map_mr_sg and IB_WR_REG_MR posted on @qp (the responder's) with a new
 * key; the completion must be IB_WC_REG_MR.
 */
static bool frmr_register(struct frmr *f, struct ib_qp *qp, struct ib_cq *cq,
			  u64 wr_id)
{
	struct ib_reg_wr reg = {
		.wr = { .wr_id = wr_id, .opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED },
		.mr = f->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC,
	};
	const struct ib_send_wr *bad = NULL;
	struct ib_wc wc;
	int n, err;

	u64 iova = f->zbva ? 0 : sg_dma_address(f->sgl);

	if (f->zbva)
		n = ib_map_mr_sg_zbva(f->mr, f->sgl, f->nents, NULL, PAGE_SIZE);
	else
		n = ib_map_mr_sg(f->mr, f->sgl, f->nents, NULL, PAGE_SIZE);
	if (!CHECK(n == f->nents, "ib_map_mr_sg: %d of %d entries", n,
		   f->nents))
		return false;
	CHECK(f->mr->length == f->len && f->mr->iova == iova,
	      "ib_map_mr_sg: length %llu iova %#llx, expected %u at %#llx",
	      f->mr->length, f->mr->iova, f->len, iova);
	ib_update_fast_reg_key(f->mr, ib_inc_rkey(f->mr->rkey));
	reg.key = f->mr->rkey;
	err = ib_post_send(qp, &reg.wr, &bad);
	if (!CHECK(!err, "ib_post_send(REG_MR): %d", err))
		return false;
	return expect_wc(cq, &wc, wr_id, IB_WC_SUCCESS, IB_WC_REG_MR,
			 "IB_WR_REG_MR");
}

static int post_atomic(struct ib_qp *qp, enum ib_wr_opcode op, u64 wr_id,
		       struct ib_sge *sg, u64 raddr, u32 rkey, u64 compare_add,
		       u64 swap)
{
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED },
		.remote_addr = raddr,
		.compare_add = compare_add,
		.swap = swap,
		.rkey = rkey,
	};
	const struct ib_send_wr *bad = NULL;
	int err = ib_post_send(qp, &wr.wr, &bad);

	CHECK(!err, "ib_post_send(QP %u, atomic opcode %d): %d", qp->qp_num,
	      op, err);
	return err;
}

/*
 * FETCH_AND_ADD, then CMP_AND_SWP (a miss, then a hit) on a word of the MR:
 * the old values come back, the word changes as it should.
 */
static void test_atomics(struct pair *p, struct frmr *f, struct kbuf *d,
			 u32 rkey)
{
	const u32 off = 2048;
	u64 *word = (u64 *)(f->model + off), *res = d->va, old;
	struct ib_sge sg = kbuf_sge(d, 0, 8);
	struct ib_wc wc;

	if (kv.dev->attrs.atomic_cap == IB_ATOMIC_NONE) {
		pr_info(PFX "%s has no atomics: not tested\n", dev);
		return;
	}
	old = *word;
	*res = 0;
	if (post_atomic(PA(p), IB_WR_ATOMIC_FETCH_AND_ADD, 0x221, &sg,
			f->mr->iova + off, rkey, 5, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x221, IB_WC_SUCCESS, IB_WC_FETCH_ADD,
		      "FETCH_AND_ADD through a fast-reg MR")) {
		kbuf_sync(d);
		CHECK(*res == old, "FETCH_AND_ADD returned %#llx, not %#llx",
		      *res, old);
		*word = old + 5;
		frmr_check(f, "FETCH_AND_ADD");
	}
	/* A compare that misses leaves the word alone. */
	*res = 0;
	if (post_atomic(PA(p), IB_WR_ATOMIC_CMP_AND_SWP, 0x222, &sg,
			f->mr->iova + off, rkey, old, 0x0123456789abcdefULL))
		return;
	if (expect_wc(CA(p), &wc, 0x222, IB_WC_SUCCESS, IB_WC_COMP_SWAP,
		      "CMP_AND_SWP (miss)")) {
		kbuf_sync(d);
		CHECK(*res == old + 5, "CMP_AND_SWP (miss) returned %#llx, not %#llx",
		      *res, old + 5);
		frmr_check(f, "CMP_AND_SWP (miss)");
	}
	*res = 0;
	if (post_atomic(PA(p), IB_WR_ATOMIC_CMP_AND_SWP, 0x223, &sg,
			f->mr->iova + off, rkey, old + 5, 0x0123456789abcdefULL))
		return;
	if (expect_wc(CA(p), &wc, 0x223, IB_WC_SUCCESS, IB_WC_COMP_SWAP,
		      "CMP_AND_SWP (hit)")) {
		kbuf_sync(d);
		CHECK(*res == old + 5, "CMP_AND_SWP (hit) returned %#llx, not %#llx",
		      *res, old + 5);
		*word = 0x0123456789abcdefULL;
		frmr_check(f, "CMP_AND_SWP (hit)");
	}
}

/*
 * Pair 1: REG_MR on B; WRITE, WRITE_WITH_IMM and READ from A through it;
 * LOCAL_INV on B; a WRITE with the stale rkey fails. Leaves the pair dead.
 */
static void test_fastreg(struct pair *p, struct frmr *f, struct kbuf *s,
			 struct kbuf *d)
{
	const u32 woff = 100, wlen = 3 * PAGE_SIZE;
	const u32 roff = 1234, rlen = MR_LEN - 1234 - 11;
	__be32 imm = cpu_to_be32(0xfeed0001);
	struct ib_sge sg[2];
	struct ib_wc wc;
	u32 rkey;

	if (!frmr_register(f, PB(p), CB(p), 0x201))
		return;
	rkey = f->mr->rkey;

	/* WRITE 3 pages from two local SGEs to an unaligned offset. */
	fill(s->va, wlen, 0xa0, 0);
	sg[0] = kbuf_sge(s, 0, 5000);
	sg[1] = kbuf_sge(s, 5000, wlen - 5000);
	if (post_rdma(PA(p), IB_WR_RDMA_WRITE, 0x202, sg, 2,
		      f->mr->iova + woff, rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x202, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		      "RDMA WRITE through a fast-reg MR")) {
		memcpy(f->model + woff, s->va, wlen);
		frmr_check(f, "RDMA WRITE");
	}

	/* WRITE_WITH_IMM to the last 500 bytes: consumes a receive. */
	fill(s->va, 500, 0xa1, 0);
	sg[0] = kbuf_sge(s, 0, 500);
	if (post_recv(PB(p), 0x203, NULL, 0) ||
	    post_rdma(PA(p), IB_WR_RDMA_WRITE_WITH_IMM, 0x204, sg, 1,
		      f->mr->iova + MR_LEN - 500, rkey, imm))
		return;
	expect_wc(CA(p), &wc, 0x204, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		  "RDMA WRITE_WITH_IMM, requester");
	if (expect_wc(CB(p), &wc, 0x203, IB_WC_SUCCESS,
		      IB_WC_RECV_RDMA_WITH_IMM, "RDMA WRITE_WITH_IMM, responder")) {
		CHECK(wc.byte_len == 500, "WRITE_WITH_IMM byte_len %u",
		      wc.byte_len);
		CHECK((wc.wc_flags & IB_WC_WITH_IMM) && wc.ex.imm_data == imm,
		      "WRITE_WITH_IMM: wc_flags %#x imm %#x", wc.wc_flags,
		      be32_to_cpu(wc.ex.imm_data));
		memcpy(f->model + MR_LEN - 500, s->va, 500);
		frmr_check(f, "RDMA WRITE_WITH_IMM");
	}

	/* READ most of it back, from an unaligned offset, into two SGEs. */
	memset(d->va, 0, d->len);
	sg[0] = kbuf_sge(d, 0, 7000);
	sg[1] = kbuf_sge(d, 7000, rlen - 7000);
	if (post_rdma(PA(p), IB_WR_RDMA_READ, 0x205, sg, 2,
		      f->mr->iova + roff, rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x205, IB_WC_SUCCESS, IB_WC_RDMA_READ,
		      "RDMA READ through a fast-reg MR")) {
		CHECK(wc.byte_len == rlen, "RDMA READ byte_len %u, not %u",
		      wc.byte_len, rlen);
		kbuf_sync(d);
		CHECK(mem_diff(d->va, f->model + roff, rlen) < 0,
		      "RDMA READ: data differs at %ld",
		      mem_diff(d->va, f->model + roff, rlen));
		CHECK(all_zero((u8 *)d->va + rlen, d->len - rlen),
		      "RDMA READ: wrote past the local SGEs");
	}

	test_atomics(p, f, d, rkey);

	/* LOCAL_INV on B; the stale rkey must be refused. */
	if (post_send(PB(p), IB_WR_LOCAL_INV, 0x206, NULL, 0,
		      IB_SEND_SIGNALED, cpu_to_be32(rkey)))
		return;
	if (!expect_wc(CB(p), &wc, 0x206, IB_WC_SUCCESS, IB_WC_LOCAL_INV,
		       "IB_WR_LOCAL_INV"))
		return;
	fill(s->va, 64, 0xa2, 0);
	sg[0] = kbuf_sge(s, 0, 64);
	if (post_rdma(PA(p), IB_WR_RDMA_WRITE, 0x207, sg, 1, f->mr->iova,
		      rkey, 0))
		return;
	expect_wc(CA(p), &wc, 0x207, IB_WC_REM_ACCESS_ERR, -1,
		  "RDMA WRITE with an invalidated rkey");
	frmr_check(f, "RDMA WRITE with an invalidated rkey");
	wait_state(PA(p), IB_QPS_ERR);
	/* The responder reports it: local access violation WQ error. */
	expect_event(PB(p), IB_EVENT_QP_ACCESS_ERR, true,
		     "responder of a WRITE with an invalidated rkey");
}

/*
 * Pair 2, first: an MR that starts 512 bytes into its first page and ends
 * 1000 bytes into its last, zero-based (ib_map_mr_sg_zbva): WRITE all of
 * it, READ it back from an offset, LOCAL_INV.
 */
static void test_mr_offset(struct pair *p, struct frmr *f, struct kbuf *s,
			   struct kbuf *d)
{
	struct ib_sge sg;
	struct ib_wc wc;
	u32 rkey;

	if (!frmr_register(f, PB(p), CB(p), 0x231))
		return;
	rkey = f->mr->rkey;
	fill(s->va, f->len, 0xa5, 0);
	sg = kbuf_sge(s, 0, f->len);
	if (post_rdma(PA(p), IB_WR_RDMA_WRITE, 0x232, &sg, 1, f->mr->iova,
		      rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x232, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		      "RDMA WRITE to a zero-based MR with partial pages")) {
		memcpy(f->model + f->off0, s->va, f->len);
		frmr_check(f, "RDMA WRITE to a zero-based MR with partial pages");
	}
	memset(d->va, 0, d->len);
	sg = kbuf_sge(d, 0, f->len - 100);
	if (post_rdma(PA(p), IB_WR_RDMA_READ, 0x233, &sg, 1,
		      f->mr->iova + 100, rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x233, IB_WC_SUCCESS, IB_WC_RDMA_READ,
		      "RDMA READ from a zero-based MR with partial pages")) {
		kbuf_sync(d);
		CHECK(mem_diff(d->va, f->model + f->off0 + 100, f->len - 100) < 0,
		      "RDMA READ from a zero-based MR: data differs at %ld",
		      mem_diff(d->va, f->model + f->off0 + 100, f->len - 100));
	}
	if (!post_send(PB(p), IB_WR_LOCAL_INV, 0x234, NULL, 0,
		       IB_SEND_SIGNALED, cpu_to_be32(rkey)))
		expect_wc(CB(p), &wc, 0x234, IB_WC_SUCCESS, IB_WC_LOCAL_INV,
			  "IB_WR_LOCAL_INV of the zero-based MR");
}

/*
 * Pair 2 (PSNs wrap): the MR registered again; WRITE and READ; SEND_WITH_INV
 * invalidates it; a READ with its rkey then fails. Leaves the pair dead.
 */
static void test_send_inv(struct pair *p, struct frmr *f, struct kbuf *s,
			  struct kbuf *d)
{
	struct ib_sge sg;
	struct ib_wc wc;
	u32 rkey;

	if (!frmr_register(f, PB(p), CB(p), 0x211))
		return;
	rkey = f->mr->rkey;

	fill(s->va, MR_LEN, 0xa3, 0);
	sg = kbuf_sge(s, 0, MR_LEN);
	if (post_rdma(PA(p), IB_WR_RDMA_WRITE, 0x212, &sg, 1, f->mr->iova,
		      rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x212, IB_WC_SUCCESS, IB_WC_RDMA_WRITE,
		      "RDMA WRITE, MR registered again")) {
		memcpy(f->model, s->va, MR_LEN);
		frmr_check(f, "RDMA WRITE, MR registered again");
	}
	memset(d->va, 0, d->len);
	sg = kbuf_sge(d, 0, MR_LEN);
	if (post_rdma(PA(p), IB_WR_RDMA_READ, 0x213, &sg, 1, f->mr->iova,
		      rkey, 0))
		return;
	if (expect_wc(CA(p), &wc, 0x213, IB_WC_SUCCESS, IB_WC_RDMA_READ,
		      "RDMA READ, MR registered again")) {
		kbuf_sync(d);
		CHECK(mem_diff(d->va, f->model, MR_LEN) < 0,
		      "RDMA READ, MR registered again: data differs at %ld",
		      mem_diff(d->va, f->model, MR_LEN));
	}

	/* SEND_WITH_INV of 32 bytes naming B's rkey. */
	fill(s->va, 32, 0xa4, 0);
	memset(d->va, 0, 256);
	sg = kbuf_sge(d, 0, 256);
	if (post_recv(PB(p), 0x214, &sg, 1))
		return;
	sg = kbuf_sge(s, 0, 32);
	if (post_send(PA(p), IB_WR_SEND_WITH_INV, 0x215, &sg, 1,
		      IB_SEND_SIGNALED, cpu_to_be32(rkey)))
		return;
	expect_wc(CA(p), &wc, 0x215, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND_WITH_INV, sender");
	if (expect_wc(CB(p), &wc, 0x214, IB_WC_SUCCESS, IB_WC_RECV,
		      "SEND_WITH_INV, receiver")) {
		CHECK(wc.byte_len == 32, "SEND_WITH_INV byte_len %u",
		      wc.byte_len);
		CHECK(wc.wc_flags & IB_WC_WITH_INVALIDATE,
		      "SEND_WITH_INV: no IB_WC_WITH_INVALIDATE (wc_flags %#x)",
		      wc.wc_flags);
		CHECK(wc.ex.invalidate_rkey == rkey,
		      "SEND_WITH_INV: invalidate_rkey %#x, not %#x",
		      wc.ex.invalidate_rkey, rkey);
		kbuf_sync(d);
		CHECK(pat_diff(d->va, 32, 0xa4, 0) < 0,
		      "SEND_WITH_INV: data differs");
	}

	/* The invalidated MR refuses access. */
	sg = kbuf_sge(d, 0, 64);
	if (post_rdma(PA(p), IB_WR_RDMA_READ, 0x216, &sg, 1, f->mr->iova,
		      rkey, 0))
		return;
	expect_wc(CA(p), &wc, 0x216, IB_WC_REM_ACCESS_ERR, -1,
		  "RDMA READ from an MR invalidated by SEND_WITH_INV");
	wait_state(PA(p), IB_QPS_ERR);
	expect_event(PB(p), IB_EVENT_QP_ACCESS_ERR, true,
		     "responder of a READ from an invalidated MR");
}

static void test_rc(void)
{
	struct kbuf s = {}, r = {}, d = {};
	struct frmr f = {}, f2 = {};
	struct pair p;

	if (!kbuf_alloc(&s, 4 * PAGE_SIZE) || !kbuf_alloc(&r, 8192) ||
	    !kbuf_alloc(&d, 4 * PAGE_SIZE) || !frmr_alloc(&f, 0, PAGE_SIZE, false) ||
	    !frmr_alloc(&f2, 512, 1000, true))
		goto out;

	if (pair_create(&p, "RC pair 1", 0x1000, 0x2000, 64)) {
		test_send_imm(&p, &s, &r);
		test_unsignaled(&p, &s, &r);
		test_inline(&p, &r);
		test_rnr(&p, &s, &r);
		test_post_context(&p, &s, &r);
		test_fastreg(&p, &f, &s, &d);
		pair_destroy(&p);
	}
	/* PSNs just below 2^24: the first WRITE (13 packets) wraps them. */
	if (pair_create(&p, "RC pair 2", 0xfffff8, 0xfffffa, 0)) {
		test_mr_offset(&p, &f2, &s, &d);
		test_send_inv(&p, &f, &s, &d);
		pair_destroy(&p);
	}
out:
	frmr_free(&f);
	frmr_free(&f2);
	kbuf_free(&s);
	kbuf_free(&r);
	kbuf_free(&d);
}

/* --- flush (ib_drain_qp by hand) ------------------------------------------------ */

static void test_flush(void)
{
	struct kbuf b = {};
	struct ib_sge sg;
	struct pair p;
	struct ib_wc wc;
	char what[64];
	int i;

	if (!kbuf_alloc(&b, 8 * 64))
		return;
	if (!pair_create(&p, "flush pair", 0x3000, 0x4000, 0))
		goto out;
	for (i = 0; i < 5; i++) {
		sg = kbuf_sge(&b, i * 64, 64);
		if (post_recv(PB(&p), 0x300 + i, &sg, 1))
			goto out_pair;
	}
	sg = kbuf_sge(&b, 6 * 64, 64);
	if (post_recv(PA(&p), 0x310, &sg, 1))
		goto out_pair;
	sg = kbuf_sge(&b, 7 * 64, 64);
	if (post_send(PA(&p), IB_WR_SEND, 0x320, &sg, 1, IB_SEND_SIGNALED, 0))
		goto out_pair;
	expect_wc(CA(&p), &wc, 0x320, IB_WC_SUCCESS, IB_WC_SEND,
		  "SEND before the flush");
	expect_wc(CB(&p), &wc, 0x300, IB_WC_SUCCESS, IB_WC_RECV,
		  "receive before the flush");

	/* B to ERR: its four remaining receives flush, in order. */
	if (to_err(PB(&p)))
		goto out_pair;
	for (i = 1; i < 5; i++) {
		snprintf(what, sizeof(what), "flush of outstanding receive %d", i);
		if (!expect_wc(CB(&p), &wc, 0x300 + i, IB_WC_WR_FLUSH_ERR, -1,
			       what))
			break;
		CHECK(wc.qp == PB(&p), "%s: wc.qp is not the QP", what);
	}
	CHECK(qp_state(PB(&p)) == IB_QPS_ERR, "QP state %d after modify to ERR",
	      qp_state(PB(&p)));
	/*
	 * What ib_drain_sq/ib_drain_rq post once the QP is in ERR: a WRITE
	 * in a whole ib_rdma_wr, which the driver may read all of.
	 */
	if (!post_rdma(PB(&p), IB_WR_RDMA_WRITE, 0x330, NULL, 0, 0, 0, 0))
		expect_wc(CB(&p), &wc, 0x330, IB_WC_WR_FLUSH_ERR, -1,
			  "send posted in ERR (ib_drain_sq's marker)");
	sg = kbuf_sge(&b, 0, 64);
	if (!post_recv(PB(&p), 0x331, &sg, 1))
		expect_wc(CB(&p), &wc, 0x331, IB_WC_WR_FLUSH_ERR, -1,
			  "receive posted in ERR (ib_drain_rq's marker)");
	expect_no_wc(CB(&p), 100, "after the flush");

	/* A to ERR too: its receive flushes. */
	if (!to_err(PA(&p)))
		expect_wc(CA(&p), &wc, 0x310, IB_WC_WR_FLUSH_ERR, -1,
			  "flush of the requester's receive");
out_pair:
	pair_destroy(&p);
out:
	kbuf_free(&b);
}

/* --- post-time errors ------------------------------------------------------------ */

/*
 * Moves @qp to ERR and checks that exactly the send WRs [s0, s0 + ns) and
 * receive WRs [r0, r0 + nr) flush, each once, each queue in order.
 */
static void expect_flushes(struct ib_qp *qp, struct ib_cq *cq, u64 s0,
			   int ns, u64 r0, int nr, const char *what)
{
	int gots = 0, gotr = 0, bad = 0;
	struct ib_wc wc;

	if (to_err(qp))
		return;
	while (gots + gotr < ns + nr) {
		if (poll_wc(cq, &wc, timeout_ms))
			break;
		if (wc.status != IB_WC_WR_FLUSH_ERR || wc.qp != qp)
			bad++;
		else if (wc.wr_id == s0 + gots)
			gots++;
		else if (wc.wr_id == r0 + gotr)
			gotr++;
		else
			bad++;
		if (bad) {
			CHECK(0, "%s: completion wr_id %#llx status '%s' after %d send and %d receive flushes",
			      what, wc.wr_id, wc_status(wc.status), gots, gotr);
			return;
		}
	}
	CHECK(gots == ns && gotr == nr,
	      "%s: %d of %d sends and %d of %d receives flushed", what, gots,
	      ns, gotr, nr);
	expect_no_wc(cq, 50, what);
}

static void test_post_errors_init(struct kbuf *b)
{
	struct ib_send_wr *sw = NULL;
	struct ib_recv_wr *rw = NULL;
	const struct ib_send_wr *sbad;
	const struct ib_recv_wr *rbad;
	struct ib_sge sg = kbuf_sge(b, 0, 16), *sgs = NULL;
	struct ib_qp_cap cap;
	struct ib_cq *cq;
	struct ib_qp *qp;
	int i, err, ns = 0, nr = 0;
	u32 cs, cr;

	cq = cq_alloc(256, "post errors");
	qp = qp_create(IB_QPT_RC, cq, NULL, 8, 2, 0, &cap, "post errors");
	if (!qp)
		goto out;
	cs = cap.max_send_wr;
	cr = cap.max_recv_wr;
	if (!CHECK(cs + cr <= 200 && cap.max_recv_sge <= 64,
		   "caps %u/%u/%u too large for this test", cs, cr,
		   cap.max_recv_sge))
		goto out;
	sw = kcalloc(cs + 1, sizeof(*sw), GFP_KERNEL);
	rw = kcalloc(cr + 1, sizeof(*rw), GFP_KERNEL);
	sgs = kcalloc(cap.max_recv_sge + 1, sizeof(*sgs), GFP_KERNEL);
	if (!CHECK(sw && rw && sgs, "kcalloc"))
		goto out;

	/* RESET: both refused at once. */
	sw[0] = (struct ib_send_wr){ .wr_id = 1, .sg_list = &sg, .num_sge = 1,
				     .opcode = IB_WR_SEND };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	CHECK(err == -EINVAL && sbad == &sw[0],
	      "ib_post_send in RESET: %d, bad_wr %s", err,
	      sbad == &sw[0] ? "ok" : "wrong");
	rw[0] = (struct ib_recv_wr){ .wr_id = 2, .sg_list = &sg, .num_sge = 1 };
	rbad = NULL;
	err = ib_post_recv(qp, &rw[0], &rbad);
	CHECK(err == -EINVAL && rbad == &rw[0],
	      "ib_post_recv in RESET: %d, bad_wr %s", err,
	      rbad == &rw[0] ? "ok" : "wrong");

	if (rc_to_init(qp))
		goto out;

	/* Too many receive SGEs. */
	for (i = 0; i <= cap.max_recv_sge; i++)
		sgs[i] = kbuf_sge(b, 0, 8);
	rw[0] = (struct ib_recv_wr){ .wr_id = 3, .sg_list = sgs,
				     .num_sge = cap.max_recv_sge + 1 };
	rbad = NULL;
	err = ib_post_recv(qp, &rw[0], &rbad);
	CHECK(err == -EINVAL && rbad == &rw[0],
	      "ib_post_recv with %u SGEs (max_recv_sge %u): %d, bad_wr %s",
	      cap.max_recv_sge + 1, cap.max_recv_sge, err,
	      rbad == &rw[0] ? "ok" : "wrong");

	/* The RQ filled: a chain one longer than it, then one more. */
	for (i = 0; i <= cr; i++)
		rw[i] = (struct ib_recv_wr){ .wr_id = 0x2000 + i,
			.sg_list = &sg, .num_sge = 1,
			.next = i < cr ? &rw[i + 1] : NULL };
	rbad = NULL;
	err = ib_post_recv(qp, &rw[0], &rbad);
	if (CHECK(err == -ENOMEM && rbad == &rw[cr],
		  "ib_post_recv of %u WRs into an RQ of %u: %d, bad_wr at %ld",
		  cr + 1, cr, err, rbad ? (long)(rbad - rw) : -1L))
		nr = cr;
	else if (rbad >= rw && rbad <= &rw[cr])
		nr = rbad - rw;
	rw[cr].next = NULL;
	rbad = NULL;
	err = ib_post_recv(qp, &rw[cr], &rbad);
	CHECK(err == -ENOMEM && rbad == &rw[cr],
	      "ib_post_recv into a full RQ: %d", err);

	/* The SQ filled in INIT: sends wait there for RTS. */
	for (i = 0; i <= cs; i++)
		sw[i] = (struct ib_send_wr){ .wr_id = 0x1000 + i,
			.sg_list = &sg, .num_sge = 1, .opcode = IB_WR_SEND,
			.next = i < cs ? &sw[i + 1] : NULL };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	if (err == -EINVAL && sbad == &sw[0] &&
	    QUIRK("ib_post_send in INIT fails with -EINVAL (rxe takes sends from RTS on)")) {
		ns = 0;
	} else if (CHECK(err == -ENOMEM && sbad == &sw[cs],
			 "ib_post_send of %u WRs into an SQ of %u in INIT: %d, bad_wr at %ld",
			 cs + 1, cs, err, sbad ? (long)(sbad - sw) : -1L)) {
		ns = cs;
	} else if (sbad >= sw && sbad <= &sw[cs]) {
		ns = sbad - sw;
	}
	expect_flushes(qp, cq, 0x1000, ns, 0x2000, nr, "QP in INIT moved to ERR");
out:
	qp_destroy(qp);
	cq_free(cq);
	kfree(sw);
	kfree(rw);
	kfree(sgs);
}

/*
 * A QP in RTS whose peer stays in INIT (drops everything, never ACKs): the
 * WRs it sent stay on its SQ. Post-time checks of bad WRs, then the SQ
 * filled, then everything flushed.
 */
static void test_post_errors_rts(struct kbuf *b)
{
	struct ib_send_wr *sw = NULL;
	const struct ib_send_wr *sbad;
	struct ib_sge sg = kbuf_sge(b, 0, 16), *sgs = NULL;
	struct ib_cq *cq = NULL, *cq2 = NULL;
	struct ib_qp *qp = NULL, *peer = NULL;
	struct ib_qp_cap cap;
	int i, err, ns = 0, nsge;
	u32 cs;
	u8 *inl = NULL;

	cq = cq_alloc(256, "post errors in RTS");
	cq2 = cq_alloc(16, "silent peer");
	qp = qp_create(IB_QPT_RC, cq, NULL, 8, 2, 32, &cap, "post errors in RTS");
	peer = qp_create(IB_QPT_RC, cq2, NULL, 8, 2, 0, NULL, "silent peer");
	if (!qp || !peer)
		goto out;
	cs = cap.max_send_wr;
	nsge = cap.max_send_sge + 1;
	if (!CHECK(cs >= 4 && cs <= 200 && nsge <= 256,
		   "caps %u/%u unusable for this test", cs, cap.max_send_sge))
		goto out;
	sw = kcalloc(cs + 1, sizeof(*sw), GFP_KERNEL);
	sgs = kcalloc(nsge, sizeof(*sgs), GFP_KERNEL);
	inl = kzalloc(cap.max_inline_data + 1, GFP_KERNEL);
	if (!CHECK(sw && sgs && inl, "kcalloc"))
		goto out;
	/* Timeout 20: 4 s before the first retry, far beyond this test. */
	if (rc_to_init(peer) || rc_to_init(qp) ||
	    rc_to_rtr(qp, peer->qp_num, 0x5000) ||
	    rc_to_rts(qp, 0x6000, 20))
		goto out;

	/* Too many send SGEs. */
	for (i = 0; i < nsge; i++)
		sgs[i] = kbuf_sge(b, 0, 8);
	sw[0] = (struct ib_send_wr){ .wr_id = 1, .sg_list = sgs,
				     .num_sge = nsge, .opcode = IB_WR_SEND,
				     .send_flags = IB_SEND_SIGNALED };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	CHECK(err == -EINVAL && sbad == &sw[0],
	      "ib_post_send with %d SGEs (max_send_sge %u): %d, bad_wr %s",
	      nsge, cap.max_send_sge, err, sbad == &sw[0] ? "ok" : "wrong");

	/* An opcode no RC QP has. */
	sw[0] = (struct ib_send_wr){ .wr_id = 2, .sg_list = &sg, .num_sge = 1,
				     .opcode = IB_WR_LSO,
				     .send_flags = IB_SEND_SIGNALED };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	CHECK(err == -EINVAL && sbad == &sw[0],
	      "ib_post_send(IB_WR_LSO) on RC: %d, bad_wr %s", err,
	      sbad == &sw[0] ? "ok" : "wrong");

	/* Inline data over max_inline_data. */
	sgs[0] = (struct ib_sge){ .addr = (uintptr_t)inl,
				  .length = cap.max_inline_data + 1 };
	sw[0] = (struct ib_send_wr){ .wr_id = 3, .sg_list = sgs, .num_sge = 1,
				     .opcode = IB_WR_SEND,
				     .send_flags = IB_SEND_SIGNALED |
						   IB_SEND_INLINE };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	CHECK(err == -EINVAL && sbad == &sw[0],
	      "ib_post_send of %u inline bytes (max_inline_data %u): %d, bad_wr %s",
	      cap.max_inline_data + 1, cap.max_inline_data, err,
	      sbad == &sw[0] ? "ok" : "wrong");

	/* A chain whose third WR is bad: the first two are posted. */
	for (i = 0; i < 3; i++)
		sw[i] = (struct ib_send_wr){ .wr_id = 0x1000 + i,
			.sg_list = &sg, .num_sge = 1,
			.opcode = i < 2 ? IB_WR_SEND : IB_WR_LSO,
			.send_flags = IB_SEND_SIGNALED,
			.next = i < 2 ? &sw[i + 1] : NULL };
	sbad = NULL;
	err = ib_post_send(qp, &sw[0], &sbad);
	if (CHECK(err == -EINVAL && sbad == &sw[2],
		  "chain SEND, SEND, LSO: %d, bad_wr at %ld", err,
		  sbad ? (long)(sbad - sw) : -1L))
		ns = 2;
	else if (!err)
		ns = 3;
	else if (sbad >= sw && sbad <= &sw[2])
		ns = sbad - sw;

	/* Fill the SQ: the WRs sent wait for ACKs that never come. */
	if (ns == 2) {
		int n = cs - 2;

		for (i = 0; i <= n; i++)
			sw[i] = (struct ib_send_wr){ .wr_id = 0x1002 + i,
				.sg_list = &sg, .num_sge = 1,
				.opcode = IB_WR_SEND,
				.send_flags = IB_SEND_SIGNALED,
				.next = i < n ? &sw[i + 1] : NULL };
		sbad = NULL;
		err = ib_post_send(qp, &sw[0], &sbad);
		if (CHECK(err == -ENOMEM && sbad == &sw[n],
			  "ib_post_send filling an SQ of %u in RTS (2 WRs outstanding): %d, bad_wr at %ld of %d",
			  cs, err, sbad ? (long)(sbad - sw) : -1L, n + 1))
			ns += n;
		else if (sbad >= sw && sbad <= &sw[n])
			ns += sbad - sw;
	}
	expect_flushes(qp, cq, 0x1000, ns, 0, 0, "QP in RTS moved to ERR");
	expect_no_wc(cq2, 10, "silent peer in INIT");
out:
	qp_destroy(qp);
	qp_destroy(peer);
	cq_free(cq);
	cq_free(cq2);
	kfree(sw);
	kfree(sgs);
	kfree(inl);
}

/* --- SRQ ------------------------------------------------------------------------------- */

static void test_srq(void)
{
	struct ib_srq_init_attr sia = {
		.event_handler = srq_event,
		.attr = { .max_wr = 16, .max_sge = 2 },
		.srq_type = IB_SRQT_BASIC,
	};
	struct ib_qp *a[2] = {}, *bq[2] = {};
	struct ib_recv_wr *rw = NULL;
	const struct ib_recv_wr *rbad;
	struct ib_cq *ca = NULL, *cb = NULL;
	struct ib_srq_attr sa;
	struct ib_srq *srq;
	struct kbuf s = {}, r = {};
	struct ib_sge sg, rsg[64];
	struct ib_wc wc;
	bool seen[4] = {};
	int i, err, n;
	u32 len[2] = { 100, 300 };

	srq = ib_create_srq(kv.pd, &sia);
	if (!CHECK(!IS_ERR(srq), "ib_create_srq: %ld", PTR_ERR(srq)))
		return;
	if (!kbuf_alloc(&s, 1024) || !kbuf_alloc(&r, 64 * 512))
		goto out;
	ca = cq_alloc(64, "SRQ senders");
	cb = cq_alloc(64, "SRQ receivers");
	for (i = 0; i < 2; i++) {
		a[i] = qp_create(IB_QPT_RC, ca, NULL, 8, 2, 0, NULL, "SRQ sender");
		bq[i] = qp_create(IB_QPT_RC, cb, srq, 8, 2, 0, NULL, "SRQ receiver");
		if (!a[i] || !bq[i] ||
		    rc_connect(a[i], bq[i]->qp_num, 0x7000 + i, 0x8000 + i) ||
		    rc_connect(bq[i], a[i]->qp_num, 0x8000 + i, 0x7000 + i))
			goto out;
	}

	sg = kbuf_sge(&r, 0, 64);
	{
		struct ib_recv_wr w = { .wr_id = 1, .sg_list = &sg, .num_sge = 1 };

		rbad = NULL;
		err = ib_post_recv(bq[0], &w, &rbad);
		CHECK(err == -EINVAL && rbad == &w,
		      "ib_post_recv on a QP with an SRQ: %d", err);
	}

	err = ib_query_srq(srq, &sa);
	if (!CHECK(!err && sa.max_wr >= 16 && sa.max_wr < 64 && sa.max_sge >= 2,
		   "ib_query_srq: %d, max_wr %u max_sge %u", err, sa.max_wr,
		   sa.max_sge))
		goto out;
	rw = kcalloc(sa.max_wr + 1, sizeof(*rw), GFP_KERNEL);
	if (!CHECK(rw, "kcalloc"))
		goto out;

	/* Four receives, slot i of 512 bytes for wr_id 0x400 + i. */
	for (i = 0; i < 4; i++) {
		rsg[i] = kbuf_sge(&r, i * 512, 512);
		rw[i] = (struct ib_recv_wr){ .wr_id = 0x400 + i,
			.sg_list = &rsg[i], .num_sge = 1,
			.next = i < 3 ? &rw[i + 1] : NULL };
	}
	rbad = NULL;
	err = ib_post_srq_recv(srq, &rw[0], &rbad);
	if (!CHECK(!err, "ib_post_srq_recv of 4: %d", err))
		goto out;

	/* Each sender sends once; the receiver is told by wc.qp. */
	for (i = 0; i < 2; i++) {
		fill((u8 *)s.va + i * 512, len[i], 0x40 + i, 0);
		sg = kbuf_sge(&s, i * 512, len[i]);
		if (post_send(a[i], IB_WR_SEND, 0x410 + i, &sg, 1,
			      IB_SEND_SIGNALED, 0))
			goto out;
	}
	for (i = 0; i < 2; i++) {
		if (!CHECK(!poll_wc(ca, &wc, timeout_ms), "SRQ: send completion %d", i))
			break;
		CHECK(wc.status == IB_WC_SUCCESS &&
		      (wc.wr_id == 0x410 || wc.wr_id == 0x411),
		      "SRQ: send completion wr_id %#llx status '%s'", wc.wr_id,
		      wc_status(wc.status));
	}
	for (i = 0; i < 2; i++) {
		int who, slot;

		if (!CHECK(!poll_wc(cb, &wc, timeout_ms),
			   "SRQ: receive completion %d of 2", i + 1))
			break;
		if (!CHECK(wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_RECV,
			   "SRQ: receive status '%s' opcode %d",
			   wc_status(wc.status), wc.opcode))
			continue;
		who = wc.qp == bq[0] ? 0 : wc.qp == bq[1] ? 1 : -1;
		slot = wc.wr_id - 0x400;
		if (!CHECK(who >= 0, "SRQ: wc.qp is neither receiving QP") ||
		    !CHECK(slot >= 0 && slot < 2 && !seen[slot],
			   "SRQ: receive wr_id %#llx, expected 0x400 or 0x401 once each",
			   wc.wr_id))
			continue;
		seen[slot] = true;
		kbuf_sync(&r);
		CHECK(wc.byte_len == len[who] &&
		      pat_diff((u8 *)r.va + slot * 512, len[who], 0x40 + who, 0) < 0,
		      "SRQ: QP %d got %u bytes in slot %d, not sender %d's %u",
		      who, wc.byte_len, slot, who, len[who]);
	}

	/* Fill the SRQ: 2 outstanding, a chain one longer than the room. */
	n = sa.max_wr - 2;
	for (i = 0; i <= n; i++) {
		rsg[i] = kbuf_sge(&r, (4 + i) * 512 % r.len, 512);
		rw[i] = (struct ib_recv_wr){ .wr_id = 0x500 + i,
			.sg_list = &rsg[i], .num_sge = 1,
			.next = i < n ? &rw[i + 1] : NULL };
	}
	rbad = NULL;
	err = ib_post_srq_recv(srq, &rw[0], &rbad);
	CHECK(err == -ENOMEM && rbad == &rw[n],
	      "ib_post_srq_recv of %d into an SRQ of %u holding 2: %d, bad_wr at %ld",
	      n + 1, sa.max_wr, err, rbad ? (long)(rbad - rw) : -1L);

	/* A QP of the SRQ to ERR: last WQE reached, no SRQ WQE flushed. */
	if (!to_err(bq[0])) {
		expect_event(bq[0], IB_EVENT_QP_LAST_WQE_REACHED, true,
			     "QP of an SRQ moved to ERR");
		expect_no_wc(cb, 100, "SRQ QP moved to ERR");
	}
	/* The SRQ still serves the other QP: its next WQE is 0x402. */
	fill(s.va, 50, 0x43, 0);
	sg = kbuf_sge(&s, 0, 50);
	if (!post_send(a[1], IB_WR_SEND, 0x420, &sg, 1, IB_SEND_SIGNALED, 0)) {
		expect_wc(ca, &wc, 0x420, IB_WC_SUCCESS, IB_WC_SEND,
			  "SRQ after a QP's error, sender");
		if (expect_wc(cb, &wc, 0x402, IB_WC_SUCCESS, IB_WC_RECV,
			      "SRQ after a QP's error, receiver"))
			CHECK(wc.qp == bq[1] && wc.byte_len == 50,
			      "SRQ after a QP's error: wrong QP or byte_len %u",
			      wc.byte_len);
	}
out:
	for (i = 0; i < 2; i++) {
		qp_destroy(a[i]);
		qp_destroy(bq[i]);
	}
	cq_free(ca);
	cq_free(cb);
	forget_events(srq);
	ib_destroy_srq(srq);
	kfree(rw);
	kbuf_free(&s);
	kbuf_free(&r);
}

/* --- UD ------------------------------------------------------------------------------------ */

#define QKEY 0x11111111

static int ud_ready(struct ib_qp *qp)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT, .pkey_index = 0, .port_num = kv.port,
		.qkey = QKEY,
	};

	if (modify(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		   IB_QP_QKEY, "INIT (UD)"))
		return -EINVAL;
	a.qp_state = IB_QPS_RTR;
	if (modify(qp, &a, IB_QP_STATE, "RTR (UD)"))
		return -EINVAL;
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x9000;
	return modify(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN, "RTS (UD)");
}

static int ud_send(struct ib_qp *qp, struct ib_ah *ah, u32 dqpn, u32 qkey,
		   enum ib_wr_opcode op, u64 wr_id, struct ib_sge *sg,
		   __be32 imm)
{
	struct ib_ud_wr wr = {
		.wr = { .wr_id = wr_id, .sg_list = sg, .num_sge = 1,
			.opcode = op, .send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = imm },
		.ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey,
	};
	const struct ib_send_wr *bad = NULL;

	return ib_post_send(qp, &wr.wr, &bad);
}

static void test_ud(void)
{
	struct ib_cq *c1 = NULL, *c2 = NULL;
	struct ib_qp *u1 = NULL, *u2 = NULL;
	struct ib_ah *ah = NULL;
	struct rdma_ah_attr aa;
	struct kbuf s = {}, r = {};
	struct ib_sge sg, rsg[2];
	__be32 imm = cpu_to_be32(0x99);
	union ib_gid sgid, dgid;
	struct ib_wc wc;
	int err, ver;
	const u32 len = 300;

	if (!kbuf_alloc(&s, 1024) || !kbuf_alloc(&r, 2 * 1024))
		goto out;
	c1 = cq_alloc(16, "UD sender");
	c2 = cq_alloc(16, "UD receiver");
	u1 = qp_create(IB_QPT_UD, c1, NULL, 8, 1, 0, NULL, "UD sender");
	u2 = qp_create(IB_QPT_UD, c2, NULL, 8, 1, 0, NULL, "UD receiver");
	if (!u1 || !u2 || ud_ready(u1) || ud_ready(u2))
		goto out;
	fill_ah(&aa);
	ah = rdma_create_ah(kv.pd, &aa, RDMA_CREATE_AH_SLEEPABLE);
	if (!CHECK(!IS_ERR(ah), "rdma_create_ah: %ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}

	/* RDMA WRITE is no UD opcode. */
	{
		struct ib_rdma_wr w = {
			.wr = { .wr_id = 1, .opcode = IB_WR_RDMA_WRITE },
		};
		const struct ib_send_wr *bad = NULL;

		err = ib_post_send(u1, &w.wr, &bad);
		CHECK(err == -EINVAL && bad == &w.wr,
		      "ib_post_send(RDMA_WRITE) on UD: %d", err);
	}

	memset(r.va, 0, r.len);
	rsg[0] = kbuf_sge(&r, 0, 40 + 512);
	rsg[1] = kbuf_sge(&r, 1024, 40 + 512);
	if (post_recv(u2, 0x600, &rsg[0], 1) || post_recv(u2, 0x601, &rsg[1], 1))
		goto out;

	/* The wrong Q_Key: completes at the sender, dropped at the receiver. */
	fill(s.va, 100, 0x60, 0);
	sg = kbuf_sge(&s, 0, 100);
	err = ud_send(u1, ah, u2->qp_num, QKEY + 1, IB_WR_SEND, 0x610, &sg, 0);
	if (CHECK(!err, "UD send: %d", err))
		expect_wc(c1, &wc, 0x610, IB_WC_SUCCESS, IB_WC_SEND,
			  "UD send with the wrong Q_Key, sender");
	expect_no_wc(c2, 300, "UD send with the wrong Q_Key, receiver");

	fill(s.va, len, 0x61, 0);
	sg = kbuf_sge(&s, 0, len);
	err = ud_send(u1, ah, u2->qp_num, QKEY, IB_WR_SEND_WITH_IMM, 0x611,
		      &sg, imm);
	if (!CHECK(!err, "UD send: %d", err))
		goto out;
	expect_wc(c1, &wc, 0x611, IB_WC_SUCCESS, IB_WC_SEND, "UD SEND_WITH_IMM, sender");
	if (!expect_wc(c2, &wc, 0x600, IB_WC_SUCCESS, IB_WC_RECV,
		       "UD SEND_WITH_IMM, receiver (first receive WQE)"))
		goto out;
	CHECK(wc.byte_len == 40 + len, "UD byte_len %u, not 40 + %u",
	      wc.byte_len, len);
	CHECK(wc.wc_flags & IB_WC_GRH, "UD: no IB_WC_GRH (wc_flags %#x)",
	      wc.wc_flags);
	CHECK((wc.wc_flags & IB_WC_WITH_IMM) && wc.ex.imm_data == imm,
	      "UD: wc_flags %#x imm %#x", wc.wc_flags,
	      be32_to_cpu(wc.ex.imm_data));
	CHECK(wc.src_qp == u1->qp_num, "UD: src_qp %u, not %u", wc.src_qp,
	      u1->qp_num);
	CHECK(wc.qp == u2, "UD: wc.qp is not the receiver");
	CHECK((wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE) &&
	      wc.network_hdr_type == RDMA_NETWORK_IPV4,
	      "UD: wc_flags %#x network_hdr_type %u, expected IPv4",
	      wc.wc_flags, wc.network_hdr_type);
	kbuf_sync(&r);
	CHECK(pat_diff((u8 *)r.va + 40, len, 0x61, 0) < 0,
	      "UD: data after the GRH area differs at %ld",
	      pat_diff((u8 *)r.va + 40, len, 0x61, 0));
	/* What the CM does with it: the IPv4 header at byte 20. */
	ver = ib_get_rdma_header_version(r.va);
	CHECK(ver == 4, "UD: GRH area holds header version %d, not an IPv4 header",
	      ver);
	err = ib_get_gids_from_rdma_hdr(r.va, RDMA_NETWORK_IPV4, &sgid, &dgid);
	CHECK(!err && !memcmp(&sgid, &kv.gid, sizeof(sgid)) &&
	      !memcmp(&dgid, &kv.gid, sizeof(dgid)),
	      "UD: GRH area gives %pI6 -> %pI6, expected %pI6 both (%d)",
	      sgid.raw, dgid.raw, kv.gid.raw, err);
	expect_no_wc(c2, 50, "UD receiver after one message");
out:
	qp_destroy(u1);
	qp_destroy(u2);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	cq_free(c1);
	cq_free(c2);
	kbuf_free(&s);
	kbuf_free(&r);
}

/* --- module ------------------------------------------------------------------------------- */

static void test_post_errors(void)
{
	struct kbuf b = {};

	if (!kbuf_alloc(&b, 4096))
		return;
	test_post_errors_init(&b);
	test_post_errors_rts(&b);
	kbuf_free(&b);
}

static void run(void)
{
	unsigned long t0 = jiffies;

	kv.port = rdma_start_port(kv.dev);
	if (!CHECK(rdma_protocol_roce(kv.dev, kv.port),
		   "%s port %u is not RoCE", dev, kv.port))
		return;
	if (!find_gid())
		return;
	kv.pd = ib_alloc_pd(kv.dev, 0);
	if (!CHECK(!IS_ERR(kv.pd), "ib_alloc_pd: %ld", PTR_ERR(kv.pd)))
		return;
	kv.lkey = kv.pd->local_dma_lkey;

	test_rc();
	test_flush();
	test_post_errors();
	test_srq();
	test_ud();

	ib_dealloc_pd(kv.pd);
	pr_info(PFX "checks took %u ms\n", jiffies_to_msecs(jiffies - t0));
}

static int __init kverbs_selftest_init(void)
{
	if (!dev || !*dev) {
		pr_err(PFX "FAILED: no device: load with dev=NAME\n");
		return -EINVAL;
	}
	kv.dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (CHECK(kv.dev, "no RDMA device named '%s'", dev)) {
		run();
		ib_device_put(kv.dev);
	}
	pr_info(PFX "%d passed, %d failed\n", passed, failed);
	return failed ? -EINVAL : 0;
}

static void __exit kverbs_selftest_exit(void)
{
}

module_init(kverbs_selftest_init);
module_exit(kverbs_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Kernel verbs black-box self-test of an RDMA device");
