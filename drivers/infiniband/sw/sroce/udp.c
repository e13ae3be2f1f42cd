// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 UDP tunnel sockets (port 4791, IPv4 and IPv6), one pair per
 * network namespace that has at least one sroce device.
 *
 * Opening them lazily, per namespace, is what lets sroce share a host with
 * another RoCE driver that owns port 4791 in some other namespace (the
 * in-tree rdma_rxe holds it in init_net).
 *
 * Lifetime: each device holds one "user" reference on the sockets of the
 * namespace of its netdev, taken in newlink and dropped in dealloc_driver.
 * A namespace cannot die with users left: its exit handler unregisters the
 * devices that still point at it before the per-net state is freed.
 */
#include <linux/in6.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "drop.h"
#include "gro.h"

struct sroce_net {
	struct mutex lock;	/* protects users, sk4, sk6 */
	unsigned int users;
	struct socket *sk4;
	struct socket *sk6;
};

static unsigned int sroce_net_id __read_mostly;

/*
 * The device a packet is for: the one bound to the netdev it came in on,
 * or, for a packet between two local devices (it arrives on the loopback
 * device), the one bound to the netdev that owns the destination address.
 * A multicast packet is for the netdev it came in on in any case: the IP
 * stack loops a group's packets back on the netdev that sent them.
 */
static struct sroce_dev *sroce_udp_dev_rcu(struct sk_buff *skb)
{
	struct net_device *ndev = skb->dev;
	bool ipv6 = skb->protocol != htons(ETH_P_IP);
	bool mcast = ipv6 ? ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr) :
			    ipv4_is_multicast(ip_hdr(skb)->daddr);

	if ((ndev->flags & IFF_LOOPBACK) && !mcast)
		return sroce_dev_by_addr_rcu(dev_net(ndev), ipv6,
					     ipv6 ? (void *)&ipv6_hdr(skb)->daddr :
						    (void *)&ip_hdr(skb)->daddr);
	return sroce_dev_find_rcu(ndev);
}

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *sdev;

	/* Softirq, inside the RCU read section of the UDP receive path. */
	sdev = sroce_udp_dev_rcu(skb);
	if (unlikely(!sdev)) {
		sroce_drop_skb(NULL, 0, skb, SROCE_DROP_NO_DEVICE);
		return 0;
	}
	sroce_recv(sdev, skb, SROCE_RX_FROM_WIRE);
	return 0;
}

static struct socket *sroce_udp_open(struct net *net, bool ipv6)
{
	struct udp_port_cfg port_cfg = {
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
	};
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		/* Any non-zero type; the encap hook is what matters. */
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
		.gro_receive = sroce_gro_receive,
		.gro_complete = sroce_gro_complete,
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
	} else {
		port_cfg.family = AF_INET;
	}
	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tunnel_cfg);
	return sock;
}

static void sroce_udp_close(struct sroce_net *snet)
{
	if (snet->sk6)
		udp_tunnel_sock_release(snet->sk6);
	if (snet->sk4)
		udp_tunnel_sock_release(snet->sk4);
	snet->sk6 = NULL;
	snet->sk4 = NULL;
}

/* Takes a user reference on @net's sockets, opening them if needed. */
int sroce_udp_get(struct net *net)
{
	struct sroce_net *snet = net_generic(net, sroce_net_id);
	struct socket *sock;
	int err = 0;

	mutex_lock(&snet->lock);
	if (snet->users++)
		goto out;

	sock = sroce_udp_open(net, false);
	if (IS_ERR(sock)) {
		err = PTR_ERR(sock);
		goto fail;
	}
	snet->sk4 = sock;
	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = sroce_udp_open(net, true);
		/* A kernel booted with ipv6.disable=1 still gets IPv4. */
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
			err = PTR_ERR(sock);
			goto fail;
		}
		snet->sk6 = IS_ERR(sock) ? NULL : sock;
	}
	goto out;
fail:
	if (err == -EADDRINUSE)
		pr_err("%s: UDP port %u is in use in this network namespace (another RoCE driver?)\n",
		       SROCE_DRV_NAME, ROCE_V2_UDP_DPORT);
	else
		pr_err("%s: cannot open the RoCE v2 UDP socket: %d\n",
		       SROCE_DRV_NAME, err);
	sroce_udp_close(snet);
	snet->users--;
out:
	mutex_unlock(&snet->lock);
	return err;
}

void sroce_udp_put(struct net *net)
{
	struct sroce_net *snet = net_generic(net, sroce_net_id);

	mutex_lock(&snet->lock);
	if (!WARN_ON(!snet->users) && !--snet->users)
		sroce_udp_close(snet);
	mutex_unlock(&snet->lock);
}

static __net_init int sroce_net_init(struct net *net)
{
	struct sroce_net *snet = net_generic(net, sroce_net_id);

	mutex_init(&snet->lock);
	snet->users = 0;
	snet->sk4 = NULL;
	snet->sk6 = NULL;
	return 0;
}

static bool sroce_dev_in_net(struct sroce_dev *sdev, const void *net)
{
	return sdev->net == net;
}

static __net_exit void sroce_net_exit(struct net *net)
{
	struct sroce_net *snet = net_generic(net, sroce_net_id);

	/*
	 * Devices whose netdev lived here are normally gone already (netdevs
	 * are unregistered first); one whose netdev moved away may remain.
	 */
	sroce_unregister_matching(sroce_dev_in_net, net);
	WARN_ON(snet->users);
}

static struct pernet_operations sroce_net_ops = {
	.init = sroce_net_init,
	.exit = sroce_net_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_net),
};

int sroce_udp_init(void)
{
	return register_pernet_subsys(&sroce_net_ops);
}

void sroce_udp_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}
