// SPDX-License-Identifier: GPL-2.0
/*
 * Sending an answer: the IPv4 or IPv6 header as the host's stack would
 * write it, the MSS and window the route sizes, the checksum, conntrack,
 * and output, routed or out of the bridge port the segment came in by.
 */
#include <linux/netdevice.h>
#include <linux/netfilter_bridge.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/tcp.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/l3mdev.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/xfrm.h>
#include <net/netfilter/nf_conntrack.h>
#include "nf_chaos_internal.h"

/* tcp_full_space() of a socket with the default receive buffer */
#define NF_CHAOS_SPACE	65536

/*
 * What a path of @mss sizes: on a SYN/ACK, the MSS option, what it lets us
 * receive; and an open window, the one tcp_select_initial_window() offers
 * from the default buffer: 64 KiB in whole segments (64240 for an MSS of
 * 1460, 65160 for the 1448 that timestamps leave), scaled after the
 * SYN/ACK if it offered scaling, and then as tcp_select_window() rounds.
 */
static void nf_chaos_put_mss(struct tcphdr *th, const struct nf_chaos_seg *seg,
			     u32 mss)
{
	u32 eff = mss - (seg->tstamp ? TCPOLEN_TSTAMP_ALIGNED : 0);
	u32 win;

	if (th->syn)
		*(__be32 *)(th + 1) = htonl(TCPOPT_MSS << 24 |
					    TCPOLEN_MSS << 16 |
					    min_t(u32, mss, U16_MAX));
	if (!th->window || !eff)
		return;
	win = rounddown(NF_CHAOS_SPACE, eff);
	if (!th->syn)
		win = DIV_ROUND_UP(win, 1U << seg->wscale);
	th->window = htons(min_t(u32, win, U16_MAX));
}

/*
 * The reply belongs to the segment's connection if conntrack has one:
 * attached to it as RELATED (as REJECT does), it has the flow's NAT undone,
 * so it leaves from the address and port the peer spoke to, and it never
 * confirms an entry of its own. Without one it stays untracked.
 */
static void nf_chaos_track(struct sk_buff *nskb, struct sk_buff *oldskb)
{
	if (skb_nfct(oldskb))
		nf_ct_attach(nskb, oldskb);
	else
		nf_ct_set(nskb, NULL, IP_CT_UNTRACKED);
}

/*
 * br_netfilter shows the IP hooks the segments a bridge forwards: those
 * have an output port. A segment that came in by a bridge port but is for
 * us, or routed, has none: its reply is routed, through OUTPUT and
 * POSTROUTING, so NAT is undone and IPsec applied as for any reply.
 */
static bool nf_chaos_bridged(const struct sk_buff *oldskb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_get_physoutdev(oldskb);
#else
	return false;
#endif
}

/*
 * A bridged segment is answered out of the bridge port it came in by,
 * from the MAC address it was sent to, as nf_send_reset() does: a routed
 * reply would leave by another port with our address, or find no route
 * on a bridge that has no address.
 */
static bool nf_chaos_bridge_xmit(struct net *net, struct sk_buff *oldskb,
				 struct sk_buff *nskb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	const struct ethhdr *oeth = eth_hdr(oldskb);
	struct net_device *port = nf_bridge_get_physindev(oldskb, net);

	if (port) {
		nskb->dev = port;
		if (dev_hard_header(nskb, port, ntohs(nskb->protocol),
				    oeth->h_source, oeth->h_dest,
				    nskb->len) >= 0) {
			dev_queue_xmit(nskb);
			return true;
		}
	}
#endif
	kfree_skb(nskb);
	return false;
}

/* No route to ask: what the bridge device or port of @oldskb carries. */
static u32 nf_chaos_bridge_mss(const struct sk_buff *oldskb, u32 nhlen)
{
	return oldskb->dev->mtu - nhlen - sizeof(struct tcphdr);
}

/*
 * What a socket of the flow draws at random (inet_id, txhash), as a keyed
 * hash of the flow and the peer's ISN: answers within a connection agree,
 * a new connection draws anew. The upper half of the hash: our cookie is
 * the lower half of one, and shows nothing of it. By the key set of the
 * flow's cookie, which a key change leaves as it was.
 */
static u32 nf_chaos_sock_rand(const struct sk_buff *oldskb, u8 family,
			      const struct nf_chaos_seg *seg)
{
	return nf_chaos_hash(seg->flow_keys, oldskb, family,
			     (__force u32)seg->th.dest << 16 |
			     (__force u16)seg->th.source, seg->peer_isn,
			     NF_CHAOS_HASH_FLOW) >> 32;
}

/*
 * The TTL or hop limit of the route's, as the host's stack sets it; in
 * FORWARD the protected host's, which we cannot learn: our own default
 * less the hop its reply would lose through us. A bridge loses none.
 */
static u8 nf_chaos_hoplimit(int hoplimit, unsigned int hook)
{
	return hook == NF_INET_FORWARD && hoplimit > 1 ? hoplimit - 1 :
							 hoplimit;
}

/*
 * A socket's IPv4 ID (ip_select_ident_segs()): its SYN/ACK, with DF, has
 * 0, and so has a reset, which no socket sends; its later segments count
 * from a random start.
 */
static __be16 nf_chaos_ip_id(const struct sk_buff *oldskb,
			     const struct nf_chaos_seg *seg)
{
	if (seg->th.syn || seg->th.rst)
		return 0;
	return htons(nf_chaos_sock_rand(oldskb, NFPROTO_IPV4, seg) +
		     seg->sent);
}

/* The IPv4 header of a reply to @oldskb, at the tail of @nskb. */
static struct iphdr *nf_chaos_iphdr_put(struct sk_buff *nskb,
					const struct sk_buff *oldskb, u8 ttl)
{
	const struct iphdr *oiph = ip_hdr(oldskb);
	struct iphdr *iph;

	skb_reset_network_header(nskb);
	iph = skb_put_zero(nskb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->frag_off = htons(IP_DF);
	iph->ttl = ttl;
	iph->protocol = IPPROTO_TCP;
	iph->saddr = oiph->daddr;
	iph->daddr = oiph->saddr;
	nskb->protocol = htons(ETH_P_IP);
	return iph;
}

/* The IPv6 header of a reply to @oldskb, at the tail of @nskb. */
static struct ipv6hdr *nf_chaos_ip6hdr_put(struct sk_buff *nskb,
					   const struct sk_buff *oldskb,
					   u8 hop_limit)
{
	const struct ipv6hdr *oip6h = ipv6_hdr(oldskb);
	struct ipv6hdr *ip6h;

	skb_reset_network_header(nskb);
	ip6h = skb_put(nskb, sizeof(*ip6h));
	ip6_flow_hdr(ip6h, 0, 0);
	ip6h->nexthdr = IPPROTO_TCP;
	ip6h->hop_limit = hop_limit;
	ip6h->saddr = oip6h->daddr;
	ip6h->daddr = oip6h->saddr;
	nskb->protocol = htons(ETH_P_IPV6);
	return ip6h;
}

/* The segment's header and data, at the tail of @nskb. */
static void nf_chaos_put_seg(struct sk_buff *nskb,
			     const struct nf_chaos_seg *seg)
{
	skb_set_transport_header(nskb, nskb->len);
	skb_put_data(nskb, seg, __tcp_hdrlen(&seg->th));
	skb_put_data(nskb, seg->data, seg->len);
}

/*
 * A full software checksum over at most 20 + NF_CHAOS_BANNER_MAX bytes in
 * both senders: correct on the wire and in any capture whatever the
 * device offloads.
 */
bool nf_chaos_send4(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg, unsigned int hook)
{
	unsigned int tcplen = __tcp_hdrlen(&seg->th) + seg->len;
	bool bridged = nf_chaos_bridged(oldskb);
	struct sk_buff *nskb;
	struct iphdr *iph;
	struct tcphdr *th;
	u32 mss;

	nskb = alloc_skb(LL_MAX_HEADER + sizeof(*iph) + sizeof(*seg),
			 GFP_ATOMIC);
	if (!nskb)
		return false;
	skb_reserve(nskb, LL_MAX_HEADER);
	nskb->mark = IP4_REPLY_MARK(net, oldskb->mark);
	iph = nf_chaos_iphdr_put(nskb, oldskb,
				 READ_ONCE(net->ipv4.sysctl_ip_default_ttl));
	iph->tot_len = htons(sizeof(*iph) + tcplen);
	iph->id = nf_chaos_ip_id(oldskb, seg);
	nf_chaos_put_seg(nskb, seg);

	if (bridged) {
		mss = nf_chaos_bridge_mss(oldskb, sizeof(*iph));
	} else {
		/* ip_route_me_harder() starts from a dst and replaces it. */
		skb_dst_set_noref(nskb, skb_dst(oldskb));
		if (ip_route_me_harder(net, NULL, nskb, RTN_UNSPEC)) {
			kfree_skb(nskb);
			return false;
		}
		ip_hdr(nskb)->ttl =
			nf_chaos_hoplimit(ip4_dst_hoplimit(skb_dst(nskb)), hook);
		mss = dst_metric_advmss(skb_dst(nskb));
	}

	iph = ip_hdr(nskb);
	th = tcp_hdr(nskb);
	nf_chaos_put_mss(th, seg, mss);
	th->check = tcp_v4_check(tcplen, iph->saddr, iph->daddr,
				 csum_partial(th, tcplen, 0));
	nskb->ip_summed = CHECKSUM_NONE;
	nf_chaos_track(nskb, oldskb);

	if (bridged) {
		ip_send_check(iph);
		return nf_chaos_bridge_xmit(net, oldskb, nskb);
	}
	ip_local_out(net, NULL, nskb);
	return true;
}

/*
 * Route the reply to @oldskb, of flow @fl6. A scoped peer (fe80::...%eth0)
 * is reached only by the link it spoke on: the input route of a local
 * segment is on the loopback device, where no fe80::/64 route is found.
 */
static struct dst_entry *nf_chaos_route6(struct net *net,
					 struct sk_buff *oldskb,
					 struct flowi6 *fl6)
{
	struct dst_entry *dst;

	if (rt6_need_strict(&fl6->daddr))
		fl6->flowi6_oif = oldskb->dev->ifindex;
	else
		fl6->flowi6_oif = l3mdev_master_ifindex(skb_dst(oldskb)->dev);
	security_skb_classify_flow(oldskb, flowi6_to_flowi_common(fl6));

	dst = ip6_route_output(net, NULL, fl6);
	if (dst->error) {
		dst_release(dst);
		return NULL;
	}
	dst = xfrm_lookup(net, dst, flowi6_to_flowi(fl6), NULL, 0);
	return IS_ERR(dst) ? NULL : dst;
}

/*
 * The flow label the host's stack writes (ip6_xmit()): per the netns's
 * auto_flowlabels, from a socket's random txhash (the SYN/ACK's is the
 * request's, which the connection keeps), or for a reset, which no socket
 * sends, from the flow's own hash (tcp_v6_send_response()).
 */
static __be32 nf_chaos_flowlabel(struct net *net, struct sk_buff *nskb,
				 const struct sk_buff *oldskb,
				 const struct nf_chaos_seg *seg,
				 struct flowi6 *fl6)
{
	if (!seg->th.rst)
		skb_set_hash(nskb, nf_chaos_sock_rand(oldskb, NFPROTO_IPV6,
						      seg),
			     PKT_HASH_TYPE_L4);
	return ip6_make_flowlabel(net, nskb, 0, ip6_default_np_autolabel(net),
				  fl6);
}

bool nf_chaos_send6(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg, unsigned int hook)
{
	unsigned int tcplen = __tcp_hdrlen(&seg->th) + seg->len;
	bool bridged = nf_chaos_bridged(oldskb);
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct sk_buff *nskb;
	struct flowi6 fl6;
	struct tcphdr *th;
	u32 mss;

	nskb = alloc_skb(LL_MAX_HEADER + sizeof(*ip6h) + sizeof(*seg),
			 GFP_ATOMIC);
	if (!nskb)
		return false;
	skb_reserve(nskb, LL_MAX_HEADER);
	nskb->mark = IP6_REPLY_MARK(net, oldskb->mark);
	ip6h = nf_chaos_ip6hdr_put(nskb, oldskb,
				   READ_ONCE(net->ipv6.devconf_all->hop_limit));
	ip6h->payload_len = htons(tcplen);
	nf_chaos_put_seg(nskb, seg);
	th = tcp_hdr(nskb);
	fl6 = (struct flowi6) {
		.flowi6_proto = IPPROTO_TCP,
		.flowi6_mark = nskb->mark,
		.saddr = ip6h->saddr,
		.daddr = ip6h->daddr,
		.fl6_sport = th->source,
		.fl6_dport = th->dest,
	};
	ip6_flow_hdr(ip6h, 0, nf_chaos_flowlabel(net, nskb, oldskb, seg, &fl6));

	if (bridged) {
		mss = nf_chaos_bridge_mss(oldskb, sizeof(*ip6h));
	} else {
		dst = nf_chaos_route6(net, oldskb, &fl6);
		if (!dst) {
			kfree_skb(nskb);
			return false;
		}
		skb_dst_set(nskb, dst);
		ip6h->hop_limit = nf_chaos_hoplimit(ip6_dst_hoplimit(dst), hook);
		mss = dst_metric_advmss(dst);
	}

	nf_chaos_put_mss(th, seg, mss);
	th->check = tcp_v6_check(tcplen, &ip6h->saddr, &ip6h->daddr,
				 csum_partial(th, tcplen, 0));
	nskb->ip_summed = CHECKSUM_NONE;
	nf_chaos_track(nskb, oldskb);

	if (bridged)
		return nf_chaos_bridge_xmit(net, oldskb, nskb);
	ip6_local_out(net, NULL, nskb);
	return true;
}
