// SPDX-License-Identifier: GPL-2.0
/*
 * Scan classifier of xt_portscan, shared with CHAOS.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/export.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/addrconf.h>
#include <net/inet6_hashtables.h>
#include <net/inet_hashtables.h>
#include <net/route.h>
#include <net/tcp.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_core.h>
#include <net/netfilter/nf_conntrack_zones.h>
#include "portscan_classify.h"
#include "portscan_track.h"

/* PSH, ECE and CWR aside, the flag sets real stacks send. */
#define PORTSCAN_FLAGS (TCPHDR_FIN | TCPHDR_SYN | TCPHDR_RST | TCPHDR_ACK | TCPHDR_URG)

static const bool portscan_sane_flags[PORTSCAN_FLAGS + 1] = {
	[TCPHDR_SYN]				= true,
	[TCPHDR_SYN | TCPHDR_ACK]		= true,
	[TCPHDR_RST]				= true,
	[TCPHDR_RST | TCPHDR_ACK]		= true,
	[TCPHDR_FIN | TCPHDR_ACK]		= true,
	[TCPHDR_FIN | TCPHDR_ACK | TCPHDR_URG]	= true,
	[TCPHDR_ACK]				= true,
	[TCPHDR_ACK | TCPHDR_URG]		= true,
};

/*
 * Conntrack leaves invalid packets, even of known flows, without a ct:
 * look the flow up. A template (rule before conntrack) gives the zone,
 * by number or from the packet's mark (CT --zone mark), as conntrack
 * itself finds it.
 */
static bool portscan_flow_exists(struct net *net, const struct sk_buff *skb,
				 u8 family, const struct nf_conn *tmpl)
{
	const struct nf_conntrack_zone *zone;
	struct nf_conntrack_tuple_hash *h;
	struct nf_conntrack_tuple tuple;
	struct nf_conntrack_zone tmp;

	if (!nf_ct_get_tuplepr(skb, skb_network_offset(skb), family, net, &tuple))
		return true;	/* cannot tell: do not accuse */
	zone = nf_ct_zone_tmpl(tmpl, skb, &tmp);
	h = nf_conntrack_find_get(net, zone, &tuple);
	if (!h)
		return false;
	nf_ct_put(nf_ct_tuplehash_to_ctrack(h));
	return true;
}

/*
 * A local socket that owns the 4-tuple of a segment addressed to us
 * (established hash: no listener, which an ACK probe to an open port
 * would find; time-wait and request sockets count) proves a connection.
 */
static bool portscan_local_conn(const struct sk_buff *skb,
				const struct tcphdr *th,
				const struct nf_hook_state *state)
{
	struct net *net = state->net;
	struct sock *sk = NULL;

	if (state->hook != NF_INET_LOCAL_IN && state->hook != NF_INET_PRE_ROUTING)
		return false;
	if (state->pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		sk = chaos_inet_lookup_established(net, iph->saddr, th->source,
						   iph->daddr, ntohs(th->dest),
						   state->in->ifindex, 0);
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		sk = chaos_inet6_lookup_established(net, &ip6h->saddr,
						    th->source, &ip6h->daddr,
						    ntohs(th->dest),
						    state->in->ifindex, 0);
#endif
	}
	if (!sk)
		return false;
	sock_gen_put(sk);
	return true;
}

/*
 * The ACK that returns a SYN cookie of this host: SYNPROXY answers the
 * SYN before any flow or socket exists, and builds both from this ACK.
 */
static bool portscan_cookie_ack(const struct sk_buff *skb,
				const struct tcphdr *th, u8 pf)
{
	if (!IS_ENABLED(CONFIG_SYN_COOKIES) || !th->ack || th->syn || th->fin)
		return false;
	if (pf == NFPROTO_IPV4)
		return chaos_cookie_v4_check(ip_hdr(skb), th,
					     ntohl(th->ack_seq) - 1) > 0;
	return IS_ENABLED(CONFIG_IPV6) &&
	       chaos_cookie_v6_check(ipv6_hdr(skb), th,
				     ntohl(th->ack_seq) - 1) > 0;
}

/*
 * A well-formed timestamp option (kind 8, length 10, non-zero echo) among
 * the options of @th, which lie inside the segment: what every segment of
 * a connection that negotiated timestamps carries, its keepalives too.
 */
static bool portscan_live_ts(const struct sk_buff *skb, unsigned int thoff,
			     const struct tcphdr *th)
{
	unsigned int len = __tcp_hdrlen(th) - sizeof(*th), i = 0;
	u8 _opt[MAX_TCP_OPTION_SPACE];
	const u8 *opt;

	opt = skb_header_pointer(skb, thoff + sizeof(*th), len, _opt);
	if (!opt)
		return false;
	while (i < len) {
		if (opt[i] == TCPOPT_EOL)
			break;
		if (opt[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len || opt[i + 1] < 2 || i + opt[i + 1] > len)
			return false;
		if (opt[i] == TCPOPT_TIMESTAMP)
			return opt[i + 1] == TCPOLEN_TIMESTAMP &&
			       get_unaligned_be32(&opt[i + 6]);
		i += opt[i + 1];
	}
	return false;
}

/* Whether @skb ends at this host: LOCAL_IN, or PRE_ROUTING to our address. */
static bool portscan_to_local(const struct sk_buff *skb,
			      const struct nf_hook_state *state)
{
	if (state->hook == NF_INET_LOCAL_IN)
		return true;
	if (state->hook != NF_INET_PRE_ROUTING)
		return false;
	if (state->pf == NFPROTO_IPV4)
		return inet_addr_type_dev_table(state->net, state->in,
						ip_hdr(skb)->daddr) == RTN_LOCAL;
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_chk_addr(state->net, &ipv6_hdr(skb)->daddr, NULL, 0);
#else
	return false;
#endif
}

/*
 * A segment (not a SYN) that conntrack has no history for: flushed,
 * expired, failed over, or older than conntrack in this netns. It is
 * real if it is a RST (an answer to our own attempt, or late), a local
 * socket owns it, or it returns a SYN cookie (SYNPROXY's handshake).
 * At the host it is addressed to that is the whole answer: data or
 * options prove nothing a probe cannot carry. Elsewhere (FORWARD,
 * OUTPUT, PRE_ROUTING to another host) there is no socket to ask: data,
 * or a timestamp option with an echo on an ACK or FIN|ACK, is what a
 * live connection's segments carry, its keepalives too; scan probes
 * carry none, or other options, or flags no live connection sends
 * without history (SYN|ACK).
 */
static bool portscan_unknown_real(const struct sk_buff *skb,
				  unsigned int thoff, const struct tcphdr *th,
				  const struct nf_hook_state *state)
{
	if (th->rst || portscan_local_conn(skb, th, state) ||
	    portscan_cookie_ack(skb, th, state->pf))
		return true;
	if (portscan_to_local(skb, state))
		return false;
	if (skb->len > thoff + __tcp_hdrlen(th))
		return true;
	if (th->syn || !th->ack ||
	    __tcp_hdrlen(th) < sizeof(*th) + TCPOLEN_TIMESTAMP)
		return false;
	return portscan_live_ts(skb, thoff, th);
}

/*
 * Mirai's scanner puts the IPv4 destination address into the sequence
 * number of its SYNs; one real SYN in 2^32 does the same. Behind DNAT the
 * probe was sent to the address conntrack saw first.
 */
static bool portscan_mirai(const struct sk_buff *skb, const struct tcphdr *th,
			   const struct nf_conn *ct,
			   enum ip_conntrack_info ctinfo, u8 pf)
{
	if (pf != NFPROTO_IPV4)
		return false;
	if (th->seq == ip_hdr(skb)->daddr)
		return true;
	return ct && !nf_ct_is_template(ct) &&
	       CTINFO2DIR(ctinfo) == IP_CT_DIR_ORIGINAL &&
	       th->seq == ct->tuplehash[IP_CT_DIR_ORIGINAL].tuple.dst.u3.ip;
}

/* Classes decided by the flow history, for ORIGINAL-direction segments. */
static unsigned int portscan_closing(const struct nf_conn *ct, u8 flags,
				     u32 state)
{
	if (!(state & PORTSCAN_TRACKED))
		return 0;
	/* Half-open: SYN, SYN/ACK, RST instead of the final ACK. */
	if (flags & TCPHDR_RST && !(state & PORTSCAN_ACKED) &&
	    test_bit(IPS_SEEN_REPLY_BIT, &ct->status))
		return XT_PORTSCAN_SYN;
	if (!(flags & (TCPHDR_FIN | TCPHDR_RST)) || !(state & PORTSCAN_ACKED) ||
	    state & (PORTSCAN_ORIG_DATA | PORTSCAN_REPLY_FIN))
		return 0;
	return state & PORTSCAN_REPLY_DATA ? XT_PORTSCAN_GRAB : XT_PORTSCAN_CONNECT;
}

unsigned int portscan_classify(const struct sk_buff *skb, unsigned int thoff,
			       const struct nf_hook_state *state, u32 mark_mask)
{
	enum ip_conntrack_info ctinfo;
	const struct tcphdr *th;
	struct tcphdr _th;
	struct nf_conn *ct;
	unsigned int cls;
	u8 flags;

	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	if (!th)
		return 0;
	flags = tcp_flag_byte(th);
	/*
	 * No stack sends absurd flags, or a header shorter than 20 bytes or
	 * longer than the segment.
	 */
	if (!portscan_sane_flags[flags & PORTSCAN_FLAGS] ||
	    __tcp_hdrlen(th) < sizeof(*th) ||
	    __tcp_hdrlen(th) > skb->len - thoff)
		return XT_PORTSCAN_STEALTH;

	ct = nf_ct_get(skb, &ctinfo);
	if ((flags & (TCPHDR_SYN | TCPHDR_ACK)) == TCPHDR_SYN) {
		cls = portscan_mirai(skb, th, ct, ctinfo, state->pf) ?
		      XT_PORTSCAN_MIRAI : 0;
		if (!ct || nf_ct_is_template(ct) || ctinfo == IP_CT_NEW)
			cls |= PORTSCAN_OPENING_SYN;
		return cls;
	}
	if (!ct || nf_ct_is_template(ct)) {
		if (ctinfo == IP_CT_UNTRACKED ||
		    portscan_unknown_real(skb, thoff, th, state) ||
		    portscan_flow_exists(state->net, skb, state->pf, ct))
			return 0;
		return XT_PORTSCAN_STEALTH;
	}
	/* Created for this very segment: conntrack picked it up. */
	if (ctinfo == IP_CT_NEW && !nf_ct_is_confirmed(ct) &&
	    !portscan_unknown_real(skb, thoff, th, state))
		return XT_PORTSCAN_STEALTH;
	if (!mark_mask || CTINFO2DIR(ctinfo) != IP_CT_DIR_ORIGINAL)
		return 0;
	return portscan_closing(ct, flags,
				portscan_state(READ_ONCE(ct->mark), mark_mask));
}
EXPORT_SYMBOL_GPL(portscan_classify);
