// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast (IBTA 10.5) through libibverbs.
 *
 * mcast run [-r] [-G] [-i IFNAME] SDEV SGID4 SGID6 RDEV
 *	A sender QP on SDEV (GID indexes SGID4 / SGID6 for its IPv4 and
 *	IPv6 source addresses) sends to groups that receiver QPs on RDEV
 *	(the "remote" device) and on SDEV itself (the sender's own device)
 *	are attached to. Checks, stopping at the first failure:
 *	 - attach errors: a unicast GID, an RC QP, detaching a QP that is
 *	   not attached (EINVAL); attaching twice succeeds; the per-group
 *	   limit max_mcast_qp_attach, one more is ENOMEM; with -G also the
 *	   per-device limit max_mcast_grp (one QP in that many groups);
 *	 - IPv4 group: every attached QP with the right Q_Key gets each
 *	   message exactly once, byte for byte, with the completion fields
 *	   (GRH flag, immediate, src_qp, byte_len) and the GRH (IPv4 header
 *	   in bytes 20..39, destination = the group); a QP with another
 *	   Q_Key gets nothing;
 *	 - a detached QP gets nothing more, the others still do;
 *	 - IPv6 group: the same, with the IPv6 header as the GRH;
 *	 - with -i: RDEV's netdev IFNAME is a member of the group at the IP
 *	   level while a QP of RDEV is attached, and no longer once none is
 *	   (/proc/net/igmp, /proc/net/igmp6 of this namespace); and a group
 *	   joined at the IP level with no QP attached is a counted drop
 *	   (RDEV's rx_mcast_no_group counter, if it has one).
 *	-r: rdma_rxe quirk. rxe 6.1 joins a group at the Ethernet level only,
 *	so the host's IP stack drops the group's packets before rxe sees
 *	them; the program joins the groups on IFNAME itself (a UDP socket)
 *	and skips the IP membership and counter checks.
 *
 * mcast hold DEV
 *	Attaches two UD QPs to 239.1.2.5 and ff0e::db8:5, prints "held",
 *	and sleeps until killed: for device removal under attached QPs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "open_device.h"
#include "port_counter.h"
#include "rc_conn.h"

#define QKEY		0x11110000u
#define QKEY_OTHER	0x22220000u
#define BUF		8192
#define GRH		40
#define NRECV		16
#define MCAST_QPN	0xffffffu

#define GROUP4		"239.1.2.3"
#define GROUP4_NOQP	"239.1.2.7"
#define GROUP4_LIMIT	"239.1.2.9"
#define GROUP4_HOLD	"239.1.2.5"
#define GROUP6		"ff0e::db8:3"
#define GROUP6_HOLD	"ff0e::db8:5"

struct end {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	char *buf;		/* NRECV slots of BUF bytes */
};

static int quirk_rxe, group_limit;
static const char *ifname;

static void setup(struct end *e, const char *name, const char *dev,
		  uint32_t qkey, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.qp_type = type,
		.cap = { .max_send_wr = 16, .max_recv_wr = NRECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	e->name = name;
	e->ctx = open_by_name(dev);
	CHECK(e->ctx, "open %s", dev);
	e->pd = ibv_alloc_pd(e->ctx);
	e->cq = ibv_create_cq(e->ctx, 2 * NRECV + 16, NULL, NULL, 0);
	CHECK(e->pd && e->cq, "%s: pd/cq", name);
	init.send_cq = init.recv_cq = e->cq;
	e->qp = ibv_create_qp(e->pd, &init);
	CHECK(e->qp, "%s: create QP: %s", name, strerror(errno));
	e->buf = calloc(NRECV, BUF);
	CHECK(e->buf, "%s: buffer", name);
	e->mr = ibv_reg_mr(e->pd, e->buf, NRECV * BUF, IBV_ACCESS_LOCAL_WRITE);
	CHECK(e->mr, "%s: mr: %s", name, strerror(errno));
	if (type != IBV_QPT_UD)
		return;
	conn_ud_to_rts(e->qp, name, qkey, 0);
}

static void teardown(struct end *e)
{
	CHECK(!ibv_destroy_qp(e->qp), "%s: destroy QP", e->name);
	ibv_dereg_mr(e->mr);
	ibv_destroy_cq(e->cq);
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
	free(e->buf);
}

/* Fills the receive queue: slot i is wr_id i. */
static void post_recvs(struct end *e)
{
	int i;

	memset(e->buf, 0, NRECV * BUF);
	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)e->buf + i * BUF,
				       .length = BUF, .lkey = e->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		CHECK(!ibv_post_recv(e->qp, &wr, &bad), "%s: post_recv",
		      e->name);
	}
}

/* Waits up to @ms for one completion; returns 1 if there was one. */
static int poll_one(struct end *e, struct ibv_wc *wc, int ms)
{
	struct timespec ts = { 0, 1000000 };
	int i, n;

	for (i = 0; i < ms; i++) {
		n = ibv_poll_cq(e->cq, 1, wc);
		CHECK(n >= 0, "%s: poll_cq", e->name);
		if (n)
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

static char pattern(uint32_t msg, uint32_t i)
{
	return (char)(i * 13 + msg * 7 + 1);
}

static void send_ud(struct end *s, struct ibv_ah *ah, uint32_t qkey,
		    uint32_t msg, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = len,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 100 + msg, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(0x5eed0000u + msg),
		.wr.ud = { .ah = ah, .remote_qpn = MCAST_QPN,
			   .remote_qkey = qkey },
	}, *bad;
	struct ibv_wc wc;
	uint32_t i;

	for (i = 0; i < len; i++)
		s->buf[i] = pattern(msg, i);
	CHECK(!ibv_post_send(s->qp, &wr, &bad), "post_send: %s",
	      strerror(errno));
	CHECK(poll_one(s, &wc, 5000), "no send completion");
	CHECK(wc.status == IBV_WC_SUCCESS && wc.wr_id == 100 + msg &&
	      wc.opcode == IBV_WC_SEND, "send wc status %d opcode %d",
	      wc.status, wc.opcode);
}

/* ibv_attach_mcast and friends return an errno value (or set errno). */
static int verb_err(int ret)
{
	return ret ? (ret > 0 ? ret : errno) : 0;
}

static union ibv_gid group_gid(const char *addr)
{
	union ibv_gid g = { 0 };

	if (strchr(addr, ':')) {
		CHECK(inet_pton(AF_INET6, addr, g.raw) == 1, "bad %s", addr);
	} else {
		g.raw[10] = g.raw[11] = 0xff;
		CHECK(inet_pton(AF_INET, addr, g.raw + 12) == 1, "bad %s",
		      addr);
	}
	return g;
}

static void attach(struct end *e, const char *group)
{
	union ibv_gid g = group_gid(group);
	int err = verb_err(ibv_attach_mcast(e->qp, &g, 0));

	CHECK(!err, "%s: attach to %s: %s", e->name, group, strerror(err));
}

static void detach(struct end *e, const char *group)
{
	union ibv_gid g = group_gid(group);
	int err = verb_err(ibv_detach_mcast(e->qp, &g, 0));

	CHECK(!err, "%s: detach from %s: %s", e->name, group, strerror(err));
}

/* Is @ifname a member of @group at the IP level, in this namespace? */
static int ip_member(const char *group)
{
	char line[256], dev[64] = "", hex[64];
	int ipv6 = !!strchr(group, ':'), found = 0, idx, users;
	unsigned char want[16], got[16];
	unsigned int v4;
	FILE *f;

	CHECK(inet_pton(ipv6 ? AF_INET6 : AF_INET, group, want) == 1, "%s",
	      group);
	f = fopen(ipv6 ? "/proc/net/igmp6" : "/proc/net/igmp", "r");
	CHECK(f, "open /proc/net/igmp%s", ipv6 ? "6" : "");
	while (!found && fgets(line, sizeof(line), f)) {
		if (ipv6) {
			/* "idx dev group(32 hex digits) users flags timer" */
			if (sscanf(line, "%d %63s %32s %d", &idx, dev, hex,
				   &users) != 4 || strcmp(dev, ifname))
				continue;
			for (idx = 0; idx < 16; idx++)
				sscanf(hex + 2 * idx, "%2hhx", &got[idx]);
			found = !memcmp(got, want, 16);
		} else if (line[0] != '\t') {
			/* "idx dev : count querier" starts a device */
			if (sscanf(line, "%d %63s", &idx, dev) != 2)
				dev[0] = 0;
		} else if (!strcmp(dev, ifname) &&
			   sscanf(line, " %x %d", &v4, &users) == 2) {
			/* the group as the 4 address bytes in memory order */
			found = !memcmp(&v4, want, 4);
		}
	}
	fclose(f);
	return found;
}

static void check_member(const char *group, int expect)
{
	if (!ifname || quirk_rxe)
		return;
	CHECK(ip_member(group) == expect, "%s %s a member of %s at the IP level",
	      ifname, expect ? "is not" : "is still", group);
}

/* A UDP socket joined to @group on ifname: the IP stack takes its packets. */
static int ip_join(const char *group)
{
	unsigned int ifindex = if_nametoindex(ifname);
	int ipv6 = !!strchr(group, ':');
	int fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);

	CHECK(fd >= 0 && ifindex, "socket / interface %s", ifname);
	if (ipv6) {
		struct ipv6_mreq mr = { .ipv6mr_interface = ifindex };

		inet_pton(AF_INET6, group, &mr.ipv6mr_multiaddr);
		CHECK(!setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr,
				  sizeof(mr)), "join %s: %s", group,
		      strerror(errno));
	} else {
		struct ip_mreqn mr = { .imr_ifindex = ifindex };

		inet_pton(AF_INET, group, &mr.imr_multiaddr);
		CHECK(!setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
				  sizeof(mr)), "join %s: %s", group,
		      strerror(errno));
	}
	return fd;
}


/*
 * @r got message @msg of @len bytes from @s, with a GRH for @group sent
 * from @sgid, exactly once.
 */
static void expect_msg(struct end *r, struct end *s, const union ibv_gid *sgid,
		       const char *group, uint32_t msg, uint32_t len)
{
	union ibv_gid g = group_gid(group);
	struct ibv_wc wc;
	unsigned char *grh;
	uint32_t i;

	CHECK(poll_one(r, &wc, 3000), "%s: message %u for %s not received",
	      r->name, msg, group);
	CHECK(wc.status == IBV_WC_SUCCESS, "%s: recv status %d", r->name,
	      wc.status);
	CHECK(wc.opcode == IBV_WC_RECV, "%s: opcode %d", r->name, wc.opcode);
	CHECK(wc.qp_num == r->qp->qp_num, "%s: qp_num %u", r->name,
	      wc.qp_num);
	CHECK(wc.src_qp == s->qp->qp_num, "%s: src_qp %u, expected %u",
	      r->name, wc.src_qp, s->qp->qp_num);
	CHECK(wc.byte_len == GRH + len, "%s: byte_len %u, expected %u",
	      r->name, wc.byte_len, GRH + len);
	CHECK((wc.wc_flags & IBV_WC_GRH) && (wc.wc_flags & IBV_WC_WITH_IMM),
	      "%s: wc_flags %#x", r->name, wc.wc_flags);
	CHECK(ntohl(wc.imm_data) == 0x5eed0000u + msg, "%s: imm %#x",
	      r->name, ntohl(wc.imm_data));
	CHECK(wc.wr_id < NRECV, "%s: wr_id %llu", r->name,
	      (unsigned long long)wc.wr_id);
	grh = (unsigned char *)r->buf + wc.wr_id * BUF;
	for (i = 0; i < len; i++)
		CHECK(grh[GRH + i] == (unsigned char)pattern(msg, i),
		      "%s: message %u byte %u", r->name, msg, i);
	CHECK(grh[GRH + len] == 0, "%s: written past the message", r->name);
	if (strchr(group, ':')) {
		CHECK(grh[0] >> 4 == 6 && grh[6] == 17,
		      "%s: IPv6 GRH version %u next header %u", r->name,
		      grh[0] >> 4, grh[6]);
		CHECK(!memcmp(grh + 8, sgid->raw, 16), "%s: GRH source",
		      r->name);
		CHECK(!memcmp(grh + 24, g.raw, 16),
		      "%s: GRH destination is not the MGID", r->name);
	} else {
		for (i = 0; i < 20; i++)
			CHECK(grh[i] == 0, "%s: GRH byte %u not zero", r->name,
			      i);
		CHECK(grh[20] == 0x45 && grh[29] == 17,
		      "%s: IPv4 GRH %#x protocol %u", r->name, grh[20],
		      grh[29]);
		CHECK(!memcmp(grh + 32, sgid->raw + 12, 4), "%s: GRH source",
		      r->name);
		CHECK(!memcmp(grh + 36, g.raw + 12, 4),
		      "%s: GRH destination is not the group", r->name);
	}
}

static void expect_nothing(struct end *r, const char *why)
{
	struct ibv_wc wc;

	CHECK(!poll_one(r, &wc, 300), "%s: unexpected completion (%s): "
	      "status %d byte_len %u", r->name, why, wc.status, wc.byte_len);
}

static struct ibv_ah *group_ah(struct end *s, int sgid_index,
			       const char *group)
{
	struct ibv_ah_attr aha = { .is_global = 1, .port_num = 1 };
	struct ibv_ah *ah;

	aha.grh.dgid = group_gid(group);
	aha.grh.sgid_index = sgid_index;
	aha.grh.hop_limit = 64;
	ah = ibv_create_ah(s->pd, &aha);
	CHECK(ah, "create_ah for %s: %s", group, strerror(errno));
	return ah;
}

static const uint32_t sizes[] = { 1, 64, 300, 1000, 4, 777 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static struct ibv_qp *bare_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			      enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.qp_type = type, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	CHECK(qp, "create QP: %s", strerror(errno));
	return qp;
}

/*
 * Attach errors and the limits, on QPs of @rdev in RESET (attaching does
 * not depend on the state).
 */
static void check_errors(const char *rdev, const union ibv_gid *unicast)
{
	union ibv_gid g = group_gid(GROUP4_LIMIT);
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_qp **qps, *rc;
	int i, err, nqp, ngrp;
	struct ibv_pd *pd;
	struct ibv_cq *cq;

	ctx = open_by_name(rdev);
	CHECK(ctx, "open %s", rdev);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	CHECK(pd && cq, "pd/cq");
	CHECK(!ibv_query_device(ctx, &attr), "query_device");
	nqp = attr.max_mcast_qp_attach;
	ngrp = attr.max_mcast_grp;
	CHECK(nqp > 1 && nqp <= 1024, "max_mcast_qp_attach %d", nqp);
	CHECK(ngrp > 0 && ngrp <= 65536, "max_mcast_grp %d", ngrp);

	/* An RC QP cannot be attached. */
	rc = bare_qp(pd, cq, IBV_QPT_RC);
	err = verb_err(ibv_attach_mcast(rc, &g, 0));
	CHECK(err == EINVAL, "RC QP attach: %s, expected EINVAL",
	      strerror(err));
	CHECK(!ibv_destroy_qp(rc), "destroy RC QP");

	qps = calloc(nqp + 1, sizeof(*qps));
	CHECK(qps, "calloc");
	for (i = 0; i <= nqp; i++)
		qps[i] = bare_qp(pd, cq, IBV_QPT_UD);

	/* Not a multicast GID; not attached. */
	err = verb_err(ibv_attach_mcast(qps[0], unicast, 0));
	CHECK(err == EINVAL, "unicast GID attach: %s, expected EINVAL",
	      strerror(err));
	err = verb_err(ibv_detach_mcast(qps[0], &g, 0));
	CHECK(err == EINVAL, "detach when not attached: %s, expected EINVAL",
	      strerror(err));

	/* Attaching twice is no error; one detach undoes it. */
	CHECK(!verb_err(ibv_attach_mcast(qps[0], &g, 0)), "attach");
	CHECK(!verb_err(ibv_attach_mcast(qps[0], &g, 0)), "attach again");
	CHECK(!verb_err(ibv_detach_mcast(qps[0], &g, 0)), "detach");
	err = verb_err(ibv_detach_mcast(qps[0], &g, 0));
	CHECK(err == EINVAL, "second detach: %s, expected EINVAL",
	      strerror(err));
	check_member(GROUP4_LIMIT, 0);

	/* The per-group limit. */
	for (i = 0; i < nqp; i++) {
		err = verb_err(ibv_attach_mcast(qps[i], &g, 0));
		CHECK(!err, "attach QP %d: %s", i + 1, strerror(err));
	}
	err = verb_err(ibv_attach_mcast(qps[nqp], &g, 0));
	CHECK(err == ENOMEM, "QP %d of a group: %s, expected ENOMEM",
	      nqp + 1, strerror(err));
	check_member(GROUP4_LIMIT, 1);
	for (i = 0; i < nqp; i++)
		CHECK(!verb_err(ibv_detach_mcast(qps[i], &g, 0)), "detach %d",
		      i + 1);
	check_member(GROUP4_LIMIT, 0);
	printf("ok attach errors, limit of %d QPs per group\n", nqp);

	/* The per-device limit: one QP in groups 239.2.0.0 and up. */
	for (i = 0; group_limit && i <= ngrp; i++) {
		g = group_gid("239.2.0.0");
		g.raw[14] = i >> 8;
		g.raw[15] = i;
		err = verb_err(ibv_attach_mcast(qps[0], &g, 0));
		if (i < ngrp)
			CHECK(!err, "attach to group %d: %s", i + 1,
			      strerror(err));
		else
			CHECK(err == ENOMEM,
			      "group %d of a device: %s, expected ENOMEM",
			      ngrp + 1, strerror(err));
	}
	for (i = 0; group_limit && i < ngrp; i++) {
		g.raw[14] = i >> 8;
		g.raw[15] = i;
		err = verb_err(ibv_detach_mcast(qps[0], &g, 0));
		CHECK(!err, "detach from group %d: %s", i + 1, strerror(err));
	}
	if (group_limit)
		printf("ok limit of %d groups per device\n", ngrp);

	for (i = 0; i <= nqp; i++)
		CHECK(!ibv_destroy_qp(qps[i]), "destroy QP");
	free(qps);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
}

static int run(int argc, char **argv)
{
	struct end s, a1, a2, x, b1;
	struct ibv_ah *ah4, *ah6;
	union ibv_gid sgid4, sgid6, rgid;
	const char *sdev, *rdev;
	int sg4, sg6, opt, fd4 = -1, fd6 = -1;
	long long c0, c1;
	uint32_t m;

	while ((opt = getopt(argc, argv, "rGi:")) != -1) {
		switch (opt) {
		case 'r':
			quirk_rxe = 1;
			break;
		case 'G':
			group_limit = 1;
			break;
		case 'i':
			ifname = optarg;
			break;
		default:
			return 2;
		}
	}
	CHECK(argc - optind == 4,
	      "usage: mcast run [-r] [-G] [-i IFNAME] SDEV SGID4 SGID6 RDEV");
	CHECK(!quirk_rxe || ifname, "-r needs -i IFNAME");
	sdev = argv[optind];
	sg4 = atoi(argv[optind + 1]);
	sg6 = atoi(argv[optind + 2]);
	rdev = argv[optind + 3];

	setup(&s, "sender", sdev, QKEY, IBV_QPT_UD);
	CHECK(!ibv_query_gid(s.ctx, 1, sg4, &sgid4), "query_gid %d", sg4);
	CHECK(!ibv_query_gid(s.ctx, 1, sg6, &sgid6), "query_gid %d", sg6);
	rgid = sgid4;
	check_errors(rdev, &rgid);

	/* Two QPs on RDEV, one with another Q_Key, one on the sender's. */
	setup(&a1, "remote1", rdev, QKEY, IBV_QPT_UD);
	setup(&a2, "remote2", rdev, QKEY, IBV_QPT_UD);
	setup(&x, "remote-other-qkey", rdev, QKEY_OTHER, IBV_QPT_UD);
	setup(&b1, "local", sdev, QKEY, IBV_QPT_UD);
	post_recvs(&a1);
	post_recvs(&a2);
	post_recvs(&x);
	post_recvs(&b1);
	post_recvs(&s);

	/* IPv4 group. */
	check_member(GROUP4, 0);
	attach(&a1, GROUP4);
	attach(&a2, GROUP4);
	attach(&x, GROUP4);
	attach(&b1, GROUP4);
	check_member(GROUP4, 1);
	if (quirk_rxe)
		fd4 = ip_join(GROUP4);
	ah4 = group_ah(&s, sg4, GROUP4);
	for (m = 0; m < NSIZES; m++)
		send_ud(&s, ah4, QKEY, m, sizes[m]);
	for (m = 0; m < NSIZES; m++) {
		expect_msg(&a1, &s, &sgid4, GROUP4, m, sizes[m]);
		expect_msg(&a2, &s, &sgid4, GROUP4, m, sizes[m]);
		expect_msg(&b1, &s, &sgid4, GROUP4, m, sizes[m]);
	}
	expect_nothing(&a1, "duplicate");
	expect_nothing(&a2, "duplicate");
	expect_nothing(&b1, "duplicate");
	expect_nothing(&x, "wrong Q_Key");
	expect_nothing(&s, "sender not attached");
	printf("ok IPv4 group: %zu messages to 2 remote QPs and 1 local QP, once each, wrong Q_Key dropped\n",
	       NSIZES);

	/* A detached QP gets nothing more. */
	detach(&a1, GROUP4);
	check_member(GROUP4, 1);
	send_ud(&s, ah4, QKEY, 10, 200);
	expect_msg(&a2, &s, &sgid4, GROUP4, 10, 200);
	expect_msg(&b1, &s, &sgid4, GROUP4, 10, 200);
	expect_nothing(&a1, "detached");
	detach(&a2, GROUP4);
	detach(&x, GROUP4);
	check_member(GROUP4, 0);
	send_ud(&s, ah4, QKEY, 11, 100);
	expect_msg(&b1, &s, &sgid4, GROUP4, 11, 100);
	expect_nothing(&a2, "detached");
	detach(&b1, GROUP4);
	printf("ok detach stops delivery\n");

	/*
	 * A group the netdev is a member of, with no QP attached: the
	 * packet reaches the device, which drops and counts it.
	 */
	c0 = port_counter(rdev, "rx_mcast_no_group");
	if (ifname && !quirk_rxe && c0 >= 0) {
		struct ibv_ah *ah = group_ah(&s, sg4, GROUP4_NOQP);
		int fd = ip_join(GROUP4_NOQP);

		for (m = 0; m < 3; m++)
			send_ud(&s, ah, QKEY, 20 + m, 50);
		for (m = 0; m < 30; m++) {
			c1 = port_counter(rdev, "rx_mcast_no_group");
			if (c1 >= c0 + 3)
				break;
			usleep(100000);
		}
		CHECK(c1 == c0 + 3, "rx_mcast_no_group %lld, expected %lld",
		      c1, c0 + 3);
		close(fd);
		ibv_destroy_ah(ah);
		printf("ok no group: counted drops\n");
	}
	if (fd4 >= 0)
		close(fd4);

	/* IPv6 group. */
	check_member(GROUP6, 0);
	attach(&a1, GROUP6);
	attach(&x, GROUP6);
	attach(&b1, GROUP6);
	check_member(GROUP6, 1);
	if (quirk_rxe)
		fd6 = ip_join(GROUP6);
	ah6 = group_ah(&s, sg6, GROUP6);
	for (m = 0; m < NSIZES; m++)
		send_ud(&s, ah6, QKEY, 30 + m, sizes[m]);
	for (m = 0; m < NSIZES; m++) {
		expect_msg(&a1, &s, &sgid6, GROUP6, 30 + m, sizes[m]);
		expect_msg(&b1, &s, &sgid6, GROUP6, 30 + m, sizes[m]);
	}
	expect_nothing(&a1, "duplicate");
	expect_nothing(&b1, "duplicate");
	expect_nothing(&x, "wrong Q_Key");
	expect_nothing(&a2, "not attached");
	detach(&a1, GROUP6);
	detach(&x, GROUP6);
	check_member(GROUP6, 0);
	send_ud(&s, ah6, QKEY, 40, 64);
	expect_msg(&b1, &s, &sgid6, GROUP6, 40, 64);
	expect_nothing(&a1, "detached");
	detach(&b1, GROUP6);
	if (fd6 >= 0)
		close(fd6);
	printf("ok IPv6 group: %zu messages to 1 remote QP and 1 local QP, once each; detach\n",
	       NSIZES);

	ibv_destroy_ah(ah4);
	ibv_destroy_ah(ah6);
	teardown(&a1);
	teardown(&a2);
	teardown(&x);
	teardown(&b1);
	teardown(&s);
	printf("mcast all ok\n");
	return 0;
}

static int hold(const char *dev)
{
	struct end q[2];
	int i;

	for (i = 0; i < 2; i++) {
		setup(&q[i], "holder", dev, QKEY, IBV_QPT_UD);
		attach(&q[i], GROUP4_HOLD);
		attach(&q[i], GROUP6_HOLD);
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hold"))
		return hold(argv[2]);
	CHECK(argc > 1 && !strcmp(argv[1], "run"),
	      "usage: mcast run [-r] [-G] [-i IFNAME] SDEV SGID4 SGID6 RDEV | mcast hold DEV");
	return run(argc - 1, argv + 1);
}
