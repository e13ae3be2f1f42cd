// SPDX-License-Identifier: GPL-2.0
/*
 * RDS (the kernel's rds and rds_rdma modules) over the device: PF_RDS
 * sockets on the RDS IB transport, every byte checked.
 *
 * rds_verify -l LOCAL -r REMOTE [-p PORT] [-c]
 *
 * Both ends bind LOCAL:PORT (an address of the RDMA device's netdev) and
 * talk to REMOTE:PORT; -c marks the initiator, the other end answers.
 *  - the socket is on the IB transport (SO_RDS_TRANSPORT, set before
 *    bind and read back), so RDS cannot have fallen back to TCP;
 *  - messages of 1 B to 1 MiB (RDS's largest), several of each size: the
 *    initiator sends pattern A, the responder checks length and bytes
 *    and answers with pattern B, which the initiator checks;
 *  - RDS's RDMA path: the responder maps a 256 KiB buffer holding
 *    pattern C (RDS_CMSG_RDMA_MAP, a fast-registration MR in rds_rdma)
 *    with the message that announces it, which hands the initiator the
 *    cookie (RDS_CMSG_RDMA_DEST); the initiator RDMA-reads it (RDS_CMSG_RDMA_ARGS
 *    riding on a message, completion notified with RDS_CMSG_RDMA_STATUS)
 *    and checks C, then RDMA-writes pattern D into it; the responder
 *    checks D once the message that carried the write arrives;
 *  - the IB transport's connection to REMOTE is listed by
 *    RDS_INFO_IB_CONNECTIONS (what rds-info -I shows).
 * Each step prints "ok ..."; both ends end with "rds_verify all ok".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/rds.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check.h"
#include "data_pattern.h"

#ifndef AF_RDS
#define AF_RDS 21
#endif

#define MAX_MSG		(1u << 20)
#define RDMA_LEN	(256u << 10)
#define ITERS		3
#define TIMEOUT_MS	60000

static const size_t sizes[] = {
	1, 100, 1024, 4095, 4096, 4097, 8195, 65536, 262147, MAX_MSG,
};

static int fd;
static struct sockaddr_in peer;
static int rdma_status = -1;	/* the last RDMA completion notified */
static uint64_t dest_cookie;	/* the last RDMA destination announced */

/* The control messages: fixed little records, tagged. */
struct ctl {
	char tag[16];
	uint64_t cookie;
	uint64_t len;
};

static void send_buf(const void *buf, size_t len, const void *cmsg,
		     size_t cmsg_len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = &peer, .msg_namelen = sizeof(peer),
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = (void *)cmsg, .msg_controllen = cmsg_len,
	};
	ssize_t n;

	/* A congested peer makes RDS say ENOBUFS: wait and try again. */
	for (;;) {
		n = sendmsg(fd, &m, 0);
		if (n >= 0 || (errno != ENOBUFS && errno != EAGAIN))
			break;
		poll(NULL, 0, 10);
	}
	CHECK(n == (ssize_t)len, "sendmsg of %zu bytes: %zd (%s)", len, n,
	      n < 0 ? strerror(errno) : "short");
}

/*
 * The next message into @buf (@cap bytes), its length returned; RDMA
 * completion notifications met on the way go to rdma_status, a region
 * the message announces to dest_cookie; with @cap 0, the next
 * notification alone is waited for.
 */
static size_t recv_buf(void *buf, size_t cap)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_notify)) * 4];
		struct cmsghdr align;
	} c;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct sockaddr_in from;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct msghdr m;
	struct cmsghdr *h;
	bool notified;
	ssize_t n;

	for (;;) {
		CHECK(poll(&p, 1, TIMEOUT_MS) == 1, "nothing received in %d ms",
		      TIMEOUT_MS);
		memset(&m, 0, sizeof(m));
		m.msg_name = &from;
		m.msg_namelen = sizeof(from);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = c.b;
		m.msg_controllen = sizeof(c.b);
		n = recvmsg(fd, &m, 0);
		CHECK(n >= 0, "recvmsg: %s", strerror(errno));
		CHECK(!(m.msg_flags & MSG_TRUNC), "message truncated (> %zu)",
		      cap);
		notified = false;
		for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h)) {
			struct rds_rdma_notify nt;

			if (h->cmsg_level != SOL_RDS)
				continue;
			if (h->cmsg_type == RDS_CMSG_RDMA_DEST) {
				memcpy(&dest_cookie, CMSG_DATA(h),
				       sizeof(dest_cookie));
				continue;
			}
			if (h->cmsg_type != RDS_CMSG_RDMA_STATUS)
				continue;
			memcpy(&nt, CMSG_DATA(h), sizeof(nt));
			rdma_status = nt.status;
			notified = true;
		}
		if (notified && n == 0) {
			if (!cap)
				return 0;	/* what the caller waited for */
			continue;		/* a notification, not a message */
		}
		CHECK(from.sin_addr.s_addr == peer.sin_addr.s_addr &&
		      from.sin_port == peer.sin_port,
		      "message from %s:%u, not the peer",
		      inet_ntoa(from.sin_addr), ntohs(from.sin_port));
		return n;
	}
}

static void send_ctl(const char *tag, uint64_t cookie, uint64_t len)
{
	struct ctl c = { .cookie = cookie, .len = len };

	snprintf(c.tag, sizeof(c.tag), "%s", tag);
	send_buf(&c, sizeof(c), NULL, 0);
}

static struct ctl recv_ctl(const char *tag)
{
	struct ctl c;
	size_t n = recv_buf(&c, sizeof(c));

	CHECK(n == sizeof(c) && !strncmp(c.tag, tag, sizeof(c.tag)),
	      "expected control message '%s', got %zu bytes '%.15s'", tag, n,
	      c.tag);
	return c;
}

/* @tag one way and back, the initiator first. */
static void handshake(bool initiator, const char *tag)
{
	if (initiator)
		send_ctl(tag, 0, 0);
	recv_ctl(tag);
	if (!initiator)
		send_ctl(tag, 0, 0);
}

/* Echo of every size: A from the initiator, B back. */
static void echo(bool initiator, uint8_t *buf)
{
	unsigned int i, it;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t len = sizes[i];

		for (it = 0; it < ITERS; it++) {
			unsigned int a = 2 * (i * ITERS + it) + 1, b = a + 1;
			size_t n;

			if (initiator) {
				fill_pattern(buf, len, a, 0);
				send_buf(buf, len, NULL, 0);
				memset(buf, FILL, len);
				n = recv_buf(buf, MAX_MSG);
				CHECK(n == len, "answer of %zu bytes, not %zu",
				      n, len);
				check_pattern(buf, len, b, 0, "answer");
			} else {
				memset(buf, FILL, len);
				n = recv_buf(buf, MAX_MSG);
				CHECK(n == len, "message of %zu bytes, not %zu",
				      n, len);
				check_pattern(buf, len, a, 0, "message");
				fill_pattern(buf, len, b, 0);
				send_buf(buf, len, NULL, 0);
			}
		}
		printf("ok echo %zu bytes x %d\n", len, ITERS);
	}
}

/* RDS_CMSG_RDMA_ARGS on a small message: read (@write false) or write. */
static void rdma_op(uint64_t cookie, void *local, size_t len, bool write,
		    const char *tag)
{
	union {
		char b[CMSG_SPACE(sizeof(struct rds_rdma_args))];
		struct cmsghdr align;
	} c;
	struct rds_iovec vec = { .addr = (uintptr_t)local, .bytes = len };
	struct rds_rdma_args a = {
		.cookie = cookie,
		/* The region is zero-based: offsets into it. */
		.remote_vec = { .addr = 0, .bytes = len },
		.local_vec_addr = (uintptr_t)&vec,
		.nr_local = 1,
		.flags = RDS_RDMA_NOTIFY_ME | (write ? RDS_RDMA_READWRITE : 0),
		.user_token = write ? 2 : 1,
	};
	struct cmsghdr *h = (struct cmsghdr *)c.b;
	struct ctl m = { .cookie = cookie, .len = len };

	memset(&c, 0, sizeof(c));
	h->cmsg_level = SOL_RDS;
	h->cmsg_type = RDS_CMSG_RDMA_ARGS;
	h->cmsg_len = CMSG_LEN(sizeof(a));
	memcpy(CMSG_DATA(h), &a, sizeof(a));
	snprintf(m.tag, sizeof(m.tag), "%s", tag);
	rdma_status = -1;
	send_buf(&m, sizeof(m), c.b, sizeof(c.b));
	recv_ctl(write ? "wr-ok" : "rd-ok");
	/* The sender's completion may be reported after the answer. */
	if (rdma_status == -1)
		CHECK(recv_buf(NULL, 0) == 0, "a message instead of the RDMA notification");
	CHECK(rdma_status == RDS_RDMA_SUCCESS, "RDMA %s: notified status %d",
	      write ? "write" : "read", rdma_status);
}

static void rdma(bool initiator)
{
	uint8_t *region;
	struct ctl c;

	CHECK(!posix_memalign((void **)&region, 4096, RDMA_LEN), "memalign");
	if (initiator) {
		dest_cookie = 0;
		c = recv_ctl("mr");
		CHECK(c.len == RDMA_LEN, "region of %llu bytes",
		      (unsigned long long)c.len);
		CHECK(dest_cookie, "no RDS_CMSG_RDMA_DEST with the region");
		c.cookie = dest_cookie;
		memset(region, FILL, RDMA_LEN);
		rdma_op(c.cookie, region, RDMA_LEN, false, "rd");
		check_pattern(region, RDMA_LEN, 101, 0, "RDMA read");
		printf("ok RDMA read of %u bytes\n", RDMA_LEN);
		fill_pattern(region, RDMA_LEN, 102, 0);
		rdma_op(c.cookie, region, RDMA_LEN, true, "wr");
		printf("ok RDMA write of %u bytes\n", RDMA_LEN);
		recv_ctl("checked");
	} else {
		union {
			char b[CMSG_SPACE(sizeof(struct rds_get_mr_args))];
			struct cmsghdr align;
		} cm;
		struct cmsghdr *h = (struct cmsghdr *)cm.b;
		struct rds_get_mr_args mr = {
			.vec = { .addr = (uintptr_t)region, .bytes = RDMA_LEN },
			.flags = RDS_RDMA_READWRITE,
		};
		struct ctl m = { .tag = "mr", .len = RDMA_LEN };
		uint64_t cookie = 0;

		fill_pattern(region, RDMA_LEN, 101, 0);
		/*
		 * rds_rdma registers with FRWR, which needs the connection's
		 * QP: the region is mapped by the message that announces it
		 * (RDS_CMSG_RDMA_MAP; RDS_GET_MR alone is EOPNOTSUPP). The
		 * peer gets the cookie as RDS_CMSG_RDMA_DEST.
		 */
		mr.cookie_addr = (uintptr_t)&cookie;
		memset(&cm, 0, sizeof(cm));
		h->cmsg_level = SOL_RDS;
		h->cmsg_type = RDS_CMSG_RDMA_MAP;
		h->cmsg_len = CMSG_LEN(sizeof(mr));
		memcpy(CMSG_DATA(h), &mr, sizeof(mr));
		send_buf(&m, sizeof(m), cm.b, sizeof(cm.b));
		CHECK(cookie, "RDS_CMSG_RDMA_MAP gave no cookie");
		recv_ctl("rd");
		check_pattern(region, RDMA_LEN, 101, 0, "region after read");
		send_ctl("rd-ok", 0, 0);
		/* The write is done before the message that carries it. */
		recv_ctl("wr");
		check_pattern(region, RDMA_LEN, 102, 0, "RDMA-written region");
		send_ctl("wr-ok", 0, 0);
		printf("ok region of %u bytes read and written remotely\n",
		       RDMA_LEN);
		CHECK(!setsockopt(fd, SOL_RDS, RDS_FREE_MR, &(struct rds_free_mr_args){
			.cookie = cookie }, sizeof(struct rds_free_mr_args)),
		      "RDS_FREE_MR: %s", strerror(errno));
		send_ctl("checked", 0, 0);
	}
	free(region);
}

/* The IB transport lists a connection to the peer (rds-info -I). */
static void ib_connection(struct in_addr local)
{
	static char buf[1 << 16];
	socklen_t len = sizeof(buf);
	int each, i;

	each = getsockopt(fd, SOL_RDS, RDS_INFO_IB_CONNECTIONS, buf, &len);
	CHECK(each > 0, "RDS_INFO_IB_CONNECTIONS: %s", strerror(errno));
	for (i = 0; (i + 1) * each <= (int)len; i++) {
		struct rds_info_rdma_connection *ic = (void *)(buf + i * each);

		if (ic->src_addr == local.s_addr &&
		    ic->dst_addr == peer.sin_addr.s_addr) {
			printf("ok IB connection %s -> ", inet_ntoa(local));
			printf("%s, max_send_wr %u, rdma_mr_max %u\n",
			       inet_ntoa(peer.sin_addr), ic->max_send_wr,
			       ic->rdma_mr_max);
			return;
		}
	}
	CHECK(0, "no IB connection to the peer among %d", (int)len / each);
}

int main(int argc, char **argv)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	int trans = RDS_TRANS_IB, buf = 8 << 20, opt, port = 18634;
	bool initiator = false;
	socklen_t sl = sizeof(trans);
	uint8_t *data;

	peer.sin_family = AF_INET;
	while ((opt = getopt(argc, argv, "l:r:p:c")) != -1) {
		switch (opt) {
		case 'l':
			CHECK(inet_aton(optarg, &me.sin_addr), "bad -l");
			break;
		case 'r':
			CHECK(inet_aton(optarg, &peer.sin_addr), "bad -r");
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'c':
			initiator = true;
			break;
		default:
			fprintf(stderr, "usage: %s -l LOCAL -r REMOTE [-p PORT] [-c]\n",
				argv[0]);
			return 2;
		}
	}
	CHECK(me.sin_addr.s_addr && peer.sin_addr.s_addr, "-l and -r are needed");
	me.sin_port = peer.sin_port = htons(port);
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = socket(AF_RDS, SOCK_SEQPACKET, 0);
	CHECK(fd >= 0, "socket(AF_RDS): %s (is rds_rdma loaded?)", strerror(errno));
	/* Room for a 1 MiB message each way (root may exceed rmem_max). */
	CHECK(!setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) &&
	      !setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)),
	      "socket buffers: %s", strerror(errno));
	CHECK(!setsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, sizeof(trans)),
	      "SO_RDS_TRANSPORT IB: %s", strerror(errno));
	CHECK(!bind(fd, (struct sockaddr *)&me, sizeof(me)),
	      "bind %s:%d on the IB transport: %s", inet_ntoa(me.sin_addr),
	      port, strerror(errno));
	trans = -1;
	CHECK(!getsockopt(fd, SOL_RDS, SO_RDS_TRANSPORT, &trans, &sl) &&
	      trans == RDS_TRANS_IB, "transport %d, not IB", trans);
	printf("ok bound %s:%d on the IB transport\n", inet_ntoa(me.sin_addr), port);

	data = malloc(MAX_MSG);
	CHECK(data, "malloc");
	/* The responder is bound before the initiator starts (the case). */
	handshake(initiator, "hello");
	echo(initiator, data);
	rdma(initiator);
	ib_connection(me.sin_addr);
	/* Both have checked everything before either closes. */
	handshake(initiator, "bye");
	close(fd);
	free(data);
	printf("rds_verify all ok\n");
	return 0;
}
