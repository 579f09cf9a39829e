// SPDX-License-Identifier: GPL-2.0
/*
 * Reply-forging core of DELUDE, TARPIT and CHAOS: answer one TCP segment
 * on the host's behalf, statelessly, over IPv4 or IPv6.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/siphash.h>
#include <linux/tcp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include "nf_chaos_reply.h"

/* Receive window we offer when we want data: what Linux offers. */
#define NF_CHAOS_WINDOW	64240

/* The largest reply: a header and, on a SYN/ACK only, an MSS option. */
struct nf_chaos_seg {
	struct tcphdr th;
	__be32 mss;
};

static siphash_key_t nf_chaos_key __read_mostly;

/*
 * Keyed hash of the segment's addresses and ports. Our ISN is the peer's
 * plus this, so any later segment of the flow tells us the peer's ISN
 * from its ACK number: rcv_nxt without keeping state.
 */
static u32 nf_chaos_cookie(const struct sk_buff *oldskb, u8 family,
			   const struct tcphdr *oth)
{
	u32 ports = (__force u32)oth->source << 16 | (__force u16)oth->dest;

	net_get_random_once(&nf_chaos_key, sizeof(nf_chaos_key));

	if (family == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(oldskb);

		return siphash_3u32((__force u32)iph->saddr,
				    (__force u32)iph->daddr, ports,
				    &nf_chaos_key);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(oldskb);
		const struct {
			struct in6_addr saddr;
			struct in6_addr daddr;
			u32 ports;
		} flow = {
			.saddr = ip6h->saddr,
			.daddr = ip6h->daddr,
			.ports = ports,
		};

		return siphash(&flow, sizeof(flow), &nf_chaos_key);
	}
}

static const struct tcphdr *
nf_chaos_tcphdr_get4(struct net *net, struct sk_buff *oldskb,
		     struct tcphdr *buf, unsigned int hook,
		     unsigned int *tcplen)
{
	const struct iphdr *iph = ip_hdr(oldskb);
	const struct tcphdr *oth;
	unsigned int type;

	/* Not a later fragment, not a RST, checksum valid. */
	oth = nf_reject_ip_tcphdr_get(oldskb, buf, hook);
	if (!oth)
		return NULL;

	/* Nothing to or from broadcast or multicast, nothing from us. */
	if (inet_addr_type_dev_table(net, oldskb->dev, iph->saddr) !=
	    RTN_UNICAST)
		return NULL;
	type = inet_addr_type_dev_table(net, oldskb->dev, iph->daddr);
	if (type != RTN_LOCAL && type != RTN_UNICAST)
		return NULL;

	*tcplen = oldskb->len - ip_hdrlen(oldskb);
	return oth;
}

static const struct tcphdr *
nf_chaos_tcphdr_get6(struct net *net, struct sk_buff *oldskb,
		     struct tcphdr *buf, unsigned int hook,
		     unsigned int *tcplen)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(oldskb);
	const struct tcphdr *oth;

	/* Not a later fragment, not a RST, checksum valid. */
	oth = nf_reject_ip6_tcphdr_get(oldskb, buf, tcplen, hook);
	if (!oth)
		return NULL;

	/* Unicast only, and never a source of our own. */
	if (!(ipv6_addr_type(&ip6h->saddr) & IPV6_ADDR_UNICAST) ||
	    !(ipv6_addr_type(&ip6h->daddr) & IPV6_ADDR_UNICAST) ||
	    ipv6_chk_addr(net, &ip6h->saddr, NULL, 0))
		return NULL;

	return oth;
}

/*
 * Fill @seg with the answer to @oth, which carries @dlen bytes of data.
 * Returns false when the answer is silence.
 */
static bool nf_chaos_plan(struct nf_chaos_seg *seg,
			  const struct sk_buff *oldskb, u8 family,
			  const struct tcphdr *oth, u32 dlen,
			  enum nf_chaos_answer answer)
{
	struct tcphdr *th = &seg->th;
	u32 seq = ntohl(oth->seq);
	u32 rcv_nxt;

	memset(seg, 0, sizeof(*seg));
	th->source = oth->dest;
	th->dest = oth->source;
	th->doff = sizeof(*th) / 4;

	if (oth->syn && !oth->ack && answer != NF_CHAOS_RESET) {
		th->seq = htonl(seq + nf_chaos_cookie(oldskb, family, oth));
		th->ack_seq = htonl(seq + 1);
		th->syn = 1;
		th->ack = 1;
		th->doff = sizeof(*seg) / 4;
		/*
		 * A tarpit offers no window at all: the peer sends no data,
		 * only window probes, and RFC 1122 has it wait as long as
		 * they are answered. Any window would let it send, then
		 * retransmit and give up after tcp_retries2.
		 */
		if (answer != NF_CHAOS_TARPIT)
			th->window = htons(NF_CHAOS_WINDOW);
		return true;
	}

	switch (answer) {
	case NF_CHAOS_DELUDE:
	case NF_CHAOS_RESET:
		/* RFC 793 reset generation. */
		th->rst = 1;
		if (oth->ack) {
			th->seq = oth->ack_seq;
		} else {
			th->ack_seq = htonl(seq + oth->syn + oth->fin + dlen);
			th->ack = 1;
		}
		return true;
	case NF_CHAOS_TARPIT:
		/* Close attempts and strays go unanswered. */
		if (oth->syn || oth->fin || !oth->ack)
			return false;
		rcv_nxt = ntohl(oth->ack_seq) -
			  nf_chaos_cookie(oldskb, family, oth);
		/* An in-sequence pure ACK wants no answer; one could loop. */
		if (!dlen && seq == rcv_nxt)
			return false;
		/* Ack exactly what the peer has acked: probes are answered. */
		th->ack_seq = htonl(rcv_nxt);
		break;
	case NF_CHAOS_HONEYPOT:
		if (oth->syn || !oth->ack || (!dlen && !oth->fin))
			return false;
		th->ack_seq = htonl(seq + dlen + oth->fin);
		th->window = htons(NF_CHAOS_WINDOW);
		break;
	default:
		return false;
	}
	th->seq = oth->ack_seq;
	th->ack = 1;
	return true;
}

/* Build the IP packet around @seg, route it like REJECT does, send it. */
static bool nf_chaos_send(struct net *net, struct sk_buff *oldskb, u8 family,
			  const struct nf_chaos_seg *seg)
{
	unsigned int tcplen = __tcp_hdrlen(&seg->th);
	struct dst_entry *dst;
	struct sk_buff *nskb;
	struct tcphdr *th;
	int err;

	nskb = alloc_skb(LL_MAX_HEADER + sizeof(struct ipv6hdr) + sizeof(*seg),
			 GFP_ATOMIC);
	if (!nskb)
		return false;
	skb_reserve(nskb, LL_MAX_HEADER);
	/* The route_me_harder helpers start from a dst and replace it. */
	skb_dst_set_noref(nskb, skb_dst(oldskb));

	/* TTL and MSS depend on the route: set once it is known. */
	if (family == NFPROTO_IPV4) {
		nf_reject_iphdr_put(nskb, oldskb, IPPROTO_TCP, 0);
		ip_hdr(nskb)->tot_len = htons(sizeof(struct iphdr) + tcplen);
		nskb->mark = IP4_REPLY_MARK(net, oldskb->mark);
	} else {
		nf_reject_ip6hdr_put(nskb, oldskb, IPPROTO_TCP, 0);
		ipv6_hdr(nskb)->payload_len = htons(tcplen);
		nskb->mark = IP6_REPLY_MARK(net, oldskb->mark);
	}
	skb_set_transport_header(nskb, nskb->len);
	skb_put_data(nskb, seg, tcplen);

	if (family == NFPROTO_IPV4)
		err = ip_route_me_harder(net, NULL, nskb, RTN_UNSPEC);
	else
		err = ip6_route_me_harder(net, NULL, nskb);
	if (err) {
		kfree_skb(nskb);
		return false;
	}

	dst = skb_dst(nskb);
	th = tcp_hdr(nskb);
	/* On a SYN/ACK, the MSS this route lets us receive. */
	if (th->syn)
		*(__be32 *)(th + 1) = htonl(TCPOPT_MSS << 24 | TCPOLEN_MSS << 16 |
					    min_t(u32, dst_metric_advmss(dst),
						  U16_MAX));

	/*
	 * A full software checksum over at most 24 bytes: correct on the
	 * wire and in any capture whatever the device offloads.
	 */
	if (family == NFPROTO_IPV4) {
		struct iphdr *iph = ip_hdr(nskb);

		iph->ttl = ip4_dst_hoplimit(dst);
		th->check = tcp_v4_check(tcplen, iph->saddr, iph->daddr,
					 csum_partial(th, tcplen, 0));
	} else {
		struct ipv6hdr *ip6h = ipv6_hdr(nskb);

		ip6h->hop_limit = ip6_dst_hoplimit(dst);
		th->check = tcp_v6_check(tcplen, &ip6h->saddr, &ip6h->daddr,
					 csum_partial(th, tcplen, 0));
	}
	nskb->ip_summed = CHECKSUM_NONE;

	/* A forged reply must not create conntrack entries. */
	nf_ct_set(nskb, NULL, IP_CT_UNTRACKED);

	if (family == NFPROTO_IPV4)
		ip_local_out(net, NULL, nskb);
	else
		ip6_local_out(net, NULL, nskb);
	return true;
}

bool nf_chaos_tcp_answer(struct net *net, struct sk_buff *oldskb,
			 unsigned int hook, u8 family,
			 enum nf_chaos_answer answer)
{
	const struct tcphdr *oth;
	struct nf_chaos_seg seg;
	struct tcphdr buf;
	unsigned int tcplen;

	/*
	 * A link-layer broadcast or multicast frame may carry a unicast IP
	 * address of ours; TCP drops such segments, so do we.
	 */
	if (oldskb->pkt_type != PACKET_HOST)
		return false;

	if (family == NFPROTO_IPV4)
		oth = nf_chaos_tcphdr_get4(net, oldskb, &buf, hook, &tcplen);
	else
		oth = nf_chaos_tcphdr_get6(net, oldskb, &buf, hook, &tcplen);

	/* Malformed: data offset too small or beyond the segment. */
	if (!oth || oth->doff < sizeof(*oth) / 4 || __tcp_hdrlen(oth) > tcplen)
		return false;

	if (!nf_chaos_plan(&seg, oldskb, family, oth,
			   tcplen - __tcp_hdrlen(oth), answer))
		return false;

	return nf_chaos_send(net, oldskb, family, &seg);
}
EXPORT_SYMBOL_GPL(nf_chaos_tcp_answer);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: forge TCP answers for DELUDE, TARPIT and CHAOS");
