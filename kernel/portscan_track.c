// SPDX-License-Identifier: GPL-2.0
/*
 * Tracking hook of xt_portscan: sees every TCP packet of a flow once,
 * both directions, right after conntrack, and records in the conntrack
 * mark what the classifier needs to know about the flow's history.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/netns/generic.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/nf_conntrack_ecache.h>
#include "portscan_track.h"

struct portscan_net {
	unsigned int users[2];	/* rules per family: IPv4, IPv6 */
	u32 mark_mask;		/* shared by all rules of the netns */
};

static unsigned int portscan_net_id __read_mostly;
/* Serialises rule setup and teardown; never taken on the packet path. */
static DEFINE_MUTEX(portscan_mutex);

bool portscan_mask_valid(u32 mark_mask)
{
	unsigned int shift;

	if (!mark_mask)
		return false;
	shift = __ffs(mark_mask);
	return shift <= 32 - XT_PORTSCAN_STATE_BITS &&
	       ((mark_mask >> shift) & PORTSCAN_STATE_ALL) == PORTSCAN_STATE_ALL;
}

/* TCP header offset; conntrack reassembled, so skip any fragment. */
static int portscan_thoff(const struct sk_buff *skb, u8 pf)
{
	__be16 frag_off;
	u8 nexthdr;
	int thoff;

	if (pf == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
			return -1;
		return skb_network_offset(skb) + ip_hdrlen(skb);
	}
	nexthdr = ipv6_hdr(skb)->nexthdr;
	thoff = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(struct ipv6hdr),
				 &nexthdr, &frag_off);
	if (thoff < 0 || nexthdr != IPPROTO_TCP || frag_off)
		return -1;
	return thoff;
}

/*
 * Payload the peer has already acknowledged is a keepalive or window
 * probe (BSD stacks send one old byte), not data.
 */
static bool portscan_new_data(struct nf_conn *ct, enum ip_conntrack_dir dir,
			      const struct tcphdr *th, unsigned int len)
{
	const struct ip_ct_tcp_state *peer = &ct->proto.tcp.seen[!dir];
	u32 end = ntohl(th->seq) + len;
	bool new;

	spin_lock_bh(&ct->lock);
	new = !(peer->flags & IP_CT_TCP_FLAG_MAXACK_SET) ||
	      after(end, peer->td_maxack);
	spin_unlock_bh(&ct->lock);
	return new;
}

/* State bits the segment adds to its flow. */
static u32 portscan_update(struct nf_conn *ct, enum ip_conntrack_info ctinfo,
			   const struct tcphdr *th, unsigned int len, u32 state)
{
	enum ip_conntrack_dir dir = CTINFO2DIR(ctinfo);
	u32 bits = 0;

	if (dir == IP_CT_DIR_REPLY) {
		if (th->fin || th->rst)
			bits |= PORTSCAN_REPLY_FIN;
		if (len && !(state & PORTSCAN_REPLY_DATA) &&
		    portscan_new_data(ct, dir, th, len))
			bits |= PORTSCAN_REPLY_DATA;
		return bits & ~state;
	}

	if (ctinfo == IP_CT_NEW && th->syn && !th->ack)
		bits |= PORTSCAN_TRACKED;
	else if (th->ack && !th->syn && !th->rst &&
		 test_bit(IPS_SEEN_REPLY_BIT, &ct->status))
		bits |= PORTSCAN_ACKED;
	if (!((state | bits) & PORTSCAN_TRACKED))
		return 0;
	if (len && !(state & PORTSCAN_ORIG_DATA) &&
	    portscan_new_data(ct, dir, th, len))
		bits |= PORTSCAN_ORIG_DATA;
	return bits & ~state;
}

/* Both directions may update the mark at once on different CPUs. */
static void portscan_mark_set(struct nf_conn *ct, u32 bits)
{
	u32 old = READ_ONCE(ct->mark);

	do {
		if ((old & bits) == bits)
			return;
	} while (!try_cmpxchg(&ct->mark, &old, old | bits));
	nf_conntrack_event_cache(IPCT_MARK, ct);
}

static unsigned int portscan_track(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	const struct portscan_net *pn = net_generic(state->net, portscan_net_id);
	u32 mask = READ_ONCE(pn->mark_mask);
	enum ip_conntrack_info ctinfo;
	const struct tcphdr *th;
	struct tcphdr _th;
	struct nf_conn *ct;
	u32 flow, bits;
	int thoff;

	ct = nf_ct_get(skb, &ctinfo);
	if (!ct || nf_ct_protonum(ct) != IPPROTO_TCP)
		return NF_ACCEPT;
	flow = portscan_state(READ_ONCE(ct->mark), mask);
	/* Flows older than the rules are never classified. */
	if (!(flow & PORTSCAN_TRACKED) && ctinfo != IP_CT_NEW)
		return NF_ACCEPT;
	/* Once the originator sent data no scan class can apply. */
	if ((flow & (PORTSCAN_ACKED | PORTSCAN_ORIG_DATA)) ==
	    (PORTSCAN_ACKED | PORTSCAN_ORIG_DATA))
		return NF_ACCEPT;

	thoff = portscan_thoff(skb, state->pf);
	if (thoff < 0)
		return NF_ACCEPT;
	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	if (!th || th->doff * 4 < sizeof(*th) || skb->len < thoff + th->doff * 4)
		return NF_ACCEPT;

	bits = portscan_update(ct, ctinfo, th, skb->len - thoff - th->doff * 4, flow);
	if (bits)
		portscan_mark_set(ct, bits << __ffs(mask));
	return NF_ACCEPT;
}

/* Just after conntrack and before any filter table: once per packet. */
static const struct nf_hook_ops portscan_ops[2][2] = {
	{
		{
			.hook		= portscan_track,
			.pf		= NFPROTO_IPV4,
			.hooknum	= NF_INET_PRE_ROUTING,
			.priority	= NF_IP_PRI_CONNTRACK + 1,
		},
		{
			.hook		= portscan_track,
			.pf		= NFPROTO_IPV4,
			.hooknum	= NF_INET_LOCAL_OUT,
			.priority	= NF_IP_PRI_CONNTRACK + 1,
		},
	},
	{
		{
			.hook		= portscan_track,
			.pf		= NFPROTO_IPV6,
			.hooknum	= NF_INET_PRE_ROUTING,
			.priority	= NF_IP6_PRI_CONNTRACK + 1,
		},
		{
			.hook		= portscan_track,
			.pf		= NFPROTO_IPV6,
			.hooknum	= NF_INET_LOCAL_OUT,
			.priority	= NF_IP6_PRI_CONNTRACK + 1,
		},
	},
};

int portscan_track_get(struct net *net, u8 family, u32 mark_mask)
{
	struct portscan_net *pn = net_generic(net, portscan_net_id);
	unsigned int i = family == NFPROTO_IPV6;
	int ret = 0;

	mutex_lock(&portscan_mutex);
	if ((pn->users[0] || pn->users[1]) && pn->mark_mask != mark_mask) {
		pr_info_ratelimited("mark mask 0x%08x differs from 0x%08x of the other portscan rules in this netns\n",
				    mark_mask, pn->mark_mask);
		ret = -EINVAL;
		goto out;
	}
	if (!pn->users[i]) {
		WRITE_ONCE(pn->mark_mask, mark_mask);
		ret = nf_register_net_hooks(net, portscan_ops[i],
					    ARRAY_SIZE(portscan_ops[i]));
		if (ret < 0)
			goto out;
	}
	pn->users[i]++;
out:
	mutex_unlock(&portscan_mutex);
	return ret;
}

void portscan_track_put(struct net *net, u8 family)
{
	struct portscan_net *pn = net_generic(net, portscan_net_id);
	unsigned int i = family == NFPROTO_IPV6;

	mutex_lock(&portscan_mutex);
	if (!--pn->users[i])
		nf_unregister_net_hooks(net, portscan_ops[i],
					ARRAY_SIZE(portscan_ops[i]));
	mutex_unlock(&portscan_mutex);
}

/*
 * No init or exit: a dying netns destroys its rules, and so drops its
 * hooks, through portscan_track_put(); net_generic data outlives all
 * pernet exit methods.
 */
static struct pernet_operations portscan_net_ops = {
	.id	= &portscan_net_id,
	.size	= sizeof(struct portscan_net),
};

int portscan_track_init(void)
{
	return register_pernet_subsys(&portscan_net_ops);
}

void portscan_track_exit(void)
{
	unregister_pernet_subsys(&portscan_net_ops);
}
