// SPDX-License-Identifier: GPL-2.0
/*
 * udp_bind PORT: bind a UDP socket to PORT on the IPv4 and on the IPv6
 * wildcard address (IPV6_V6ONLY, so the two do not overlap). Exit 0 if
 * both binds succeed, 1 otherwise: tells whether a port is really free.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int try_bind(int family, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(port) };
	int fd, one = 1, ret;

	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 0;
	}
	if (family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		ret = bind(fd, (struct sockaddr *)&sin6, sizeof(sin6));
	} else {
		ret = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	}
	printf("%s UDP port %d: %s\n", family == AF_INET ? "IPv4" : "IPv6",
	       port, ret == 0 ? "bound" : strerror(errno));
	close(fd);
	return ret == 0;
}

int main(int argc, char **argv)
{
	int port, ok;

	if (argc != 2 || (port = atoi(argv[1])) <= 0 || port > 65535) {
		fprintf(stderr, "usage: %s PORT\n", argv[0]);
		return 2;
	}
	ok = try_bind(AF_INET, port);
	ok &= try_bind(AF_INET6, port);
	return ok ? 0 : 1;
}
