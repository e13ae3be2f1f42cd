// SPDX-License-Identifier: GPL-2.0
/*
 * mr_basic DEVICE MODE [ARG]: exercise memory registration through
 * libibverbs. Every check prints one "ok ..." line, or "FAIL ..." and the
 * program exits 1 at the end. Modes:
 *
 *   basic        sizes and alignments, every access-flag combination, keys
 *                distinct across live MRs, deregistration among live MRs,
 *                bad address / length / flags
 *   churn N      N registrations and deregistrations in a row; keys must
 *                keep working and not repeat
 *   max LIMIT    register until the device refuses, or LIMIT; report
 *                "max_mr M registered N errno E"
 *   hold MIB     register MIB MiB (touched), print "holding pid PID",
 *                sleep until killed: the case checks a killed process unpins
 */
#include <errno.h>
#include <infiniband/verbs.h>

#include "open_device.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024UL * 1024)

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			printf("ok ");					\
		} else {						\
			printf("FAIL ");				\
			failures++;					\
		}							\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

static void *map_anon(size_t len, int extra_flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Number of distinct values in @v (sorted in place). */
static int distinct(uint32_t *v, int n)
{
	int i, d = 0;

	qsort(v, n, sizeof(*v), cmp_u32);
	for (i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			d++;
	return d;
}

/* Register, check what came back, deregister. */
static void reg_one(struct ibv_pd *pd, void *addr, size_t len, int access,
		    const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);
	int err = errno;

	CHECK(mr, "reg %s len %zu access 0x%x%s%s", what, len, access,
	      mr ? "" : ": ", mr ? "" : strerror(err));
	if (!mr)
		return;
	CHECK(mr->addr == addr && mr->length == len && mr->lkey,
	      "reg %s: addr, length, lkey", what);
	if (access & (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
		      IBV_ACCESS_REMOTE_ATOMIC))
		CHECK(mr->rkey == mr->lkey, "reg %s: rkey 0x%x == lkey 0x%x",
		      what, mr->rkey, mr->lkey);
	CHECK(!ibv_dereg_mr(mr), "dereg %s", what);
}

static void reg_fails(struct ibv_pd *pd, void *addr, size_t len, int access,
		      int want, const char *what)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(pd, addr, len, access);
	CHECK(!mr && errno == want, "reg %s fails with %s (got %s)", what,
	      strerror(want), mr ? "success" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
}

static void sizes(struct ibv_pd *pd)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		       IBV_ACCESS_REMOTE_WRITE;
	long pg = sysconf(_SC_PAGESIZE);
	size_t big = 64 * MIB, huge = 4 * MIB;
	char *buf, *hbuf;

	buf = map_anon(big + 2 * pg, 0);
	if (!buf) {
		CHECK(0, "mmap %zu", big);
		return;
	}
	memset(buf, 0xa5, big + 2 * pg);
	reg_one(pd, buf, 1, rw, "1 byte aligned");
	reg_one(pd, buf + 123, 1, rw, "1 byte unaligned");
	reg_one(pd, buf + pg - 1, 2, rw, "2 bytes across a page boundary");
	reg_one(pd, buf, pg, rw, "1 page");
	reg_one(pd, buf + 100, pg, rw, "1 page unaligned");
	reg_one(pd, buf + 7, 3 * pg + 11, 0, "odd length, local read only");
	reg_one(pd, buf, big, rw, "64 MiB");
	reg_one(pd, buf + 1, big, rw, "64 MiB unaligned");
	munmap(buf, big + 2 * pg);

	/* Hugepages are there only if the case reserved some. */
	hbuf = map_anon(huge, MAP_HUGETLB);
	if (hbuf) {
		memset(hbuf, 0x5a, huge);
		reg_one(pd, hbuf, huge, rw, "hugetlb 4 MiB");
		reg_one(pd, hbuf + 4096 + 5, 2 * MIB, rw, "hugetlb unaligned");
		munmap(hbuf, huge);
	} else {
		printf("skip hugetlb: %s\n", strerror(errno));
	}
}

static void access_flags(struct ibv_pd *pd)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND,
	};
	const int nbits = sizeof(bits) / sizeof(bits[0]);
	int combo, i, access, valid = 0, invalid = 0;
	char *buf = map_anon(8192, 0);
	char what[64];

	if (!buf) {
		CHECK(0, "mmap");
		return;
	}
	for (combo = 0; combo < 1 << nbits; combo++) {
		access = 0;
		for (i = 0; i < nbits; i++)
			if (combo & 1 << i)
				access |= bits[i];
		snprintf(what, sizeof(what), "access 0x%x", access);
		if ((access & (IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_ATOMIC)) &&
		    !(access & IBV_ACCESS_LOCAL_WRITE)) {
			reg_fails(pd, buf, 8192, access, EINVAL, what);
			invalid++;
		} else {
			reg_one(pd, buf, 8192, access, what);
			valid++;
		}
	}
	printf("access combinations: %d valid, %d invalid\n", valid, invalid);

	/* Optional bits are hints a device may ignore (perftest sets RO). */
	reg_one(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_RELAXED_ORDERING,
		"relaxed ordering");
	reg_fails(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE | 1 << 15, EINVAL,
		  "unknown access bit");
	munmap(buf, 8192);
}

static void bad_input(struct ibv_pd *pd)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *buf = map_anon(4 * pg, 0);

	if (!buf) {
		CHECK(0, "mmap");
		return;
	}
	reg_fails(pd, buf, 0, IBV_ACCESS_LOCAL_WRITE, EINVAL, "length 0");
	/* A hole in the middle of the range. */
	munmap(buf + pg, pg);
	reg_fails(pd, buf, 3 * pg, IBV_ACCESS_LOCAL_WRITE, EFAULT,
		  "range with an unmapped page");
	munmap(buf, 4 * pg);
	reg_fails(pd, buf, pg, IBV_ACCESS_LOCAL_WRITE, EFAULT,
		  "unmapped address");
}

/* Many live MRs: distinct keys; free every other one, the rest still work. */
static void live_keys(struct ibv_pd *pd, int n)
{
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ;
	struct ibv_mr **mrs = calloc(n, sizeof(*mrs));
	uint32_t *keys = calloc(2 * n, sizeof(*keys));
	char *buf = map_anon(MIB, 0);
	int i, live = 0, nkeys = 0, ok = 1;

	if (!mrs || !keys || !buf) {
		CHECK(0, "allocate");
		return;
	}
	for (i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + (i % 256) * 4096, 4096, access);
		if (!mrs[i])
			break;
		keys[nkeys++] = mrs[i]->lkey;
		live++;
	}
	CHECK(live == n, "%d live MRs registered", live);
	for (i = 0; i < live; i++)
		ok &= mrs[i]->rkey == mrs[i]->lkey;
	CHECK(ok, "rkey == lkey on every live MR");
	CHECK(distinct(keys, nkeys) == live, "%d live MRs have distinct keys",
	      live);

	/* Free every other one, register as many again: all keys distinct. */
	ok = 1;
	for (i = 0; i < live; i += 2) {
		ok &= !ibv_dereg_mr(mrs[i]);
		mrs[i] = NULL;
	}
	CHECK(ok, "dereg every other MR while the others live");
	nkeys = 0;
	for (i = 0; i < live; i++) {
		if (!mrs[i])
			mrs[i] = ibv_reg_mr(pd, buf, 4096, access);
		if (!mrs[i]) {
			ok = 0;
			continue;
		}
		keys[nkeys++] = mrs[i]->lkey;
	}
	CHECK(ok, "re-register the freed half");
	CHECK(distinct(keys, nkeys) == nkeys, "keys still distinct after reuse");
	ok = 1;
	for (i = 0; i < live; i++)
		if (mrs[i])
			ok &= !ibv_dereg_mr(mrs[i]);
	CHECK(ok, "dereg all");
	munmap(buf, MIB);
	free(keys);
	free(mrs);
}

static void churn(struct ibv_pd *pd, int n)
{
	uint32_t *keys = calloc(n, sizeof(*keys));
	char *buf = map_anon(4096, 0);
	int i, done = 0, back_to_back = 0;
	struct ibv_mr *mr;

	if (!keys || !buf) {
		CHECK(0, "allocate");
		return;
	}
	for (i = 0; i < n; i++) {
		mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
		if (!mr) {
			printf("reg %d: %s\n", i, strerror(errno));
			break;
		}
		keys[i] = mr->lkey;
		if (i && keys[i] == keys[i - 1])
			back_to_back++;
		if (ibv_dereg_mr(mr)) {
			printf("dereg %d: %s\n", i, strerror(errno));
			break;
		}
		done++;
	}
	CHECK(done == n, "%d reg/dereg in a row", done);
	CHECK(!back_to_back, "no key reused by the next registration");
	CHECK(distinct(keys, done) == done, "%d keys all distinct", done);
	free(keys);
	munmap(buf, 4096);
}

/* Fill the device; the refusal must be clean and everything must go away. */
static void max_out(struct ibv_context *ctx, struct ibv_pd *pd, int limit)
{
	struct ibv_device_attr attr;
	struct ibv_mr **mrs;
	char *buf = map_anon(4096, 0);
	int n = 0, err = 0, i, ok = 1;

	if (ibv_query_device(ctx, &attr) || !buf) {
		CHECK(0, "query device");
		return;
	}
	mrs = calloc(limit, sizeof(*mrs));
	if (!mrs) {
		CHECK(0, "allocate");
		return;
	}
	while (n < limit) {
		mrs[n] = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	printf("max_mr %d registered %d errno %s\n", attr.max_mr, n,
	       err ? strerror(err) : "none");
	if (n < limit)
		CHECK(n <= attr.max_mr && n > attr.max_mr - 64,
		      "refused near max_mr");
	for (i = 0; i < n; i++)
		ok &= !ibv_dereg_mr(mrs[i]);
	CHECK(ok, "dereg %d", n);
	/* And the device works again. */
	mrs[0] = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mrs[0] && !ibv_dereg_mr(mrs[0]), "register after the limit");
	free(mrs);
}

static void hold(struct ibv_pd *pd, size_t mib)
{
	char *buf = map_anon(mib * MIB, 0);
	struct ibv_mr *mr;

	if (!buf) {
		CHECK(0, "mmap");
		return;
	}
	memset(buf, 1, mib * MIB);
	mr = ibv_reg_mr(pd, buf, mib * MIB, IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr, "register %zu MiB", mib);
	if (!mr)
		return;
	printf("holding pid %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	const char *mode;
	int arg;

	if (argc < 3) {
		fprintf(stderr, "usage: %s DEVICE basic|churn N|max LIMIT|hold MIB\n",
			argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	mode = argv[2];
	arg = argc > 3 ? atoi(argv[3]) : 0;
	ctx = open_by_name(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		perror("ibv_alloc_pd");
		return 1;
	}

	if (!strcmp(mode, "basic")) {
		sizes(pd);
		access_flags(pd);
		bad_input(pd);
		live_keys(pd, 2000);
	} else if (!strcmp(mode, "churn") && arg > 0) {
		churn(pd, arg);
	} else if (!strcmp(mode, "max") && arg > 0) {
		max_out(ctx, pd, arg);
	} else if (!strcmp(mode, "hold") && arg > 0) {
		hold(pd, arg);
	} else {
		fprintf(stderr, "bad mode %s\n", mode);
		return 2;
	}

	if (ibv_dealloc_pd(pd) || ibv_close_device(ctx)) {
		perror("cleanup");
		failures++;
	}
	printf("%s: %d failures\n", mode, failures);
	return !!failures;
}
