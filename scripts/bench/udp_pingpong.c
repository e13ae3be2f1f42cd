// SPDX-License-Identifier: GPL-2.0
/*
 * udp_pingpong -s PORT | -c ADDR PORT N [FRAMES]: a UDP ping-pong of 2-byte
 * datagrams between two busy-polling processes, as perftest's latency
 * tests poll: no RDMA, only the IP stack and the wire under it. Each
 * turn is FRAMES datagrams back to back (default 1): an RDMA WRITE
 * ping-pong sends two per turn, the ACK of the peer's WRITE and its own
 * WRITE. The server answers each turn with as many as it got until
 * killed; the client prints the median and the mean round trip of N
 * turns in microseconds ("udp_pingpong median X us mean Y us"). Used by
 * scripts/wire-latency.sh to show how much of a latency figure is the
 * wire's own.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Spins on a non-blocking receive: no sleep, no wakeup on the way. */
static ssize_t spin_recv(int fd, char *buf, size_t len,
			 struct sockaddr_in *from, double deadline)
{
	socklen_t alen = sizeof(*from);

	for (;;) {
		ssize_t n = recvfrom(fd, buf, len, MSG_DONTWAIT,
				     (struct sockaddr *)from, &alen);

		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return n;
		if (deadline && now_us() > deadline)
			return -1;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET }, from;
	char buf[64] = "pp";
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		return perror("socket"), 1;
	if (argc == 3 && !strcmp(argv[1], "-s")) {
		addr.sin_port = htons(atoi(argv[2]));
		if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)))
			return perror("bind"), 1;
		/* The datagram's first byte says how many end the turn. */
		for (;;) {
			ssize_t n = spin_recv(fd, buf, sizeof(buf), &from, 0);
			int k;

			if (n <= 0 || buf[1] != buf[0])
				continue;
			for (k = 1; k <= buf[0]; k++) {
				char out[2] = { buf[0], (char)k };

				sendto(fd, out, 2, 0, (struct sockaddr *)&from,
				       sizeof(from));
			}
		}
	}
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "-c")) {
		int i, k, n = atoi(argv[4]), lost = 0;
		int frames = argc == 6 ? atoi(argv[5]) : 1;
		double *rtt, sum = 0;

		if (n <= 0 || frames < 1 || frames > 8 ||
		    inet_pton(AF_INET, argv[2], &addr.sin_addr) != 1)
			return fprintf(stderr, "bad arguments\n"), 2;
		addr.sin_port = htons(atoi(argv[3]));
		rtt = calloc(n, sizeof(*rtt));
		if (!rtt)
			return 1;
		for (i = 0; i < n; i++) {
			double t0 = now_us();

			/* Turn: frames-1 fillers, then the one asking back. */
			for (k = 1; k <= frames; k++) {
				char out[2] = { (char)frames, (char)k };

				if (sendto(fd, out, 2, 0,
					   (struct sockaddr *)&addr,
					   sizeof(addr)) != 2)
					return perror("sendto"), 1;
			}
			/* Until the answer's last frame; a loss: again. */
			do {
				if (spin_recv(fd, buf, sizeof(buf), &from,
					      t0 + 1e6) < 0)
					break;
			} while (buf[1] != frames);
			if (buf[1] != frames) {
				if (++lost > n / 10 + 10)
					return fprintf(stderr, "no echo\n"), 1;
				i--;
				continue;
			}
			rtt[i] = now_us() - t0;
			sum += rtt[i];
		}
		qsort(rtt, n, sizeof(*rtt), cmp_double);
		printf("udp_pingpong median %.1f us mean %.1f us (%d turns of %d frames, %d lost)\n",
		       rtt[n / 2], sum / n, n, frames, lost);
		return 0;
	}
	fprintf(stderr, "usage: udp_pingpong -s PORT | -c ADDR PORT N [FRAMES]\n");
	return 2;
}
