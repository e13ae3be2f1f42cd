/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the guest test programs that run both ends of their
 * connections in one process: one end is a device with a PD, a RoCE v2
 * GID, registered memory, and - where a program has one connection at a
 * time per end - the CQ and QP of that connection.
 */
#ifndef SROCE_TEST_END_H
#define SROCE_TEST_END_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "check.h"
#include "data_pattern.h"
#include "open_device.h"
#include "rc_conn.h"

struct end {
	const char *name;		/* in messages */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
	int gid_index;
	uint32_t sq_psn;		/* the first PSN it sends */
	uint8_t *buf;
	struct ibv_mr *mr;
	uint8_t *ro_buf;		/* with fewer rights: see each program */
	struct ibv_mr *ro_mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;		/* if the QP posts by ibv_wr_* */
	uint32_t max_send_sge;		/* for create_qp(); 0: its default */
};

/* Opens device @dev as end @name, with a PD and GID @gid_index. */
static inline void end_open(struct end *e, const char *name, const char *dev,
			    int gid_index)
{
	e->name = name;
	e->ctx = open_by_name(dev);
	CHECK(e->ctx, "%s: no device %s", name, dev);
	e->gid_index = gid_index;
	CHECK(!ibv_query_gid(e->ctx, 1, gid_index, &e->gid),
	      "query_gid %s %d", dev, gid_index);
	e->pd = ibv_alloc_pd(e->ctx);
	CHECK(e->pd, "alloc_pd %s", dev);
}

/* Port 1 of @e is up, and takes packets of path MTU @mtu. */
static inline void end_check_port(struct end *e, enum ibv_mtu mtu)
{
	struct ibv_port_attr pa;

	CHECK(!ibv_query_port(e->ctx, 1, &pa), "%s: query_port", e->name);
	CHECK(pa.state == IBV_PORT_ACTIVE, "%s: port state %d", e->name,
	      pa.state);
	CHECK(pa.active_mtu >= mtu,
	      "%s: active_mtu %u < path MTU %u (raise the netdev MTU)",
	      e->name, 128u << pa.active_mtu, 128u << mtu);
}

/* @size bytes of FILL to *@buf, page aligned, registered with @access. */
static inline struct ibv_mr *end_reg_buf(struct end *e, uint8_t **buf,
					 size_t size, unsigned int access)
{
	struct ibv_mr *mr;

	*buf = aligned_alloc(4096, size);
	CHECK(*buf, "out of memory");
	memset(*buf, FILL, size);
	mr = ibv_reg_mr(e->pd, *buf, size, access);
	CHECK(mr, "%s: reg_mr of %zu bytes, access %#x: %s", e->name, size,
	      access, strerror(errno));
	return mr;
}

/* @e as one side of a connection from @qp, sending from PSN @psn. */
static inline struct conn_end end_conn(const struct end *e,
				       struct ibv_qp *qp, uint32_t psn)
{
	struct conn_end c = {
		.name = e->name, .qp = qp, .gid = e->gid,
		.gid_index = e->gid_index, .psn = psn,
	};

	return c;
}

/* Connects the QPs of @a and @b: each to RTS towards the other. */
static inline void end_connect(struct end *a, struct end *b,
			       const struct conn_params *p)
{
	struct conn_end ca = end_conn(a, a->qp, a->sq_psn);
	struct conn_end cb = end_conn(b, b->qp, b->sq_psn);

	conn_connect(&ca, &cb, p);
}

#endif /* SROCE_TEST_END_H */
