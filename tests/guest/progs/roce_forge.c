// SPDX-License-Identifier: GPL-2.0
/*
 * roce_forge [-6] --src ADDR --dst ADDR --qpn N --psn P [--count C]
 *	      [--op send|write] [--uc] [--len BYTES] [--rkey K --va V]
 *	      [--fill BYTE] [--ackreq]
 *
 * Sends well-formed RoCE v2 packets with a valid ICRC from an ordinary,
 * unprivileged UDP socket bound to ADDR (ephemeral port) to DST port
 * 4791: C packets (default 1) for QP N with PSNs P, P+1, ... (mod 2^24),
 * each an RC SEND_ONLY (--op send, the default) or RC RDMA WRITE_ONLY
 * with a RETH for K and V (--op write), or their UC twins with --uc; a
 * payload of BYTES (default 64, at most 4096) bytes of BYTE (default
 * 0xEE), P_Key 0xffff, AckReq set with --ackreq. Numbers may be decimal
 * or 0x-prefixed hex. Prints "sent C".
 *
 * The headers and the ICRC come from the project's wire layer
 * (include/sroce). The ICRC also covers the IP and UDP headers as the
 * kernel sends them, which are built in memory for it alone: the socket
 * sends the UDP payload only. IPv4: with IP_PMTUDISC_DO, the kernel sends
 * the datagrams of an unconnected socket with DF and IP id 0; TOS, TTL
 * and header checksum are masked by the ICRC rules. IPv6: traffic class,
 * flow label and hop limit are masked. UDP: the bound source port, the
 * length; the checksum is masked.
 *
 * Build sources: drivers/infiniband/sw/sroce/wire_packet.c
 * Build sources: drivers/infiniband/sw/sroce/wire_opcode.c
 * Build sources: drivers/infiniband/sw/sroce/wire_icrc.c tests/unit/crc32.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sroce/icrc.h>
#include <sroce/packet.h>

#include "check.h"

#define ROCE_PORT	4791
#define PSN_MASK	0xffffffu
#define USAGE	"usage: roce_forge [-6] --src ADDR --dst ADDR --qpn N --psn P " \
		"[--count C] [--op send|write] [--uc] [--len BYTES] " \
		"[--rkey K --va V] [--fill BYTE] [--ackreq]"

struct forge_opts {
	int ipv6;
	const char *src, *dst;
	u32 qpn, psn, count, len, rkey;
	u64 va;
	u8 fill;
	bool write, uc, ackreq, have_qpn, have_psn, have_rkey, have_va;
};

/* @arg as a number of at most @max, or exits naming option @what. */
static u64 parse_num(const char *arg, u64 max, const char *what)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	CHECK(!errno && end != arg && !*end && arg[0] != '-' && v <= max,
	      "--%s %s: not a number up to %#llx", what, arg,
	      (unsigned long long)max);
	return v;
}

static void parse_opts(int argc, char **argv, struct forge_opts *o)
{
	enum { O_SRC = 256, O_DST, O_QPN, O_PSN, O_COUNT, O_OP, O_UC, O_LEN,
	       O_RKEY, O_VA, O_FILL, O_ACKREQ };
	static const struct option longopts[] = {
		{ "src",	required_argument, NULL, O_SRC },
		{ "dst",	required_argument, NULL, O_DST },
		{ "qpn",	required_argument, NULL, O_QPN },
		{ "psn",	required_argument, NULL, O_PSN },
		{ "count",	required_argument, NULL, O_COUNT },
		{ "op",		required_argument, NULL, O_OP },
		{ "uc",		no_argument,	   NULL, O_UC },
		{ "len",	required_argument, NULL, O_LEN },
		{ "rkey",	required_argument, NULL, O_RKEY },
		{ "va",		required_argument, NULL, O_VA },
		{ "fill",	required_argument, NULL, O_FILL },
		{ "ackreq",	no_argument,	   NULL, O_ACKREQ },
		{ NULL, 0, NULL, 0 }
	};
	int opt;

	memset(o, 0, sizeof(*o));
	o->count = 1;
	o->len = 64;
	o->fill = 0xee;
	while ((opt = getopt_long(argc, argv, "6", longopts, NULL)) != -1) {
		switch (opt) {
		case '6':	o->ipv6 = 1; break;
		case O_SRC:	o->src = optarg; break;
		case O_DST:	o->dst = optarg; break;
		case O_QPN:
			o->qpn = parse_num(optarg, SROCE_BTH_QPN_MASK, "qpn");
			o->have_qpn = true;
			break;
		case O_PSN:
			o->psn = parse_num(optarg, PSN_MASK, "psn");
			o->have_psn = true;
			break;
		case O_COUNT:
			o->count = parse_num(optarg, 1u << 24, "count");
			break;
		case O_OP:
			CHECK(!strcmp(optarg, "send") || !strcmp(optarg, "write"),
			      "--op %s: send or write", optarg);
			o->write = !strcmp(optarg, "write");
			break;
		case O_UC:	o->uc = true; break;
		case O_LEN:
			o->len = parse_num(optarg, SROCE_MAX_PAYLOAD, "len");
			break;
		case O_RKEY:
			o->rkey = parse_num(optarg, 0xffffffffu, "rkey");
			o->have_rkey = true;
			break;
		case O_VA:
			o->va = parse_num(optarg, ~0ull, "va");
			o->have_va = true;
			break;
		case O_FILL:
			o->fill = parse_num(optarg, 0xff, "fill");
			break;
		case O_ACKREQ:	o->ackreq = true; break;
		default:	CHECK(0, "%s", USAGE);
		}
	}
	CHECK(optind == argc && o->src && o->dst && o->have_qpn && o->have_psn,
	      "%s", USAGE);
	CHECK(!o->write || (o->have_rkey && o->have_va),
	      "--op write needs --rkey and --va");
}

/* An address of the family of @o, for port @port (host order). */
static socklen_t make_addr(const struct forge_opts *o, const char *text,
			   u16 port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (o->ipv6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		CHECK(inet_pton(AF_INET6, text, &s6->sin6_addr) == 1,
		      "%s: not an IPv6 address", text);
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		CHECK(inet_pton(AF_INET, text, &s4->sin_addr) == 1,
		      "%s: not an IPv4 address (-6 for IPv6)", text);
		return sizeof(*s4);
	}
}

/*
 * The IP header the kernel will put in front of a UDP datagram of
 * @udp_len bytes from @src to @dst, at @ip; its length.
 */
static size_t pseudo_ip(const struct forge_opts *o,
			const struct sockaddr_storage *src,
			const struct sockaddr_storage *dst, size_t udp_len,
			void *ip)
{
	if (o->ipv6) {
		struct ip6_hdr *h = ip;

		memset(h, 0, sizeof(*h));
		h->ip6_flow = htonl(6u << 28);
		h->ip6_plen = htons(udp_len);
		h->ip6_nxt = IPPROTO_UDP;
		h->ip6_hlim = 64;
		h->ip6_src = ((const struct sockaddr_in6 *)src)->sin6_addr;
		h->ip6_dst = ((const struct sockaddr_in6 *)dst)->sin6_addr;
		return sizeof(*h);
	} else {
		struct iphdr *h = ip;

		memset(h, 0, sizeof(*h));
		h->version = 4;
		h->ihl = 5;
		h->tot_len = htons(sizeof(*h) + udp_len);
		h->id = 0;
		h->frag_off = htons(IP_DF);
		h->ttl = 64;
		h->protocol = IPPROTO_UDP;
		h->saddr = ((const struct sockaddr_in *)src)->sin_addr.s_addr;
		h->daddr = ((const struct sockaddr_in *)dst)->sin_addr.s_addr;
		return sizeof(*h);
	}
}

static u8 forge_opcode(const struct forge_opts *o)
{
	if (o->write)
		return o->uc ? SROCE_OP_UC_RDMA_WRITE_ONLY :
			       SROCE_OP_RC_RDMA_WRITE_ONLY;
	return o->uc ? SROCE_OP_UC_SEND_ONLY : SROCE_OP_RC_SEND_ONLY;
}

int main(int argc, char **argv)
{
	u8 pkt[SROCE_MAX_HDR_BYTES + SROCE_MAX_PAYLOAD + 3 + SROCE_ICRC_BYTES];
	u8 ip[SROCE_IPV6_HDR_BYTES];
	struct sockaddr_storage src, dst, bound;
	struct sroce_hdr_fields f;
	struct forge_opts o;
	struct udphdr udp;
	socklen_t slen, dlen, blen;
	size_t wire_len;
	int fd, hdr_len, val, i;
	u16 sport;
	__le32 icrc;
	ssize_t n;
	u32 k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_opts(argc, argv, &o);
	slen = make_addr(&o, o.src, 0, &src);
	dlen = make_addr(&o, o.dst, ROCE_PORT, &dst);

	fd = socket(o.ipv6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	/* DF and, unconnected, IP id 0: the header the ICRC covers. */
	val = o.ipv6 ? IPV6_PMTUDISC_DO : IP_PMTUDISC_DO;
	CHECK(!setsockopt(fd, o.ipv6 ? IPPROTO_IPV6 : IPPROTO_IP,
			  o.ipv6 ? IPV6_MTU_DISCOVER : IP_MTU_DISCOVER,
			  &val, sizeof(val)),
	      "setsockopt MTU_DISCOVER: %s", strerror(errno));
	CHECK(!bind(fd, (struct sockaddr *)&src, slen), "bind %s: %s", o.src,
	      strerror(errno));
	blen = sizeof(bound);
	CHECK(!getsockname(fd, (struct sockaddr *)&bound, &blen),
	      "getsockname: %s", strerror(errno));
	sport = o.ipv6 ? ((struct sockaddr_in6 *)&bound)->sin6_port :
			 ((struct sockaddr_in *)&bound)->sin_port;

	memset(&f, 0, sizeof(f));
	f.opcode = forge_opcode(&o);
	f.pkey = SROCE_DEFAULT_PKEY;
	f.dest_qpn = o.qpn;
	f.ackreq = o.ackreq;
	f.va = o.va;
	f.rkey = o.rkey;
	f.dma_len = o.len;
	wire_len = sroce_packet_wire_len(f.opcode, o.len);
	CHECK(wire_len && wire_len <= sizeof(pkt), "opcode %#x, %u bytes",
	      f.opcode, o.len);

	udp.source = sport;
	udp.dest = htons(ROCE_PORT);
	udp.len = htons(sizeof(udp) + wire_len);
	udp.check = 0;
	pseudo_ip(&o, &bound, &dst, sizeof(udp) + wire_len, ip);

	for (k = 0; k < o.count; k++) {
		f.psn = (o.psn + k) & PSN_MASK;
		hdr_len = sroce_packet_build(pkt, sizeof(pkt), &f, o.len);
		CHECK(hdr_len > 0, "sroce_packet_build: %s",
		      sroce_wire_strerror(hdr_len));
		memset(pkt + hdr_len, o.fill, o.len);
		for (i = hdr_len + o.len; i < (int)(wire_len - SROCE_ICRC_BYTES); i++)
			pkt[i] = 0;
		icrc = sroce_icrc_calc(ip, o.ipv6, &udp, pkt, wire_len);
		memcpy(pkt + wire_len - SROCE_ICRC_BYTES, &icrc, sizeof(icrc));
		n = sendto(fd, pkt, wire_len, 0, (struct sockaddr *)&dst, dlen);
		CHECK(n == (ssize_t)wire_len, "sendto %s (packet %u): %s", o.dst,
		      k, n < 0 ? strerror(errno) : "short");
	}
	close(fd);
	printf("sent %u\n", o.count);
	return 0;
}
