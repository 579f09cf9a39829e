// SPDX-License-Identifier: GPL-2.0
/*
 * Reply-forging core of DELUDE, TARPIT and CHAOS: answer one TCP segment
 * on the host's behalf, statelessly, over IPv4 or IPv6. Here the segment
 * is checked and taken apart, nf_chaos_plan() answers it and
 * nf_chaos_send4() or _send6() sends the answer; and here are the state
 * and the sysctls of each network namespace, and the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/tcp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/netns/generic.h>
#include <net/tcp.h>
#include "nf_chaos_internal.h"

unsigned int nf_chaos_net_id __read_mostly;
static DEFINE_MUTEX(nf_chaos_net_mutex);

/*
 * A host's address: not zero (0/8), loopback, multicast nor class E
 * (240/4, which holds the limited broadcast).
 */
static bool nf_chaos_host4(__be32 addr)
{
	return !ipv4_is_zeronet(addr) && !ipv4_is_loopback(addr) &&
	       !ipv4_is_multicast(addr) &&
	       (addr & htonl(0xf0000000)) != htonl(0xf0000000);
}

static bool nf_chaos_may_answer4(struct net *net, const struct sk_buff *skb)
{
	const struct iphdr *iph = ip_hdr(skb);
	const struct rtable *rt = skb_rtable(skb);
	unsigned int type;

	if (!nf_chaos_host4(iph->saddr) || !nf_chaos_host4(iph->daddr))
		return false;
	/* The input route knows a broadcast; br_netfilter's fake one not. */
	if (rt && !(rt->dst.flags & DST_FAKE_RTABLE)) {
		if (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST))
			return false;
	} else {
		type = inet_addr_type_dev_table(net, skb->dev, iph->daddr);
		if (type != RTN_LOCAL && type != RTN_UNICAST)
			return false;
	}
	/*
	 * Nothing from us, nor from a broadcast address of our subnets: no
	 * flag of the input route speaks of the source, and with rp_filter
	 * 0 routing lets a subnet's broadcast through. One lookup of the
	 * local table, routed or bridged.
	 */
	return inet_addr_type_dev_table(net, skb->dev, iph->saddr) ==
	       RTN_UNICAST;
}

/*
 * A host's address: unicast (which ::, multicast and IPv4-mapped ones are
 * not), and not ::1.
 */
static bool nf_chaos_host6(const struct in6_addr *addr)
{
	int type = ipv6_addr_type(addr);

	return (type & IPV6_ADDR_UNICAST) && !(type & IPV6_ADDR_LOOPBACK);
}

static bool nf_chaos_may_answer6(struct net *net, const struct sk_buff *skb)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);

	return nf_chaos_host6(&ip6h->saddr) && nf_chaos_host6(&ip6h->daddr) &&
	       !ipv6_chk_addr(net, &ip6h->saddr, NULL, 0);
}

/*
 * Whether a host may answer @skb at all: one host sent it, not us, to one
 * host (RFC 1122 3.2.2 and 4.2.3.10, RFC 4443 2.4 (e)). Checked by
 * address, as the local table knows nothing on an address-less bridge or
 * with lo down; the table adds our own addresses and our subnets'
 * broadcasts.
 */
bool nf_chaos_may_answer(struct net *net, const struct sk_buff *skb,
			 u8 family)
{
	/*
	 * A link-layer broadcast or multicast frame may carry a unicast IP
	 * address of ours; TCP drops such segments, so do we.
	 */
	if (skb->pkt_type != PACKET_HOST)
		return false;
	if (family == NFPROTO_IPV4)
		return nf_chaos_may_answer4(net, skb);
	return nf_chaos_may_answer6(net, skb);
}
EXPORT_SYMBOL_GPL(nf_chaos_may_answer);

static const struct tcphdr *
nf_chaos_tcphdr_get4(struct sk_buff *oldskb, struct tcphdr *buf,
		     unsigned int hook, unsigned int *tcplen)
{
	const struct iphdr *iph = ip_hdr(oldskb);
	const struct tcphdr *oth;

	/* Not a later fragment. */
	if (iph->frag_off & htons(IP_OFFSET) || iph->protocol != IPPROTO_TCP)
		return NULL;
	oth = skb_header_pointer(oldskb, ip_hdrlen(oldskb), sizeof(*oth), buf);
	/* No RST for RST. */
	if (!oth || oth->rst ||
	    nf_ip_checksum(oldskb, hook, ip_hdrlen(oldskb), IPPROTO_TCP))
		return NULL;

	*tcplen = oldskb->len - ip_hdrlen(oldskb);
	return oth;
}

static const struct tcphdr *
nf_chaos_tcphdr_get6(struct sk_buff *oldskb, struct tcphdr *buf,
		     unsigned int hook, unsigned int *tcplen)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(oldskb);
	const struct tcphdr *oth;
	u8 proto = ip6h->nexthdr;
	__be16 frag_off;
	int thoff;

	/* A later fragment ends the walk on its fragment header. */
	thoff = ipv6_skip_exthdr(oldskb, skb_network_offset(oldskb) +
				 sizeof(*ip6h), &proto, &frag_off);
	if (thoff < 0 || proto != IPPROTO_TCP)
		return NULL;
	*tcplen = oldskb->len - thoff;
	oth = skb_header_pointer(oldskb, thoff, sizeof(*oth), buf);
	/* No RST for RST. */
	if (!oth || oth->rst ||
	    nf_ip6_checksum(oldskb, hook, thoff, IPPROTO_TCP))
		return NULL;
	return oth;
}

static void nf_chaos_parse_opts(const struct sk_buff *oldskb,
				const struct tcphdr *oth, unsigned int thoff,
				struct nf_chaos_peer_opts *po)
{
	unsigned int len = __tcp_hdrlen(oth) - sizeof(*oth), i = 0;
	u8 buf[MAX_TCP_OPTION_SPACE];
	const u8 *p;

	memset(po, 0, sizeof(*po));
	p = skb_header_pointer(oldskb, thoff + sizeof(*oth), len, buf);
	if (!len || !p)
		return;
	while (i < len && p[i] != TCPOPT_EOL) {
		if (p[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		/* A malformed length ends the list, as in tcp_parse_options(). */
		if (i + 1 >= len || p[i + 1] < 2 || i + p[i + 1] > len)
			return;
		switch (p[i] << 8 | p[i + 1]) {
		case TCPOPT_SACK_PERM << 8 | TCPOLEN_SACK_PERM:
			po->sack_ok = oth->syn;
			break;
		case TCPOPT_WINDOW << 8 | TCPOLEN_WINDOW:
			po->wscale_ok = oth->syn;
			break;
		case TCPOPT_TIMESTAMP << 8 | TCPOLEN_TIMESTAMP:
			po->saw_tstamp = true;
			po->tsval = get_unaligned_be32(p + i + 2);
			break;
		}
		i += p[i + 1];
	}
}

/*
 * nf_ip{,6}_checksum() trust CHECKSUM_COMPLETE outside PRE_ROUTING
 * and LOCAL_IN, and conntrack's check in PRE_ROUTING leaves a bad packet
 * CHECKSUM_COMPLETE: check it here, or FORWARD would answer nmap --badsum.
 */
bool nf_chaos_csum_ok(struct sk_buff *skb, u8 family, unsigned int thoff,
		      unsigned int len, u8 proto)
{
	__wsum csum;

	if (skb_csum_unnecessary(skb))
		return true;
	csum = skb_checksum(skb, thoff, len, 0);
	if (family == NFPROTO_IPV4)
		return !csum_tcpudp_magic(ip_hdr(skb)->saddr,
					  ip_hdr(skb)->daddr, len, proto, csum);
	return !csum_ipv6_magic(&ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr,
				len, proto, csum);
}
EXPORT_SYMBOL_GPL(nf_chaos_csum_ok);

/* The kind of answer @seg is, to @answer. */
static enum nf_chaos_kind nf_chaos_kind(const struct nf_chaos_seg *seg,
					enum nf_chaos_answer answer)
{
	if (seg->th.syn)
		return answer == NF_CHAOS_TARPIT || answer == NF_CHAOS_STALL ?
		       NF_CHAOS_SENT_HOLD : NF_CHAOS_SENT_SYNACK;
	if (seg->th.rst)
		return NF_CHAOS_SENT_RST;
	return seg->len ? NF_CHAOS_SENT_GREETING : NF_CHAOS_SENT_ACK;
}

bool nf_chaos_tcp_answer(struct net *net, struct sk_buff *oldskb,
			 unsigned int hook, u8 family,
			 enum nf_chaos_answer answer, enum nf_chaos_target by)
{
	const struct nf_chaos_keys *keys = nf_chaos_keys(net);
	enum nf_chaos_verdict verdict;
	struct nf_chaos_peer_opts po;
	const struct tcphdr *oth;
	struct nf_chaos_seg seg;
	struct tcphdr buf;
	unsigned int tcplen;
	bool sent;

	/* A netns without rules of ours or keys (dying) has no answer. */
	if (!keys || !rcu_access_pointer(nf_chaos_pernet(net)->live) ||
	    !nf_chaos_may_answer(net, oldskb, family))
		return false;

	if (family == NFPROTO_IPV4)
		oth = nf_chaos_tcphdr_get4(oldskb, &buf, hook, &tcplen);
	else
		oth = nf_chaos_tcphdr_get6(oldskb, &buf, hook, &tcplen);

	/* Malformed: data offset too small or beyond the segment. */
	if (!oth || oth->doff < sizeof(*oth) / 4 || __tcp_hdrlen(oth) > tcplen ||
	    !nf_chaos_csum_ok(oldskb, family, oldskb->len - tcplen, tcplen,
			      IPPROTO_TCP))
		return false;

	nf_chaos_parse_opts(oldskb, oth, oldskb->len - tcplen, &po);
	verdict = nf_chaos_plan(net, keys, &seg, oldskb, family, oth,
				tcplen - __tcp_hdrlen(oth), &po, answer);
	if (verdict != NF_CHAOS_SEND)
		return verdict == NF_CHAOS_OURS;

	if (family == NFPROTO_IPV4)
		sent = nf_chaos_send4(net, oldskb, &seg, hook);
	else
		sent = nf_chaos_send6(net, oldskb, &seg, hook);
	if (sent)
		nf_chaos_count_sent(net, by, nf_chaos_kind(&seg, answer));
	return true;
}
EXPORT_SYMBOL_GPL(nf_chaos_tcp_answer);

/*
 * The first rule of ours in a netns makes its answers' state, and its
 * keys unless an admin wrote one; the last one frees the state, once no
 * packet can be using it.
 */
int nf_chaos_net_get(struct net *net)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(net);
	struct nf_chaos_live *live;
	int ret = 0;

	mutex_lock(&nf_chaos_net_mutex);
	if (cn->users)
		goto out;
	ret = nf_chaos_keys_init(cn);
	if (ret)
		goto unlock;
	ret = -ENOMEM;
	live = kvzalloc(sizeof(*live), GFP_KERNEL_ACCOUNT);
	if (!live)
		goto unlock;
	live->stats = alloc_percpu_gfp(struct nf_chaos_stats,
				       GFP_KERNEL_ACCOUNT);
	if (!live->stats) {
		kvfree(live);
		goto unlock;
	}
	ret = 0;
	nf_chaos_late_init(&live->late, net);
	nf_chaos_held_init(live->held);
	rcu_assign_pointer(cn->live, live);
out:
	cn->users++;
unlock:
	mutex_unlock(&nf_chaos_net_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(nf_chaos_net_get);

static void nf_chaos_live_free(struct rcu_head *head)
{
	struct nf_chaos_live *live = container_of(head, struct nf_chaos_live,
						  rcu);

	free_percpu(live->stats);
	kvfree(live);
}

void nf_chaos_net_put(struct net *net)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(net);
	struct nf_chaos_live *live = NULL;

	mutex_lock(&nf_chaos_net_mutex);
	if (!--cn->users)
		live = rcu_replace_pointer(cn->live, NULL,
					   lockdep_is_held(&nf_chaos_net_mutex));
	mutex_unlock(&nf_chaos_net_mutex);
	if (live) {
		nf_chaos_late_exit(&live->late);
		call_rcu(&live->rcu, nf_chaos_live_free);
	}
}
EXPORT_SYMBOL_GPL(nf_chaos_net_put);

static const unsigned int nf_chaos_epoch_max = NF_CHAOS_EPOCH_MAX;
static const unsigned int nf_chaos_held_rate_max = NF_CHAOS_HELD_RATE_MAX;

static const struct ctl_table nf_chaos_sysctl_table[] = {
	/* The key, and its fingerprint, which only root needs. */
	{
		.procname	= "nf_chaos_key",
		.mode		= 0200,
		.proc_handler	= nf_chaos_key_sysctl,
	},
	{
		.procname	= "nf_chaos_key_id",
		.mode		= 0400,
		.proc_handler	= nf_chaos_key_id_sysctl,
	},
	{
		.procname	= "nf_chaos_epoch",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= (void *)&nf_chaos_epoch_max,
	},
	{
		.procname	= "nf_chaos_held_rate",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= (void *)&nf_chaos_held_rate_max,
	},
	{
		.procname	= "nf_chaos_services",
		.mode		= 0644,
		.proc_handler	= nf_chaos_services_sysctl,
	},
	{ }
};

static int __net_init nf_chaos_net_init(struct net *net)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(net);
	struct ctl_table *table;
	int ret;

	cn->epoch = NF_CHAOS_EPOCH;
	cn->held_rate = NF_CHAOS_HELD_RATE;
	ret = nf_chaos_stats_init(net);
	if (ret)
		return ret;

	ret = -ENOMEM;
	table = kmemdup(nf_chaos_sysctl_table, sizeof(nf_chaos_sysctl_table),
			GFP_KERNEL_ACCOUNT);
	if (!table)
		goto err_stats;
	table[0].data = cn;
	table[1].data = cn;
	table[2].data = &cn->epoch;
	table[3].data = &cn->held_rate;
	table[4].data = cn;
	cn->sysctl = register_net_sysctl_sz(net, "net/netfilter", table,
					    ARRAY_SIZE(nf_chaos_sysctl_table) - 1);
	if (!cn->sysctl)
		goto err_table;
	return 0;

err_table:
	kfree(table);
err_stats:
	nf_chaos_stats_exit(net);
	return ret;
}

/*
 * The rules of a dying netns may go after this, their table's exit
 * following ours: then the last of them frees @live, and net_generic
 * data outlives every exit method.
 */
static void __net_exit nf_chaos_net_exit(struct net *net)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(net);
	const struct ctl_table *table = cn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(cn->sysctl);
	kfree(table);
	nf_chaos_services_exit(cn);
	nf_chaos_stats_exit(net);
	nf_chaos_keys_exit(cn);
}

static struct pernet_operations nf_chaos_net_ops = {
	.init	= nf_chaos_net_init,
	.exit	= nf_chaos_net_exit,
	.id	= &nf_chaos_net_id,
	.size	= sizeof(struct nf_chaos_net),
};

static int __init nf_chaos_reply_init(void)
{
	return register_pernet_subsys(&nf_chaos_net_ops);
}

static void __exit nf_chaos_reply_exit(void)
{
	unregister_pernet_subsys(&nf_chaos_net_ops);
	/*
	 * Keys replaced by nf_chaos_key or of a netns gone wait for
	 * nf_chaos_keys_free(), the state of a netns whose last rule went for
	 * nf_chaos_live_free().
	 */
	rcu_barrier();
}

module_init(nf_chaos_reply_init);
module_exit(nf_chaos_reply_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: forge TCP answers for DELUDE, TARPIT and CHAOS");
