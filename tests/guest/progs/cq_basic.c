// SPDX-License-Identifier: GPL-2.0
/*
 * cq_basic DEVICE: completion queues without queue pairs, through
 * libibverbs and the rxe provider. Checks, on exact values:
 *
 *  - creation of CQs of several sizes; the reported cqe is the rounded
 *    capacity 2^k - 1 >= requested; the ring librxe mapped has the rxe
 *    header (log2_elem_size 7, index_mask = cqe, both indices 0) and is
 *    exactly PAGE_ALIGN(384 + 128 * (cqe + 1)) bytes;
 *  - max_cqe + 1, 0 and -1 entries, and a comp_vector out of range, fail
 *    with EINVAL;
 *  - a CQ with a completion channel: arming (solicited and not) works,
 *    polling an empty CQ returns 0 and no event is pending;
 *  - resize up and down: new capacity, new ring, still empty; resize to
 *    max_cqe + 1 or 0 fails with EINVAL and leaves the CQ as it was;
 *  - ibv_create_cq_ex: standard flags work; the kernel flag
 *    IGNORE_OVERRUN fails with EOPNOTSUPP;
 *  - a mapping of a ring larger than the ring fails with EINVAL;
 *  - 1000 CQs at once, then all destroyed;
 *  - "hold N": create N CQs (some with a channel, some resized), print
 *    "holding N" and wait to be killed (the test checks nothing is left).
 *
 * Prints one line per check; exits 0 only if every check held. Lines
 * starting with "info:" report behaviour that differs between drivers
 * (the test script decides what it expects).
 */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

#include "open_device.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...) do {					\
	if (cond) {						\
		printf("ok: " __VA_ARGS__);			\
	} else {						\
		printf("FAILED: " __VA_ARGS__);			\
		failures++;					\
	}							\
	putchar('\n');						\
} while (0)

/* The rxe ring header (rdma/rdma_user_rxe.h, struct rxe_queue_buf). */
struct ring_hdr {
	uint32_t log2_elem_size;
	uint32_t index_mask;
	uint32_t pad_1[30];
	uint32_t producer_index;
	uint32_t pad_2[31];
	uint32_t consumer_index;
};

struct mapping {
	unsigned long start, end, offset;
};

static long page_size;

/* Mappings of the uverbs file, from /proc/self/maps. */
static int uverbs_maps(struct mapping *m, int max)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %*s %lx", &m[n].start, &m[n].end,
			   &m[n].offset) == 3)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * Runs create() and returns the one uverbs mapping it added, or a zeroed
 * mapping if there is not exactly one.
 */
static struct mapping new_mapping(const struct mapping *before, int nbefore)
{
	struct mapping after[64], found = { 0 };
	int n = uverbs_maps(after, 64), i, j, nnew = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nbefore; j++)
			if (after[i].start == before[j].start &&
			    after[i].offset == before[j].offset)
				break;
		if (j == nbefore) {
			found = after[i];
			nnew++;
		}
	}
	if (nnew != 1)
		memset(&found, 0, sizeof(found));
	return found;
}

static unsigned long ring_bytes(int cqe)
{
	unsigned long b = 384 + 128UL * (cqe + 1);

	return (b + page_size - 1) & ~(page_size - 1);
}

static int expected_cqe(int n)
{
	int slots = 1;

	while (slots < n + 1)
		slots <<= 1;
	return slots - 1;
}

/* Checks the ring of a CQ with capacity cqe, mapped at m. */
static void check_ring(const char *what, struct mapping m, int cqe)
{
	const struct ring_hdr *h = (const struct ring_hdr *)m.start;

	if (!m.start) {
		CHECK(0, "%s: exactly one new ring mapping", what);
		return;
	}
	CHECK(m.end - m.start == ring_bytes(cqe),
	      "%s: ring mapping %lu bytes (expected %lu)", what,
	      m.end - m.start, ring_bytes(cqe));
	CHECK(m.offset % page_size == 0 && m.offset != 0,
	      "%s: ring offset 0x%lx page aligned, not 0", what, m.offset);
	CHECK(h->log2_elem_size == 7 && h->index_mask == (uint32_t)cqe &&
	      h->producer_index == 0 && h->consumer_index == 0,
	      "%s: header log2_elem_size %u index_mask %u prod %u cons %u",
	      what, h->log2_elem_size, h->index_mask, h->producer_index,
	      h->consumer_index);
}

static void check_sizes(struct ibv_context *ctx, int max_cqe)
{
	int sizes[] = { 1, 2, 63, 64, 4096, max_cqe };
	struct mapping before[64];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int nb = uverbs_maps(before, 64);
		struct ibv_cq *cq = ibv_create_cq(ctx, sizes[i], NULL, NULL, 0);
		char what[64];

		snprintf(what, sizeof(what), "cqe %d", sizes[i]);
		if (!cq) {
			CHECK(0, "%s: create (%s)", what, strerror(errno));
			continue;
		}
		CHECK(cq->cqe == expected_cqe(sizes[i]) && cq->cqe >= sizes[i],
		      "%s: created, capacity %d (expected %d)", what, cq->cqe,
		      expected_cqe(sizes[i]));
		check_ring(what, new_mapping(before, nb), cq->cqe);
		CHECK(ibv_destroy_cq(cq) == 0, "%s: destroyed", what);
	}
}

static void check_fails(struct ibv_context *ctx, const char *what, int cqe,
			struct ibv_comp_channel *ch, int vector)
{
	struct ibv_cq *cq;

	errno = 0;
	cq = ibv_create_cq(ctx, cqe, NULL, ch, vector);
	CHECK(!cq && errno == EINVAL, "%s: create fails with EINVAL (%s)",
	      what, cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(cq);
}

static void check_channel(struct ibv_context *ctx)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	int vector = ctx->num_comp_vectors - 1;
	struct ibv_cq *cq, *ev_cq;
	struct ibv_wc wc[16];
	void *ev_ctx;

	if (!ch) {
		CHECK(0, "channel: create (%s)", strerror(errno));
		return;
	}
	cq = ibv_create_cq(ctx, 16, (void *)0x5eed, ch, vector);
	CHECK(cq != NULL, "channel: CQ on comp_vector %d of %d", vector,
	      ctx->num_comp_vectors);
	check_fails(ctx, "comp_vector num_comp_vectors", 16, ch,
		    ctx->num_comp_vectors);
	if (cq) {
		CHECK(ibv_poll_cq(cq, 16, wc) == 0, "channel: poll empty CQ = 0");
		CHECK(ibv_req_notify_cq(cq, 0) == 0, "channel: arm next");
		CHECK(ibv_req_notify_cq(cq, 1) == 0, "channel: arm solicited");
		CHECK(ibv_req_notify_cq(cq, 0) == 0, "channel: arm next again");
		fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
		errno = 0;
		CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) < 0 &&
		      errno == EAGAIN, "channel: no event pending (%s)",
		      strerror(errno));
		CHECK(ibv_poll_cq(cq, 16, wc) == 0, "channel: poll again = 0");
		CHECK(ibv_destroy_cq(cq) == 0, "channel: CQ destroyed");
	}
	CHECK(ibv_destroy_comp_channel(ch) == 0, "channel: destroyed");
}

static void check_resize(struct ibv_context *ctx, int max_cqe)
{
	int steps[] = { 1000, 10, 64, 1, max_cqe };
	struct mapping before[64];
	struct ibv_wc wc[16];
	struct ibv_cq *cq;
	unsigned int i;

	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!cq) {
		CHECK(0, "resize: create (%s)", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int nb = uverbs_maps(before, 64), err;
		char what[64];

		snprintf(what, sizeof(what), "resize %d to %d", cq->cqe,
			 steps[i]);
		err = ibv_resize_cq(cq, steps[i]);
		CHECK(!err && cq->cqe == expected_cqe(steps[i]),
		      "%s: capacity %d (expected %d, err %d)", what, cq->cqe,
		      expected_cqe(steps[i]), err);
		check_ring(what, new_mapping(before, nb), cq->cqe);
		CHECK(ibv_poll_cq(cq, 16, wc) == 0, "%s: poll = 0", what);
	}
	i = cq->cqe;
	CHECK(ibv_resize_cq(cq, max_cqe + 1) == EINVAL && cq->cqe == (int)i,
	      "resize to max_cqe + 1 fails with EINVAL, cqe still %d", cq->cqe);
	CHECK(ibv_resize_cq(cq, 0) == EINVAL && cq->cqe == (int)i,
	      "resize to 0 fails with EINVAL, cqe still %d", cq->cqe);
	CHECK(ibv_poll_cq(cq, 16, wc) == 0, "resize: poll after failures = 0");
	CHECK(ibv_req_notify_cq(cq, 0) == 0, "resize: arm after resizes");
	CHECK(ibv_destroy_cq(cq) == 0, "resize: destroyed");
}

static void check_cq_ex(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = 32,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_cq_ex *cq;

	cq = ibv_create_cq_ex(ctx, &attr);
	CHECK(cq != NULL, "cq_ex: standard flags (%s)",
	      cq ? "created" : strerror(errno));
	if (cq) {
		CHECK(cq->cqe == 63, "cq_ex: capacity %d", cq->cqe);
		/* Only end a poll that started: see the v44 note in docs. */
		CHECK(ibv_start_poll(cq, &pattr) == ENOENT,
		      "cq_ex: start_poll on empty CQ = ENOENT");
		CHECK(ibv_destroy_cq(ibv_cq_ex_to_cq(cq)) == 0,
		      "cq_ex: destroyed");
	}

	/* A flag the kernel sees (IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN). */
	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr.flags = IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN;
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &attr);
	CHECK(!cq && errno == EOPNOTSUPP,
	      "cq_ex: IGNORE_OVERRUN fails with EOPNOTSUPP (%s)",
	      cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));

	/* A wc_flag the provider does not offer: refused before the kernel. */
	attr.comp_mask = 0;
	attr.flags = 0;
	attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	errno = 0;
	cq = ibv_create_cq_ex(ctx, &attr);
	CHECK(!cq, "cq_ex: COMPLETION_TIMESTAMP refused (%s)",
	      cq ? "created" : strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

/*
 * Maps a live ring again, larger than it is (must fail) and at its size
 * (allowed by sroce, refused by rxe, which maps each ring once). If the
 * second mapping works, it must stay readable after the CQ is destroyed:
 * the pages outlive the CQ until munmap().
 */
static void check_mmap(struct ibv_context *ctx)
{
	struct mapping before[64], m;
	struct ibv_cq *cq;
	const struct ring_hdr *h;
	void *p;
	int nb = uverbs_maps(before, 64);

	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	if (!cq) {
		CHECK(0, "mmap: create (%s)", strerror(errno));
		return;
	}
	m = new_mapping(before, nb);
	check_ring("mmap", m, cq->cqe);
	if (!m.start)
		goto out;

	errno = 0;
	p = mmap(NULL, m.end - m.start + page_size, PROT_READ | PROT_WRITE,
		 MAP_SHARED, ctx->cmd_fd, m.offset);
	CHECK(p == MAP_FAILED && errno == EINVAL,
	      "mmap: one page larger than the ring fails with EINVAL (%s)",
	      p == MAP_FAILED ? strerror(errno) : "mapped");
	if (p != MAP_FAILED)
		munmap(p, m.end - m.start + page_size);

	errno = 0;
	p = mmap(NULL, m.end - m.start, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->cmd_fd, m.offset);
	printf("info: second mapping of a live ring: %s\n",
	       p == MAP_FAILED ? strerror(errno) : "mapped");
	if (p == MAP_FAILED)
		goto out;
	CHECK(ibv_destroy_cq(cq) == 0, "mmap: destroyed while mapped twice");
	cq = NULL;
	h = p;
	CHECK(h->log2_elem_size == 7 && h->index_mask == 127,
	      "mmap: ring readable after destroy (index_mask %u)",
	      h->index_mask);
	munmap(p, m.end - m.start);
out:
	if (cq)
		CHECK(ibv_destroy_cq(cq) == 0, "mmap: destroyed");
}

static void check_many(struct ibv_context *ctx, int count)
{
	struct ibv_cq **cqs = calloc(count, sizeof(*cqs));
	int i, created = 0, destroyed = 0;

	if (!cqs)
		return;
	for (i = 0; i < count; i++) {
		cqs[i] = ibv_create_cq(ctx, 1 + i % 200, NULL, NULL,
				       i % ctx->num_comp_vectors);
		if (!cqs[i]) {
			printf("create %d: %s\n", i, strerror(errno));
			break;
		}
		created++;
	}
	for (i = 0; i < created; i++)
		destroyed += ibv_destroy_cq(cqs[i]) == 0;
	CHECK(created == count && destroyed == count,
	      "many: created %d destroyed %d", created, destroyed);
	free(cqs);
}

static int hold(struct ibv_context *ctx, int count)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	int i;

	if (!ch)
		return 1;
	for (i = 0; i < count; i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 1 + i * 7, NULL,
						  i % 2 ? ch : NULL, 0);

		if (!cq)
			return 1;
		if (i % 3 == 0 && ibv_resize_cq(cq, 2 + i * 11))
			return 1;
		if (i % 2 && ibv_req_notify_cq(cq, i % 4 == 1))
			return 1;
	}
	printf("holding %d\n", count);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;

	if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "hold"))) {
		fprintf(stderr, "usage: %s DEVICE [hold COUNT]\n", argv[0]);
		return 2;
	}
	page_size = sysconf(_SC_PAGESIZE);
	ctx = open_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open device %s\n", argv[1]);
		return 1;
	}
	if (argc == 4)
		return hold(ctx, atoi(argv[3]));
	if (ibv_query_device(ctx, &dattr)) {
		perror("ibv_query_device");
		return 1;
	}
	printf("device %s max_cqe %d max_cq %d num_comp_vectors %d\n",
	       argv[1], dattr.max_cqe, dattr.max_cq, ctx->num_comp_vectors);

	check_sizes(ctx, dattr.max_cqe);
	check_fails(ctx, "cqe max_cqe + 1", dattr.max_cqe + 1, NULL, 0);
	check_fails(ctx, "cqe 0", 0, NULL, 0);
	check_fails(ctx, "cqe -1", -1, NULL, 0);
	check_channel(ctx);
	check_resize(ctx, dattr.max_cqe);
	check_cq_ex(ctx);
	check_mmap(ctx);
	check_many(ctx, 1000);

	if (ibv_close_device(ctx)) {
		perror("ibv_close_device");
		failures++;
	}
	printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
	return !!failures;
}
