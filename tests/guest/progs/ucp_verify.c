// SPDX-License-Identifier: GPL-2.0
/*
 * UCP (UCX) over the device, connected through the rdma_cm: checks every
 * byte, not just completion.
 *
 * Build libraries: -lucp -lucs
 *
 * ucp_verify [-m MAX] [-p PORT] [-b ADDR]	server: listens on PORT of
 *						ADDR (of every IPv4 address
 *						by default)
 * ucp_verify [-m MAX] [-p PORT] ADDR		client: connects to the
 *						server at ADDR
 *
 * The client's endpoint is made from the server's socket address
 * (UCP_EP_PARAM_FIELD_SOCK_ADDR), the server's from the connection
 * request its ucp_listener hands over; which transports carry the data
 * is up to UCX_TLS and UCX_NET_DEVICES in the environment, and the
 * connection manager to UCX_SOCKADDR_TLS_PRIORITY (rdmacm). Then:
 *  - tagged messages of 1 B to 4 MiB each way: the client sends pattern
 *    A, the server checks it and answers with pattern B of the same
 *    size, which the client checks; received lengths must match;
 *  - the server registers a 4 MiB region and sends its address and
 *    packed rkey; for each size the client puts pattern C into it, and
 *    after a flush tells the server, which checks the region (and that
 *    the bytes behind stayed untouched), refills it with pattern D and
 *    says so; the client gets it back and checks it.
 * -m: sizes up to MAX bytes only (both ends must agree).
 * Each step prints "ok ..."; both ends end with "ucp_verify all ok".
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <ucp/api/ucp.h>

#include "check.h"
#include "data_pattern.h"

#define USAGE		"usage: ucp_verify [-m MAX] [-p PORT] [-b ADDR | SERVER_ADDR]"
#define MAX_SIZE	(4u << 20)
#define WAIT_SECS	60

/* Tags of the exchange: the step, and the message size. */
enum {
	TAG_DATA = 1,		/* client -> server, pattern A */
	TAG_ECHO,		/* server -> client, pattern B */
	TAG_RKEY,		/* server -> client: region address, rkey */
	TAG_PUT_DONE,		/* client -> server: size put and flushed */
	TAG_REFILLED,		/* server -> client: region holds pattern D */
	TAG_BYE,
};

/* Growing: each put covers all that the one before left in the region. */
static const size_t sizes[] = {
	1, 7, 64, 1000, 4096, 8193, 65536 + 3, 1u << 20, MAX_SIZE,
};
static unsigned int nr_sizes = sizeof(sizes) / sizeof(sizes[0]);

struct ctx {
	ucp_context_h ucp;
	ucp_worker_h worker;
	ucp_ep_h ep;
	ucp_conn_request_h conn_req;	/* server: from the listener */
	ucs_status_t ep_error;		/* set by the error handler */
	uint8_t *buf;			/* MAX_SIZE + 2 GUARD */
};

static uint64_t tag_of(int step, size_t size)
{
	return (uint64_t)step << 32 | size;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double t_start;

/* Seconds since the program started, for the "ok" lines. */
static double elapsed(void)
{
	return now() - t_start;
}

/* Progresses until @req completes; returns its status and frees it. */
static ucs_status_t wait_req(struct ctx *c, void *req, const char *what)
{
	double end = now() + WAIT_SECS;
	ucs_status_t st;

	if (req == NULL)
		return UCS_OK;
	if (UCS_PTR_IS_ERR(req))
		return UCS_PTR_STATUS(req);
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
		ucp_worker_progress(c->worker);
		CHECK(now() < end, "%s: not done after %d s", what, WAIT_SECS);
	}
	ucp_request_free(req);
	return st;
}

static void send_tag(struct ctx *c, const void *p, size_t n, uint64_t tag,
		     const char *what)
{
	ucp_request_param_t prm = { 0 };
	ucs_status_t st;

	st = wait_req(c, ucp_tag_send_nbx(c->ep, p, n, tag, &prm), what);
	CHECK(st == UCS_OK, "%s: %s", what, ucs_status_string(st));
}

/* Receives the message tagged @tag; it must be @n bytes long. */
static void recv_tag(struct ctx *c, void *p, size_t n, uint64_t tag,
		     const char *what)
{
	ucp_tag_recv_info_t info = { 0 };
	/* UCX 1.13 leaves recv_info alone on an immediate completion. */
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL,
	};
	double end = now() + WAIT_SECS;
	ucs_status_t st;
	void *req;

	req = ucp_tag_recv_nbx(c->worker, p, n, tag, (uint64_t)-1, &prm);
	CHECK(req && !UCS_PTR_IS_ERR(req), "%s: %s", what,
	      ucs_status_string(UCS_PTR_STATUS(req)));
	while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
		ucp_worker_progress(c->worker);
		CHECK(c->ep_error == UCS_OK, "%s: endpoint error %s", what,
		      ucs_status_string(c->ep_error));
		CHECK(now() < end, "%s: nothing after %d s", what, WAIT_SECS);
	}
	CHECK(st == UCS_OK, "%s: %s", what, ucs_status_string(st));
	ucp_tag_recv_request_test(req, &info);
	ucp_request_free(req);
	CHECK(info.length == n, "%s: %zu bytes received, expected %zu", what,
	      info.length, n);
	CHECK(info.sender_tag == tag, "%s: tag %#llx", what,
	      (unsigned long long)info.sender_tag);
}

static void flush_ep(struct ctx *c, const char *what)
{
	ucp_request_param_t prm = { 0 };
	ucs_status_t st;

	st = wait_req(c, ucp_ep_flush_nbx(c->ep, &prm), what);
	CHECK(st == UCS_OK, "%s: flush: %s", what, ucs_status_string(st));
}

static void on_ep_error(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct ctx *c = arg;

	(void)ep;
	c->ep_error = status;
}

static void on_conn_request(ucp_conn_request_h req, void *arg)
{
	struct ctx *c = arg;

	if (c->conn_req) {
		ucp_listener_reject(NULL, req);
		return;
	}
	c->conn_req = req;
}

static void set_err_handler(struct ctx *c, ucp_ep_params_t *ep)
{
	ep->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			  UCP_EP_PARAM_FIELD_ERR_HANDLER;
	ep->err_mode = UCP_ERR_HANDLING_MODE_PEER;
	ep->err_handler.cb = on_ep_error;
	ep->err_handler.arg = c;
}

static void sockaddr_of(struct sockaddr_storage *ss, socklen_t *len,
			const char *host, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	char service[16];
	int err;

	snprintf(service, sizeof(service), "%d", port);
	hints.ai_flags = AI_NUMERICHOST | (host ? 0 : AI_PASSIVE);
	hints.ai_family = host ? AF_UNSPEC : AF_INET;
	err = getaddrinfo(host, service, &hints, &ai);
	CHECK(!err, "address %s: %s", host ? host : "(any)",
	      gai_strerror(err));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
}

static void server_accept(struct ctx *c, const char *bind_addr, int port)
{
	struct sockaddr_storage ss;
	ucp_listener_params_t lp = {
		.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR |
			      UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
		.conn_handler = { .cb = on_conn_request, .arg = c },
	};
	ucp_ep_params_t ep = { .field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST };
	ucp_listener_h listener;
	ucs_status_t st;
	double end;
	socklen_t len;

	sockaddr_of(&ss, &len, bind_addr, port);
	lp.sockaddr.addr = (struct sockaddr *)&ss;
	lp.sockaddr.addrlen = len;
	st = ucp_listener_create(c->worker, &lp, &listener);
	CHECK(st == UCS_OK, "listener on port %d: %s", port,
	      ucs_status_string(st));
	printf("[%6.1fs] listening on port %d\n", elapsed(), port);

	end = now() + WAIT_SECS;
	while (!c->conn_req) {
		ucp_worker_progress(c->worker);
		CHECK(now() < end, "no connection request in %d s", WAIT_SECS);
	}
	ep.conn_request = c->conn_req;
	set_err_handler(c, &ep);
	st = ucp_ep_create(c->worker, &ep, &c->ep);
	CHECK(st == UCS_OK, "ep from the connection request: %s",
	      ucs_status_string(st));
	ucp_listener_destroy(listener);
}

static void client_connect(struct ctx *c, const char *host, int port)
{
	struct sockaddr_storage ss;
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_FLAGS |
			      UCP_EP_PARAM_FIELD_SOCK_ADDR,
		.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
	};
	ucs_status_t st;
	socklen_t len;

	sockaddr_of(&ss, &len, host, port);
	ep.sockaddr.addr = (struct sockaddr *)&ss;
	ep.sockaddr.addrlen = len;
	set_err_handler(c, &ep);
	st = ucp_ep_create(c->worker, &ep, &c->ep);
	CHECK(st == UCS_OK, "ep to %s port %d: %s", host, port,
	      ucs_status_string(st));
}

static void client_tags(struct ctx *c)
{
	uint8_t *p = c->buf + GUARD;
	unsigned int i;

	for (i = 0; i < nr_sizes; i++) {
		fill_pattern(p, sizes[i], 'A' + i, 0);
		send_tag(c, p, sizes[i], tag_of(TAG_DATA, sizes[i]), "send");
		fill_guarded(p, sizes[i]);
		recv_tag(c, p, sizes[i], tag_of(TAG_ECHO, sizes[i]), "echo");
		check_guarded_pattern(p, sizes[i], 'B' + i, "echo");
		printf("[%6.1fs] ok tag %zu bytes each way\n", elapsed(),
		       sizes[i]);
	}
}

static void server_tags(struct ctx *c)
{
	uint8_t *p = c->buf + GUARD;
	unsigned int i;

	for (i = 0; i < nr_sizes; i++) {
		fill_guarded(p, sizes[i]);
		recv_tag(c, p, sizes[i], tag_of(TAG_DATA, sizes[i]), "data");
		check_guarded_pattern(p, sizes[i], 'A' + i, "data");
		fill_pattern(p, sizes[i], 'B' + i, 0);
		send_tag(c, p, sizes[i], tag_of(TAG_ECHO, sizes[i]), "echo");
		printf("[%6.1fs] ok tag %zu bytes each way\n", elapsed(),
		       sizes[i]);
	}
}

/* What TAG_RKEY carries: the region's address and its packed rkey. */
struct rkey_msg {
	uint64_t addr;
	uint64_t rkey_len;
	uint8_t rkey[1024];
};

static void client_rma(struct ctx *c)
{
	uint8_t *p = c->buf + GUARD;
	struct rkey_msg m;
	ucp_request_param_t prm = { 0 };
	ucp_rkey_h rkey;
	ucs_status_t st;
	unsigned int i;
	uint64_t ack;

	recv_tag(c, &m, sizeof(m), tag_of(TAG_RKEY, 0), "rkey");
	CHECK(m.rkey_len <= sizeof(m.rkey), "rkey of %llu bytes",
	      (unsigned long long)m.rkey_len);
	st = ucp_ep_rkey_unpack(c->ep, m.rkey, &rkey);
	CHECK(st == UCS_OK, "rkey_unpack: %s", ucs_status_string(st));

	for (i = 0; i < nr_sizes; i++) {
		fill_pattern(p, sizes[i], 'C' + i, 0);
		st = wait_req(c, ucp_put_nbx(c->ep, p, sizes[i], m.addr, rkey,
					     &prm), "put");
		CHECK(st == UCS_OK, "put %zu: %s", sizes[i],
		      ucs_status_string(st));
		flush_ep(c, "put");
		send_tag(c, &ack, sizeof(ack), tag_of(TAG_PUT_DONE, sizes[i]),
			 "put done");
		recv_tag(c, &ack, sizeof(ack), tag_of(TAG_REFILLED, sizes[i]),
			 "refilled");
		fill_guarded(p, sizes[i]);
		st = wait_req(c, ucp_get_nbx(c->ep, p, sizes[i], m.addr, rkey,
					     &prm), "get");
		CHECK(st == UCS_OK, "get %zu: %s", sizes[i],
		      ucs_status_string(st));
		check_guarded_pattern(p, sizes[i], 'D' + i, "get");
		printf("[%6.1fs] ok put and get %zu bytes\n", elapsed(),
		       sizes[i]);
	}
	ucp_rkey_destroy(rkey);
}

static void server_rma(struct ctx *c)
{
	uint8_t *region = c->buf + GUARD;
	ucp_mem_map_params_t mp = {
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
			      UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		.address = region,
		.length = MAX_SIZE,
	};
	struct rkey_msg m = { .addr = (uintptr_t)region };
	ucp_mem_h memh;
	ucs_status_t st;
	void *packed;
	size_t len;
	unsigned int i;
	uint64_t ack = 0;

	memset(c->buf, FILL, MAX_SIZE + 2 * GUARD);
	st = ucp_mem_map(c->ucp, &mp, &memh);
	CHECK(st == UCS_OK, "mem_map: %s", ucs_status_string(st));
	st = ucp_rkey_pack(c->ucp, memh, &packed, &len);
	CHECK(st == UCS_OK, "rkey_pack: %s", ucs_status_string(st));
	CHECK(len <= sizeof(m.rkey), "packed rkey of %zu bytes", len);
	memcpy(m.rkey, packed, len);
	m.rkey_len = len;
	ucp_rkey_buffer_release(packed);
	send_tag(c, &m, sizeof(m), tag_of(TAG_RKEY, 0), "rkey");

	for (i = 0; i < nr_sizes; i++) {
		recv_tag(c, &ack, sizeof(ack), tag_of(TAG_PUT_DONE, sizes[i]),
			 "put done");
		check_pattern(region, sizes[i], 'C' + i, 0, "put");
		check_untouched(c->buf, GUARD, "before the region");
		check_untouched(region + sizes[i], GUARD, "behind the put");
		fill_pattern(region, sizes[i], 'D' + i, 0);
		send_tag(c, &ack, sizeof(ack), tag_of(TAG_REFILLED, sizes[i]),
			 "refilled");
		printf("[%6.1fs] ok put and get %zu bytes\n", elapsed(),
		       sizes[i]);
	}
	ucp_mem_unmap(c->ucp, memh);
}

/*
 * The client says bye and waits for the answer, then closes its endpoint
 * (which disconnects); the server waits for that before closing its own.
 */
static void finish(struct ctx *c, int server)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
	};
	uint64_t bye = 0;
	double end;

	if (server) {
		recv_tag(c, &bye, sizeof(bye), tag_of(TAG_BYE, 0), "bye");
		send_tag(c, &bye, sizeof(bye), tag_of(TAG_BYE, 1), "bye");
		end = now() + 10;
		while (c->ep_error == UCS_OK && now() < end)
			ucp_worker_progress(c->worker);
		prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
	} else {
		send_tag(c, &bye, sizeof(bye), tag_of(TAG_BYE, 0), "bye");
		recv_tag(c, &bye, sizeof(bye), tag_of(TAG_BYE, 1), "bye");
	}
	/* A close that finds the peer gone reports it: not a failure. */
	wait_req(c, ucp_ep_close_nbx(c->ep, &prm), "close");
}

int main(int argc, char **argv)
{
	int port = 13400, opt;
	unsigned long max = MAX_SIZE;
	const char *host = NULL, *bind_addr = NULL;
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_TAG | UCP_FEATURE_RMA,
	};
	ucp_worker_params_t wp = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_SINGLE,
	};
	struct ctx c = { .ep_error = UCS_OK };
	ucs_status_t st;

	t_start = now();
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "b:m:p:")) != -1) {
		CHECK(opt == 'b' || opt == 'm' || opt == 'p', "%s", USAGE);
		if (opt == 'b')
			bind_addr = optarg;
		else if (opt == 'm')
			max = strtoul(optarg, NULL, 0);
		else
			port = atoi(optarg);
	}
	while (nr_sizes > 1 && sizes[nr_sizes - 1] > max)
		nr_sizes--;
	CHECK(argc - optind <= (bind_addr ? 0 : 1), "%s", USAGE);
	if (optind < argc)
		host = argv[optind];

	c.buf = malloc(MAX_SIZE + 2 * GUARD);
	CHECK(c.buf, "out of memory");
	st = ucp_init(&params, NULL, &c.ucp);
	CHECK(st == UCS_OK, "ucp_init: %s", ucs_status_string(st));
	st = ucp_worker_create(c.ucp, &wp, &c.worker);
	CHECK(st == UCS_OK, "worker_create: %s", ucs_status_string(st));

	if (host) {
		client_connect(&c, host, port);
		client_tags(&c);
		client_rma(&c);
	} else {
		server_accept(&c, bind_addr, port);
		server_tags(&c);
		server_rma(&c);
	}
	finish(&c, !host);
	printf("[%6.1fs] closed\n", elapsed());
	printf("ucp_verify all ok\n");

	ucp_worker_destroy(c.worker);
	ucp_cleanup(c.ucp);
	free(c.buf);
	return 0;
}
