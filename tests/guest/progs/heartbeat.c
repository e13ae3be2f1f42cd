// SPDX-License-Identifier: GPL-2.0
/*
 * heartbeat: wakes up every 2 ms until SIGINT or SIGTERM, then prints how
 * often it woke and the longest time between two wake-ups: how long the
 * CPU it is pinned to (taskset) was kept from running it. A process that
 * sleeps gets the CPU back at once on an idle or a fairly shared CPU; a
 * kernel loop that never lets go of the CPU (bottom halves or preemption
 * off, no reschedule point) shows as a gap as long as the loop.
 *
 * Prints "heartbeat on CPU C" when it starts, and at the end
 * "heartbeat on CPU C: N beats in S s, longest gap G ms at T s, K gaps
 * over 1 s" (T: seconds since the start, when that gap ended).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 2000000 };
	struct sigaction sa;
	double start, last, t, gap = 0, gap_at = 0;
	long beats = 0, long_gaps = 0;
	int cpu = sched_getcpu();

	(void)argv;
	CHECK(argc == 1, "usage: heartbeat (stops at SIGINT or SIGTERM)");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	CHECK(!sigaction(SIGINT, &sa, NULL) && !sigaction(SIGTERM, &sa, NULL),
	      "sigaction");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("heartbeat on CPU %d\n", cpu);
	start = last = now_s();
	while (!stop) {
		nanosleep(&nap, NULL);
		t = now_s();
		if (t - last > gap) {
			gap = t - last;
			gap_at = t;
		}
		long_gaps += t - last > 1;
		last = t;
		beats++;
		/* taskset keeps it on one CPU: a move would fool the gap. */
		CHECK(sched_getcpu() == cpu, "moved from CPU %d to %d", cpu,
		      sched_getcpu());
	}
	printf("heartbeat on CPU %d: %ld beats in %.1f s, longest gap %.0f ms "
	       "at %.1f s, %ld gaps over 1 s\n", cpu, beats, last - start,
	       gap * 1000, gap_at - start, long_gaps);
	return 0;
}
