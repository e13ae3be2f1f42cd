// SPDX-License-Identifier: GPL-2.0
/*
 * An MPI job of two ranks that checks every byte it moves, not just that
 * the calls return: run by guest2/mpi-wire with one rank per guest.
 *
 * Build compiler: mpicc
 *
 * mpi_verify		the checks:
 *  - point-to-point: for each size from 1 B to 4 MiB, rank 0 sends
 *    pattern A (blocking send), rank 1 checks length and bytes and answers
 *    with pattern B, which rank 0 checks; then both exchange patterns at
 *    once (MPI_Sendrecv) and check what arrived;
 *  - nonblocking: 8 messages of 256 KiB in flight each way at once
 *    (MPI_Isend/MPI_Irecv), each with its own pattern, checked;
 *  - allreduce: MPI_SUM over 1 Mi 32-bit integers (4 MiB) and MPI_MAX
 *    over doubles, checked element by element against the closed form;
 *  - one-sided (MPI_Win_create on 4 MiB): after a fence, rank 0 puts
 *    pattern C into rank 1's window at several offsets and sizes, fence,
 *    rank 1 checks them and that the bytes between stayed untouched;
 *    rank 1 fills its window with pattern D, fence, rank 0 gets it back
 *    and checks; then the same under passive-target locks
 *    (MPI_Win_lock/MPI_Win_unlock, MPI_Get after MPI_Put to the same
 *    target, which MPI orders through the flush in between).
 *    Each step prints "ok ..." on rank 0; the job ends "mpi_verify all ok".
 * mpi_verify -b	a benchmark instead: 8 B ping-pong latency (half the
 *			round trip) and 1 MiB streaming bandwidth (a window
 *			of 8 nonblocking sends, acknowledged), printed as
 *			"mpi_verify bench lat_us L bw_MBps B".
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "data_pattern.h"

#define MAX_MSG		(4u << 20)
#define NB_COUNT	8
#define NB_SIZE		(256u << 10)
#define RED_COUNT	(1u << 20)

static int rank;

/* MPI calls return MPI_SUCCESS or abort the job (MPI_ERRORS_ARE_FATAL). */
#define MPI_OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static void *xmalloc(size_t n)
{
	void *p = malloc(n);

	CHECK(p, "out of memory (%zu bytes)", n);
	return p;
}

/* The sizes of the point-to-point and one-sided checks. */
static const size_t sizes[] = {
	1, 2, 7, 64, 1000, 4096, 4097, 65536, 65537, 1u << 20,
	(1u << 20) + 3, MAX_MSG,
};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Receive @n bytes from @peer into @buf and check their length. */
static void recv_exact(uint8_t *buf, size_t n, int peer, int tag)
{
	MPI_Status st;
	int got;

	MPI_OK(MPI_Recv(buf, (int)MAX_MSG, MPI_BYTE, peer, tag,
			MPI_COMM_WORLD, &st));
	MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
	CHECK((size_t)got == n, "tag %d: received %d bytes, expected %zu",
	      tag, got, n);
}

static void check_p2p(uint8_t *sbuf, uint8_t *rbuf)
{
	int peer = !rank;
	size_t k, n;
	char what[64];

	for (k = 0; k < NSIZES; k++) {
		n = sizes[k];
		snprintf(what, sizeof(what), "p2p %zu B", n);
		if (rank == 0) {
			fill_pattern(sbuf, n, 1 + k, 0);
			MPI_OK(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 1,
					MPI_COMM_WORLD));
			recv_exact(rbuf, n, peer, 2);
			check_pattern(rbuf, n, 100 + k, 0, what);
		} else {
			recv_exact(rbuf, n, peer, 1);
			check_pattern(rbuf, n, 1 + k, 0, what);
			fill_pattern(sbuf, n, 100 + k, 0);
			MPI_OK(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 2,
					MPI_COMM_WORLD));
		}
		/* Both directions at once. */
		fill_pattern(sbuf, n, 200 + 2 * k + rank, 0);
		memset(rbuf, FILL, n);
		MPI_OK(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, peer, 3, rbuf,
				    (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
				    MPI_STATUS_IGNORE));
		check_pattern(rbuf, n, 200 + 2 * k + peer, 0, what);
	}
	if (rank == 0)
		printf("ok p2p %zu sizes, 1 B to %u B, both ways\n", NSIZES,
		       MAX_MSG);
}

static void check_nonblocking(uint8_t *sbuf, uint8_t *rbuf)
{
	MPI_Request req[2 * NB_COUNT];
	int peer = !rank, i;
	char what[64];

	for (i = 0; i < NB_COUNT; i++) {
		MPI_OK(MPI_Irecv(rbuf + i * NB_SIZE, NB_SIZE, MPI_BYTE, peer,
				 10 + i, MPI_COMM_WORLD, &req[i]));
		fill_pattern(sbuf + i * NB_SIZE, NB_SIZE, 300 + 16 * rank + i,
			     0);
	}
	/* Sent in reverse tag order: matching is by tag, not arrival. */
	for (i = NB_COUNT - 1; i >= 0; i--)
		MPI_OK(MPI_Isend(sbuf + i * NB_SIZE, NB_SIZE, MPI_BYTE, peer,
				 10 + i, MPI_COMM_WORLD, &req[NB_COUNT + i]));
	MPI_OK(MPI_Waitall(2 * NB_COUNT, req, MPI_STATUSES_IGNORE));
	for (i = 0; i < NB_COUNT; i++) {
		snprintf(what, sizeof(what), "nonblocking message %d", i);
		check_pattern(rbuf + i * NB_SIZE, NB_SIZE, 300 + 16 * peer + i,
			      0, what);
	}
	if (rank == 0)
		printf("ok nonblocking %d x %u B in flight each way\n",
		       NB_COUNT, NB_SIZE);
}

static void check_allreduce(void)
{
	uint32_t *in = xmalloc(RED_COUNT * sizeof(*in));
	uint32_t *out = xmalloc(RED_COUNT * sizeof(*out));
	double din[64], dout[64];
	uint32_t i;

	/* Rank r contributes i * (r + 1) + r: the sum is 3i + 1. */
	for (i = 0; i < RED_COUNT; i++)
		in[i] = i * (rank + 1) + rank;
	MPI_OK(MPI_Allreduce(in, out, RED_COUNT, MPI_UINT32_T, MPI_SUM,
			     MPI_COMM_WORLD));
	for (i = 0; i < RED_COUNT; i++)
		CHECK(out[i] == 3 * i + 1, "allreduce sum [%u] = %u, expected %u",
		      i, out[i], 3 * i + 1);
	for (i = 0; i < 64; i++)
		din[i] = (i % 2 == (uint32_t)rank) ? i + 0.5 : -1.0 * i;
	MPI_OK(MPI_Allreduce(din, dout, 64, MPI_DOUBLE, MPI_MAX,
			     MPI_COMM_WORLD));
	for (i = 0; i < 64; i++)
		CHECK(dout[i] == i + 0.5, "allreduce max [%u] = %g", i,
		      dout[i]);
	free(in);
	free(out);
	if (rank == 0)
		printf("ok allreduce sum of %u integers, max of 64 doubles\n",
		       RED_COUNT);
}

/* Where put k of size sizes[k] lands in the window: disjoint ranges. */
static size_t put_offset(size_t k)
{
	size_t off = 0, i;

	for (i = 0; i < k; i++)
		off += sizes[i] + GUARD;
	return off;
}

/* One-sided transfers; @win exposes @base (2 * MAX_MSG bytes) on each rank. */
static void check_one_sided_fence(MPI_Win win, uint8_t *base, uint8_t *buf)
{
	size_t k, n, off, end = 0;
	char what[64];

	/* Sizes that fit the window side by side, with gaps between. */
	memset(base, FILL, 2 * MAX_MSG);
	MPI_OK(MPI_Win_fence(0, win));
	for (k = 0; k < NSIZES - 1; k++) {
		n = sizes[k];
		off = put_offset(k);
		if (rank == 0) {
			fill_pattern(buf + off, n, 400 + k, 0);
			MPI_OK(MPI_Put(buf + off, (int)n, MPI_BYTE, 1, off,
				       (int)n, MPI_BYTE, win));
		}
		end = off + n;
	}
	MPI_OK(MPI_Win_fence(0, win));
	if (rank == 1) {
		for (k = 0; k < NSIZES - 1; k++) {
			snprintf(what, sizeof(what), "put %zu B", sizes[k]);
			off = put_offset(k);
			check_pattern(base + off, sizes[k], 400 + k, 0, what);
			check_untouched(base + off + sizes[k], GUARD, what);
		}
		check_untouched(base + end + GUARD, 2 * MAX_MSG - end - GUARD,
				"behind the puts");
		fill_pattern(base, MAX_MSG, 500, 0);
	}
	MPI_OK(MPI_Win_fence(0, win));
	if (rank == 0) {
		memset(buf, FILL, MAX_MSG);
		MPI_OK(MPI_Get(buf, MAX_MSG, MPI_BYTE, 1, 0, MAX_MSG,
			       MPI_BYTE, win));
	}
	MPI_OK(MPI_Win_fence(0, win));
	if (rank == 0) {
		check_pattern(buf, MAX_MSG, 500, 0, "get 4 MiB");
		printf("ok one-sided (fence) %zu puts of 1 B to %zu B, get of %u B\n",
		       NSIZES - 1, sizes[NSIZES - 2], MAX_MSG);
	}
}

static void check_one_sided_lock(MPI_Win win, uint8_t *base, uint8_t *buf)
{
	const size_t n = 65537, off = 12345;
	int peer = !rank;
	char what[64];

	/* Each rank writes into the other's window, then reads it back. */
	memset(base, FILL, 2 * MAX_MSG);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
	fill_pattern(buf, n, 600 + rank, 0);
	MPI_OK(MPI_Put(buf, (int)n, MPI_BYTE, peer, off, (int)n, MPI_BYTE,
		       win));
	MPI_OK(MPI_Win_flush(peer, win));
	memset(buf + MAX_MSG, FILL, n);
	MPI_OK(MPI_Get(buf + MAX_MSG, (int)n, MPI_BYTE, peer, off, (int)n,
		       MPI_BYTE, win));
	MPI_OK(MPI_Win_unlock(peer, win));
	snprintf(what, sizeof(what), "rank %d: get after put", rank);
	check_pattern(buf + MAX_MSG, n, 600 + rank, 0, what);
	MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
	snprintf(what, sizeof(what), "rank %d: window after peer's put", rank);
	check_untouched(base + off - GUARD, GUARD, what);
	check_pattern(base + off, n, 600 + peer, 0, what);
	check_untouched(base + off + n, GUARD, what);
	if (rank == 0)
		printf("ok one-sided (passive lock) put, flush, get of %zu B both ways\n",
		       n);
}

static double now(void)
{
	return MPI_Wtime();
}

static void bench(uint8_t *sbuf, uint8_t *rbuf)
{
	const int lat_iters = 1000, bw_iters = 10, window = 8;
	const int bw_size = 1 << 20;
	MPI_Request req[8];
	int peer = !rank, i, w;
	double t0 = 0, lat, bw;

	for (i = -100; i < lat_iters; i++) {
		if (i == 0)
			t0 = now();
		if (rank == 0) {
			MPI_OK(MPI_Send(sbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
			MPI_OK(MPI_Recv(rbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
		} else {
			MPI_OK(MPI_Recv(rbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
			MPI_OK(MPI_Send(sbuf, 8, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
		}
	}
	lat = (now() - t0) * 1e6 / lat_iters / 2;

	/* Rank 0 streams windows of sends; rank 1 acknowledges each window. */
	for (i = -2; i < bw_iters; i++) {
		if (i == 0)
			t0 = now();
		for (w = 0; w < window; w++) {
			if (rank == 0)
				MPI_OK(MPI_Isend(sbuf, bw_size, MPI_BYTE, peer, 2,
						 MPI_COMM_WORLD, &req[w]));
			else
				MPI_OK(MPI_Irecv(rbuf, bw_size, MPI_BYTE, peer, 2,
						 MPI_COMM_WORLD, &req[w]));
		}
		MPI_OK(MPI_Waitall(window, req, MPI_STATUSES_IGNORE));
		if (rank == 0)
			MPI_OK(MPI_Recv(rbuf, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
					MPI_STATUS_IGNORE));
		else
			MPI_OK(MPI_Send(sbuf, 1, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
	}
	bw = (double)bw_size * window * bw_iters / (now() - t0) / 1e6;
	if (rank == 0)
		printf("mpi_verify bench lat_us %.2f bw_MBps %.2f\n", lat, bw);
}

int main(int argc, char **argv)
{
	uint8_t *sbuf, *rbuf, *base;
	char host[MPI_MAX_PROCESSOR_NAME];
	int size, len, do_bench = argc > 1 && !strcmp(argv[1], "-b");
	MPI_Win win;

	MPI_OK(MPI_Init(&argc, &argv));
	MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	CHECK(size == 2, "needs 2 ranks, has %d", size);
	MPI_OK(MPI_Get_processor_name(host, &len));
	printf("rank %d of %d on %s\n", rank, size, host);
	fflush(stdout);

	sbuf = xmalloc(2 * MAX_MSG);
	rbuf = xmalloc(2 * MAX_MSG);
	if (do_bench) {
		memset(sbuf, 1, 2 * MAX_MSG);
		bench(sbuf, rbuf);
	} else {
		check_p2p(sbuf, rbuf);
		check_nonblocking(sbuf, rbuf);
		check_allreduce();
		MPI_OK(MPI_Alloc_mem(2 * MAX_MSG, MPI_INFO_NULL, &base));
		MPI_OK(MPI_Win_create(base, 2 * MAX_MSG, 1, MPI_INFO_NULL,
				      MPI_COMM_WORLD, &win));
		check_one_sided_fence(win, base, sbuf);
		check_one_sided_lock(win, base, sbuf);
		MPI_OK(MPI_Win_free(&win));
		MPI_OK(MPI_Free_mem(base));
		if (rank == 0)
			printf("mpi_verify all ok\n");
	}
	free(sbuf);
	free(rbuf);
	MPI_OK(MPI_Finalize());
	return 0;
}
