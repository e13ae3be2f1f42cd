// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_cq_selftest: the kernel side of completion queues, which user
 * space cannot reach before queue pairs move data. Built together with the
 * driver's queue.c, mmap.c and verbs_cq.c (see Kbuild beside this file)
 * and run once at load time, on a CQ created through the driver's own
 * create_cq op for a stand-alone, never registered sroce_dev.
 *
 * Checks: capacity rounding; posting until full, -ENOSPC and exactly one
 * IB_EVENT_CQ_ERR on overflow, then -ENOSPC for good; polling in order
 * with exact contents and across many wrap-arounds; arming (next,
 * solicited, one call per arming, REPORT_MISSED_EVENTS); resize with
 * entries queued, and a refused shrink below them; the conversion to the
 * user CQE layout (opcodes, wc_flags, qp_num) and the refusal of kernel-
 * only opcodes; two threads posting while a third polls.
 *
 * Prints "sroce_cq_selftest: N passed, N failed" and fails to load if any
 * check failed.
 */
#include <linux/completion.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "queue.h"
#include "cq.h"

static int passed, failed;

#define CHECK(cond, fmt, ...) do {					\
	if (cond) {							\
		passed++;						\
	} else {							\
		failed++;						\
		pr_err("sroce_cq_selftest: FAILED: " fmt "\n",		\
		       ##__VA_ARGS__);					\
	}								\
} while (0)

static struct sroce_dev *sdev;
static int comp_calls, err_events;

static void test_comp_handler(struct ib_cq *ib_cq, void *ctx)
{
	comp_calls++;
}

static void test_event_handler(struct ib_event *ev, void *ctx)
{
	if (ev->event == IB_EVENT_CQ_ERR)
		err_events++;
}

static struct sroce_cq *test_cq_create(int cqe)
{
	struct ib_cq_init_attr attr = { .cqe = cqe };
	struct sroce_cq *cq = kzalloc(sizeof(*cq), GFP_KERNEL);

	if (!cq)
		return NULL;
	cq->ib_cq.device = &sdev->ib_dev;
	cq->ib_cq.comp_handler = test_comp_handler;
	cq->ib_cq.event_handler = test_event_handler;
	if (sroce_cq_ops.create_cq(&cq->ib_cq, &attr, NULL)) {
		kfree(cq);
		return NULL;
	}
	return cq;
}

static void test_cq_destroy(struct sroce_cq *cq)
{
	sroce_cq_ops.destroy_cq(&cq->ib_cq, NULL);
	kfree(cq);
}

static void make_wc(struct ib_wc *wc, u64 id)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = id;
	wc->status = IB_WC_SUCCESS;
	wc->opcode = IB_WC_RECV;
	wc->byte_len = (u32)id * 3;
	wc->src_qp = 0x123456;
}

static int post_id(struct sroce_cq *cq, u64 id, bool solicited)
{
	struct ib_wc wc;

	make_wc(&wc, id);
	return sroce_cq_post(cq, &wc, solicited);
}

/* Polls up to n entries and checks they carry ids next, next + 1, ... */
static int poll_ids(struct sroce_cq *cq, int n, u64 *next)
{
	struct ib_wc wc[8];
	int got = 0, i, k;

	while (got < n) {
		k = sroce_cq_ops.poll_cq(&cq->ib_cq, min(n - got, 8), wc);
		if (k <= 0)
			break;
		for (i = 0; i < k; i++, (*next)++)
			CHECK(wc[i].wr_id == *next &&
			      wc[i].byte_len == (u32)*next * 3 &&
			      wc[i].opcode == IB_WC_RECV &&
			      wc[i].src_qp == 0x123456,
			      "polled wr_id %llu, expected %llu", wc[i].wr_id,
			      *next);
		got += k;
	}
	return got;
}

static void test_fill_and_overflow(void)
{
	struct sroce_cq *cq = test_cq_create(5);
	struct ib_wc wc;
	u64 next = 0;
	int i, err = 0;

	CHECK(cq, "create cqe 5");
	if (!cq)
		return;
	CHECK(cq->ib_cq.cqe == 7, "cqe 5 -> capacity %d, expected 7",
	      cq->ib_cq.cqe);
	CHECK(sroce_cq_ops.poll_cq(&cq->ib_cq, 1, &wc) == 0, "empty poll");

	for (i = 0; i < 7 && !err; i++)
		err = post_id(cq, i, false);
	CHECK(!err, "7 posts into capacity 7: %d", err);
	CHECK(sroce_queue_count(&cq->queue) == 7, "count %u, expected 7",
	      sroce_queue_count(&cq->queue));
	err_events = 0;
	CHECK(post_id(cq, 7, false) == -ENOSPC, "8th post -> -ENOSPC");
	CHECK(err_events == 1, "one CQ_ERR event on overflow, got %d",
	      err_events);
	CHECK(poll_ids(cq, 7, &next) == 7, "7 entries polled after overflow");
	CHECK(post_id(cq, 8, false) == -ENOSPC, "CQ in error stays in error");
	CHECK(err_events == 1, "no second CQ_ERR event, got %d", err_events);
	test_cq_destroy(cq);
}

static void test_wrap(void)
{
	struct sroce_cq *cq = test_cq_create(3);
	u64 id = 0, next = 0;
	int round, i, err = 0;

	CHECK(cq && cq->ib_cq.cqe == 3, "create cqe 3 -> capacity 3");
	if (!cq)
		return;
	/* 1000 rounds of 1..3 entries: every index wraps many times. */
	for (round = 0; round < 1000 && !err; round++) {
		for (i = 0; i <= round % 3 && !err; i++)
			err = post_id(cq, id++, false);
		poll_ids(cq, round % 3 + 1, &next);
	}
	CHECK(!err && next == id, "wrap: posted %llu polled %llu err %d", id,
	      next, err);
	CHECK(sroce_queue_empty(&cq->queue), "wrap: empty at the end");
	test_cq_destroy(cq);
}

static void test_notify(void)
{
	struct sroce_cq *cq = test_cq_create(15);
	struct ib_cq *ib_cq;
	u64 next = 0;

	if (!cq) {
		CHECK(0, "create cqe 15");
		return;
	}
	ib_cq = &cq->ib_cq;
	comp_calls = 0;
	post_id(cq, 0, true);
	CHECK(comp_calls == 0, "unarmed: no handler call (%d)", comp_calls);

	CHECK(sroce_cq_ops.req_notify_cq(ib_cq, IB_CQ_NEXT_COMP |
					 IB_CQ_REPORT_MISSED_EVENTS) == 1,
	      "REPORT_MISSED_EVENTS with 1 queued -> 1");
	poll_ids(cq, 1, &next);
	CHECK(sroce_cq_ops.req_notify_cq(ib_cq, IB_CQ_NEXT_COMP |
					 IB_CQ_REPORT_MISSED_EVENTS) == 0,
	      "REPORT_MISSED_EVENTS when empty -> 0");
	post_id(cq, 1, false);
	CHECK(comp_calls == 1, "NEXT_COMP: one call (%d)", comp_calls);
	post_id(cq, 2, false);
	CHECK(comp_calls == 1, "one call per arming (%d)", comp_calls);

	sroce_cq_ops.req_notify_cq(ib_cq, IB_CQ_SOLICITED);
	post_id(cq, 3, false);
	CHECK(comp_calls == 1, "SOLICITED: unsolicited entry, no call (%d)",
	      comp_calls);
	post_id(cq, 4, true);
	CHECK(comp_calls == 2, "SOLICITED: solicited entry, a call (%d)",
	      comp_calls);

	sroce_cq_ops.req_notify_cq(ib_cq, IB_CQ_NEXT_COMP);
	sroce_cq_ops.req_notify_cq(ib_cq, IB_CQ_SOLICITED);
	post_id(cq, 5, false);
	CHECK(comp_calls == 3, "NEXT_COMP not narrowed by SOLICITED (%d)",
	      comp_calls);
	CHECK(poll_ids(cq, 5, &next) == 5 && next == 6, "all 6 polled");
	test_cq_destroy(cq);
}

static void test_resize(void)
{
	struct sroce_cq *cq = test_cq_create(7);
	u64 next = 0;
	int i;

	if (!cq) {
		CHECK(0, "create cqe 7");
		return;
	}
	/* Move the indices away from 0 first, so the copy must wrap. */
	for (i = 0; i < 6; i++)
		post_id(cq, next + i, false);
	poll_ids(cq, 6, &next);
	for (i = 0; i < 5; i++)
		post_id(cq, next + i, false);
	CHECK(sroce_cq_ops.resize_cq(&cq->ib_cq, 4, NULL) == -EINVAL &&
	      cq->ib_cq.cqe == 7, "shrink below 5 queued -> -EINVAL");
	CHECK(sroce_cq_ops.resize_cq(&cq->ib_cq, 5, NULL) == 0 &&
	      cq->ib_cq.cqe == 7, "resize to 5 with 5 queued -> capacity 7");
	CHECK(sroce_cq_ops.resize_cq(&cq->ib_cq, 100, NULL) == 0 &&
	      cq->ib_cq.cqe == 127, "resize to 100 -> capacity 127");
	CHECK(sroce_queue_count(&cq->queue) == 5, "5 entries kept, got %u",
	      sroce_queue_count(&cq->queue));
	CHECK(poll_ids(cq, 5, &next) == 5 && next == 11,
	      "kept entries in order");
	CHECK(sroce_cq_ops.resize_cq(&cq->ib_cq, 0, NULL) == -EINVAL,
	      "resize to 0 -> -EINVAL");
	CHECK(sroce_cq_ops.resize_cq(&cq->ib_cq, 1 << 15, NULL) == -EINVAL,
	      "resize beyond max -> -EINVAL");
	test_cq_destroy(cq);
}

/*
 * The user CQE layout, on a kernel ring: flipping cq->user makes
 * sroce_cq_post() convert, and the kernel can still read the ring back.
 */
static void test_user_format(void)
{
	struct sroce_cq *cq = test_cq_create(7);
	struct ib_qp qp = { .qp_num = 0xabcdef };
	struct ib_uverbs_wc *uwc;
	struct ib_wc wc;

	if (!cq) {
		CHECK(0, "create cqe 7");
		return;
	}
	cq->user = true;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = 0x1122334455667788ULL;
	wc.status = IB_WC_REM_ACCESS_ERR;
	wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
	wc.vendor_err = 7;
	wc.byte_len = 4096;
	wc.qp = &qp;
	wc.ex.imm_data = cpu_to_be32(0xdeadbeef);
	wc.src_qp = 0x42;
	wc.slid = 0x1234;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_IMM | IB_WC_IP_CSUM_OK;
	wc.pkey_index = 3;
	wc.sl = 5;
	wc.dlid_path_bits = 6;
	wc.port_num = 1;
	CHECK(sroce_cq_post(cq, &wc, false) == 0, "user post 1");

	wc.opcode = IB_WC_SEND;
	wc.qp = NULL;
	wc.ex.invalidate_rkey = 0x99;
	wc.wc_flags = IB_WC_WITH_INVALIDATE;
	CHECK(sroce_cq_post(cq, &wc, false) == 0, "user post 2");

	/* A UD receive: the L3 header type goes to sl (IPv4 2, IPv6 1). */
	wc.opcode = IB_WC_RECV;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = RDMA_NETWORK_IPV4;
	wc.sl = 0;
	CHECK(sroce_cq_post(cq, &wc, false) == 0, "user post 3");
	wc.network_hdr_type = RDMA_NETWORK_IPV6;
	CHECK(sroce_cq_post(cq, &wc, false) == 0, "user post 4");

	/* Kernel-only opcodes: refused when successful... */
	wc.status = IB_WC_SUCCESS;
	wc.opcode = IB_WC_REG_MR;
	CHECK(sroce_cq_post(cq, &wc, false) == -EINVAL,
	      "REG_MR refused on a user CQ");
	wc.opcode = IB_WC_MASKED_FETCH_ADD;
	CHECK(sroce_cq_post(cq, &wc, false) == -EINVAL,
	      "MASKED_FETCH_ADD refused on a user CQ");
	/* ...and an error completion, which has no opcode, still delivered. */
	wc.status = IB_WC_LOC_QP_OP_ERR;
	wc.opcode = IB_WC_REG_MR;
	wc.wr_id = 0x77;
	CHECK(sroce_cq_post(cq, &wc, false) == 0, "failed REG_MR delivered");

	uwc = sroce_queue_head(&cq->queue);
	CHECK(uwc && uwc->wr_id == 0x1122334455667788ULL &&
	      uwc->status == IB_WC_REM_ACCESS_ERR && uwc->opcode == 129 &&
	      uwc->vendor_err == 7 && uwc->byte_len == 4096 &&
	      uwc->ex.imm_data == cpu_to_be32(0xdeadbeef) &&
	      uwc->qp_num == 0xabcdef && uwc->src_qp == 0x42 &&
	      uwc->wc_flags == (1 | 2 | 4) && uwc->pkey_index == 3 &&
	      uwc->slid == 0x1234 && uwc->sl == 5 &&
	      uwc->dlid_path_bits == 6 && uwc->port_num == 0 &&
	      uwc->reserved == 0, "user CQE 1 fields");
	sroce_queue_pop(&cq->queue);
	uwc = sroce_queue_head(&cq->queue);
	CHECK(uwc && uwc->opcode == 0 && uwc->qp_num == 0 &&
	      uwc->ex.invalidate_rkey == 0x99 && uwc->wc_flags == 8,
	      "user CQE 2: WITH_INV is 8, no QP is qp_num 0");
	sroce_queue_pop(&cq->queue);
	uwc = sroce_queue_head(&cq->queue);
	CHECK(uwc && uwc->opcode == IB_WC_RECV && uwc->wc_flags == 1 &&
	      uwc->sl == 2, "user CQE 3: an IPv4 receive has sl 2");
	sroce_queue_pop(&cq->queue);
	uwc = sroce_queue_head(&cq->queue);
	CHECK(uwc && uwc->sl == 1, "user CQE 4: an IPv6 receive has sl 1");
	sroce_queue_pop(&cq->queue);
	uwc = sroce_queue_head(&cq->queue);
	CHECK(uwc && uwc->wr_id == 0x77 &&
	      uwc->status == IB_WC_LOC_QP_OP_ERR && uwc->opcode == 0,
	      "user CQE 5: a failed kernel-only WR, opcode 0");
	sroce_queue_pop(&cq->queue);
	CHECK(!sroce_queue_head(&cq->queue), "no sixth user CQE");
	cq->user = false;
	test_cq_destroy(cq);
}

/* Two posting threads against one polling thread. */
#define RACE_PER_THREAD	50000

struct race {
	struct sroce_cq *cq;
	atomic_t posted, dropped;
	struct completion done[2];
};

static int race_poster(void *arg)
{
	struct race *r = arg;
	int i, which = atomic_inc_return(&r->posted) - 1;

	for (i = 0; i < RACE_PER_THREAD; i++) {
		/* Never let the CQ overflow: wait for the poller. */
		while (sroce_queue_count(&r->cq->queue) >= 1000)
			cond_resched();
		if (post_id(r->cq, i, false))
			atomic_inc(&r->dropped);
	}
	complete(&r->done[which]);
	return 0;
}

static void test_race(void)
{
	struct race r = { .cq = test_cq_create(1023) };
	struct task_struct *t[2];
	struct ib_wc wc[16];
	long polled = 0;
	int i, k;

	if (!r.cq) {
		CHECK(0, "create cqe 1023");
		return;
	}
	atomic_set(&r.posted, 0);
	atomic_set(&r.dropped, 0);
	init_completion(&r.done[0]);
	init_completion(&r.done[1]);
	for (i = 0; i < 2; i++)
		t[i] = kthread_run(race_poster, &r, "sroce_cq_race%d", i);
	if (IS_ERR(t[0]) || IS_ERR(t[1])) {
		CHECK(0, "kthread_run");
		return;	/* leaks the CQ: cannot be sure the posters stopped */
	}
	while (polled < 2L * RACE_PER_THREAD) {
		k = sroce_cq_ops.poll_cq(&r.cq->ib_cq, 16, wc);
		polled += k;
		if (!k)
			cond_resched();
	}
	wait_for_completion(&r.done[0]);
	wait_for_completion(&r.done[1]);
	CHECK(polled == 2L * RACE_PER_THREAD && !atomic_read(&r.dropped) &&
	      sroce_queue_empty(&r.cq->queue),
	      "race: polled %ld dropped %d", polled, atomic_read(&r.dropped));
	test_cq_destroy(r.cq);
}

static int __init cq_selftest_init(void)
{
	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->ib_dev.num_comp_vectors = 1;

	test_fill_and_overflow();
	test_wrap();
	test_notify();
	test_resize();
	test_user_format();
	test_race();
	CHECK(atomic_read(&sdev->num_cq) == 0, "num_cq back to 0, got %d",
	      atomic_read(&sdev->num_cq));

	kfree(sdev);
	pr_info("sroce_cq_selftest: %d passed, %d failed\n", passed, failed);
	return failed ? -EINVAL : 0;
}

static void __exit cq_selftest_exit(void)
{
}

module_init(cq_selftest_init);
module_exit(cq_selftest_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("sroce completion queue self-test");
