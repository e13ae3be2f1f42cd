// SPDX-License-Identifier: GPL-2.0
/*
 * odp_memcg DEV GID CGROUP MIB: on-demand paging charged to the memory
 * cgroup of the region's owner. This process (the writer) forks an owner,
 * which moves itself into cgroup CGROUP (a cgroup v2 directory; "-": it
 * stays where it is), registers MIB MiB of fresh anonymous memory with
 * IBV_ACCESS_ON_DEMAND and connects an RC QP on device DEV (GID index GID)
 * to one of the writer's, over which the writer RDMA WRITEs MIB MiB of a
 * pattern into that memory, 1 MiB at a time, from pinned memory of its
 * own. The owner never touches the memory before: every page is faulted
 * in by the driver on its behalf, and charged to the owner's cgroup.
 *
 * Then the owner checks every byte it received and exits 0, or - if the
 * cgroup's limit stopped it - is killed by the cgroup's OOM killer, as it
 * would be had it touched the pages itself. The writer prints
 *	writes N ok, then STATUS; owner STATE
 * (N the WRITEs that completed successfully, STATUS the first other
 * completion status or "all", STATE "exit E" or "killed by signal S":
 * the case judges them) and exits 0; it fails itself only if a WRITE
 * gets no completion within 60 s, or another one than it waits for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "rc_conn.h"

#define MIB		(1u << 20)
#define SEED		7
#define WAIT_MS		60000
#define USAGE		"usage: odp_memcg DEV GID CGROUP MIB"

/* What the owner tells the writer. */
struct owner_info {
	struct conn_peer qp;
	uint64_t va;
	uint32_t rkey;
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
};

static const char *dev;
static int gid_index;

static void side_open(struct side *s, int depth)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = depth, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	s->ctx = open_by_name(dev);
	CHECK(s->ctx, "no device %s", dev);
	CHECK(!ibv_query_gid(s->ctx, 1, gid_index, &s->gid), "query_gid");
	s->pd = ibv_alloc_pd(s->ctx);
	CHECK(s->pd, "alloc_pd");
	s->cq = ibv_create_cq(s->ctx, depth + 1, NULL, NULL, 0);
	CHECK(s->cq, "create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &ia);
	CHECK(s->qp, "create_qp: %s", strerror(errno));
}

static void side_connect(struct side *s, const struct conn_peer *peer,
			 uint32_t psn)
{
	struct conn_params p = {
		.mtu = IBV_MTU_1024, .rd_atomic = 1, .rnr_retry = 7,
		.timeout = 12, .psn = psn, .gid_index = gid_index,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
	};

	conn_to_rts(s->qp, "odp_memcg", &p, peer);
}

static void xfer(int fd, void *p, size_t len, int out)
{
	ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

	CHECK(n == (ssize_t)len, "socketpair: %zd of %zu bytes: %s", n, len,
	      strerror(errno));
}

/* The owner: joins @cgroup, offers @len bytes of ODP memory, checks it. */
static void owner(int fd, const char *cgroup, size_t len)
{
	struct owner_info me = { 0 };
	struct conn_peer writer;
	struct side s;
	struct ibv_mr *mr;
	uint8_t *mem;
	char path[512], pid[32];
	int cg;

	if (strcmp(cgroup, "-")) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
		cg = open(path, O_WRONLY);
		CHECK(cg >= 0, "%s: %s", path, strerror(errno));
		snprintf(pid, sizeof(pid), "%d\n", getpid());
		CHECK(write(cg, pid, strlen(pid)) > 0, "join %s: %s", cgroup,
		      strerror(errno));
		close(cg);
	}
	side_open(&s, 1);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	CHECK(mem != MAP_FAILED, "mmap: %s", strerror(errno));
	mr = ibv_reg_mr(s.pd, mem, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	CHECK(mr, "ODP reg_mr of %zu bytes: %s", len, strerror(errno));
	me.qp = (struct conn_peer){ s.qp->qp_num, 0x300, s.gid };
	me.va = (uintptr_t)mem;
	me.rkey = mr->rkey;
	xfer(fd, &me, sizeof(me), 1);
	xfer(fd, &writer, sizeof(writer), 0);
	side_connect(&s, &writer, me.qp.psn);
	/* The writer says when its WRITEs are done; then check them. */
	xfer(fd, pid, 1, 0);
	check_pattern(mem, len, SEED, 0, "the owner's ODP memory");
	exit(0);
}

int main(int argc, char **argv)
{
	struct conn_peer me_peer;
	struct owner_info o;
	struct side s;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	const char *first = "all";
	unsigned int i, mib, ok = 0;
	uint8_t *buf;
	int sv[2], status;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc == 5, USAGE);
	dev = argv[1];
	gid_index = atoi(argv[2]);
	mib = atoi(argv[4]);
	CHECK(mib > 0, USAGE);
	CHECK(!socketpair(AF_UNIX, SOCK_STREAM, 0, sv), "socketpair");
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		close(sv[0]);
		owner(sv[1], argv[3], (size_t)mib * MIB);
	}
	close(sv[1]);

	side_open(&s, mib);
	buf = aligned_alloc(4096, MIB);
	CHECK(buf, "out of memory");
	mr = ibv_reg_mr(s.pd, buf, MIB, 0);
	CHECK(mr, "reg_mr: %s", strerror(errno));
	xfer(sv[0], &o, sizeof(o), 0);
	me_peer = (struct conn_peer){ s.qp->qp_num, 0x100, s.gid };
	xfer(sv[0], &me_peer, sizeof(me_peer), 1);
	side_connect(&s, &o.qp, me_peer.psn);

	for (i = 0; i < mib; i++) {
		struct ibv_sge sge = { (uintptr_t)buf, MIB, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { o.va + (uint64_t)i * MIB, o.rkey },
		}, *bad;

		fill_pattern(buf, MIB, SEED, (size_t)i * MIB);
		CHECK(!ibv_post_send(s.qp, &wr, &bad), "post_send %u", i);
		CHECK(conn_poll(s.cq, &wc, WAIT_MS),
		      "write %u: no completion in %d s", i, WAIT_MS / 1000);
		CHECK(wc.wr_id == i, "completion for %llu, not %u",
		      (unsigned long long)wc.wr_id, i);
		if (wc.status != IBV_WC_SUCCESS) {
			first = ibv_wc_status_str(wc.status);
			break;
		}
		ok++;
	}
	/* The owner checks what landed, unless it is gone or told EOF. */
	if (ok == mib)
		xfer(sv[0], "x", 1, 1);
	close(sv[0]);
	CHECK(waitpid(pid, &status, 0) == pid, "waitpid: %s", strerror(errno));
	if (WIFSIGNALED(status))
		printf("writes %u ok, then %s; owner killed by signal %d\n",
		       ok, first, WTERMSIG(status));
	else
		printf("writes %u ok, then %s; owner exit %d\n", ok, first,
		       WEXITSTATUS(status));
	return 0;
}
