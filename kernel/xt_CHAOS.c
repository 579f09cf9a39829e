// SPDX-License-Identifier: GPL-2.0
/*
 * "CHAOS" target: make the host look like a slow, unreliable stack that
 * lies about its ports. Every packet is dropped; at random some repeated
 * probes get a negative answer (RST, ICMP unreachable) within a per-rule
 * rate limit, and with --delude/--tarpit some opening SYNs are answered as
 * if the port were open (revision 1: with --banner, deluded peers that
 * complete the handshake are greeted as a service would greet them).
 * Scanners see different results on every run and slow down to cope with
 * what looks like a lossy, rate-limiting stack.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_CHAOS.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include "nf_chaos_reply.h"
#include "portscan_classify.h"

/*
 * The rate limit is the core's token bucket (nf_chaos_bucket_take()), its
 * times in jiffies shifted left by CHAOS_FRAC bits: enough for exact rates
 * up to 2^32 per minute and still decades of uptime in 64 bits.
 */
#define CHAOS_FRAC		24
#define CHAOS_TOLERANCE_MAX	BIT_ULL(62)

struct chaos_bucket {
	atomic64_t tat;		/* when the bucket is full again */
	u64 interval;		/* between two answers at the steady rate */
	u64 tolerance;		/* burst * interval */
};

/*
 * nmap's ultra_scan (and scanners built like it) reads its timing from the
 * answers: an answer to a retry means a probe was lost, which halves the
 * probes it keeps in flight and lets every port have one retry more than
 * the latest one answered; an answer to a first probe or a timing ping
 * widens the window again, a quick one shortens the timeout. Silence
 * changes neither. So CHAOS answers retries only: each retry further than
 * all answered before from its source (its rung) climbs the scanner to
 * its retry cap, and some others at random once it has climbed two rungs
 * (--reject-prob); and every answer comes late, which keeps the scanner's
 * timeout at its longest. With --delude, of those answers to SYNs ten
 * times --delude-prob are SYN/ACKs (half, by default): a scan that waits
 * out its retries gets a map with false open ports in it.
 * Each answer must be taken for a loss: only a probe sent after the
 * scanner heard our latest answer is answered, one answer at a time. A
 * port once answered is not answered again: its later probes are timing
 * pings, and an answered ping widens the window threefold.
 * A scanner that forces its speed (no retries, hundreds of first probes a
 * second) waits for nothing: its first SYNs go to DELUDE or TARPIT with
 * --delude-prob, at once, so its map is wrong instead.
 * Probes are told apart by source, protocol and destination port; source
 * ports tell scans apart. A retry comes from the probe's own source port
 * or a near one (nmap adds twice the try number to a base port), so a
 * probe from a distant one begins a new scan, which climbs from the start;
 * a probe from the same port within CHAOS_SAME_TRY is the same try (nmap
 * sends some UDP ports several payloads at once).
 * Slots keep the full hash of their key: two ports counted in one slot
 * would count each other's probes as retries. A probe that takes over a
 * slot starts afresh.
 */
#define CHAOS_PORT_SLOTS	512
#define CHAOS_SOURCE_SLOTS	64
#define CHAOS_SEEN_TIME		(60 * HZ)
#define CHAOS_RUNGS		10	/* nmap -T3's retry cap */
#define CHAOS_QUIET_RUNGS	2	/* -T5 stops at its 2nd retry */
#define CHAOS_RETRY_SPORTS	256	/* nmap: base port + 8-bit try code */
#define CHAOS_SAME_TRY		(HZ / 4)
#define CHAOS_HEARD_TIME	(HZ / 4)	/* our answer's way there and back */
#define CHAOS_OTHER_TIME	(2 * HZ)
/*
 * How late: the answers at the first rung (until the scanner shows it
 * heard one) well within its starting timeout's window (nmap: 10 * 100 ms
 * at -T4, 10 * 50 ms at -T5), and soon enough for a small scan still
 * waiting; the others beyond -T4's longest
 * timeout (1.25 s) but not so far beyond the scanner's estimate that it
 * takes them for strays (1.5 s more).
 */
#define CHAOS_FIRST_LATE	(HZ / 10)	/* to HZ / 5 */
#define CHAOS_LATE		(13 * HZ / 10)	/* to 3 * HZ / 2 */
/* Forced speed: first probes at 320 a second or more, no retry. */
#define CHAOS_FAST_PROBES	32
#define CHAOS_FAST_TIME		(HZ / 10)

struct chaos_port {
	u32 key;	/* hash of source, protocol and port */
	u32 stamp;	/* jiffies | 1 of the last probe, 0 if none */
	u32 scan;	/* the source's scan it was counted in */
	u16 sport;	/* source port of the last probe */
	u16 count;	/* probes so far */
	bool answered;	/* in this scan */
};

struct chaos_source {
	u32 key;	/* hash of source and protocol */
	u32 stamp;	/* jiffies | 1 of the last probe, 0 if none */
	u32 scan;	/* jiffies | 1 when its current scan began */
	u32 left;	/* jiffies our latest answer leaves or left */
	u32 window;	/* jiffies its count of first probes began */
	u16 rung;	/* latest retry of the scan that was answered */
	u16 firsts;	/* first probes in the window */
	bool retried;	/* the scan sent a retry */
	bool fast;	/* the scan forces its speed */
};

struct chaos_state {
	struct chaos_bucket bucket;
	struct chaos_port port[CHAOS_PORT_SLOTS];
	struct chaos_source source[CHAOS_SOURCE_SLOTS];
};

/* What to do with a probe. */
enum chaos_action {
	CHAOS_SILENT,
	CHAOS_LATE_ANSWER,	/* with its kind's answer, late */
	CHAOS_FIRST_ANSWER,	/* a forced-speed scan's SYN: delude it now */
};

/* True with probability @ppm parts per million. */
static bool chaos_chance(u32 ppm)
{
	return ((u64)get_random_u32() * XT_CHAOS_PROB_ONE >> 32) < ppm;
}

static bool chaos_live(u32 stamp, u32 now)
{
	return stamp && now - stamp < CHAOS_SEEN_TIME;
}

/* Start a new scan for @source at @now: no rung climbed, nothing sent. */
static void chaos_new_scan(struct chaos_source *source, u32 now)
{
	WRITE_ONCE(source->scan, now);
	WRITE_ONCE(source->rung, 0);
	WRITE_ONCE(source->left, now - CHAOS_OTHER_TIME);
	WRITE_ONCE(source->retried, false);
	WRITE_ONCE(source->fast, false);
}

/*
 * Count a probe from @sport to @proto/@port and return how many tries of
 * the same scan came before it, and its slot in *@slot. Racing updates of
 * a slot miscount a retry at worst.
 */
static u32 chaos_count(struct chaos_state *st, struct chaos_source *source,
		       u32 src, u8 proto, __be16 port, u16 sport, u32 now,
		       struct chaos_port **slot)
{
	struct chaos_port *seen;
	u32 key, scan, tries = 0;
	bool answered = false;
	u16 last;

	key = jhash_2words(src, proto << 16 | (__force u16)port, 0);
	seen = &st->port[key % CHAOS_PORT_SLOTS];
	scan = READ_ONCE(source->scan);
	*slot = seen;

	if (READ_ONCE(seen->key) == key &&
	    chaos_live(READ_ONCE(seen->stamp), now) &&
	    READ_ONCE(seen->scan) == scan) {
		tries = READ_ONCE(seen->count);
		answered = READ_ONCE(seen->answered);
		last = READ_ONCE(seen->sport);
		if (abs((s16)(sport - last)) >= CHAOS_RETRY_SPORTS) {
			chaos_new_scan(source, now);
			scan = now;
			tries = 0;
			answered = false;
		} else if (sport == last &&
			   now - READ_ONCE(seen->stamp) < CHAOS_SAME_TRY) {
			WRITE_ONCE(seen->stamp, now);
			return tries - 1;
		}
	}
	WRITE_ONCE(seen->key, key);
	WRITE_ONCE(seen->stamp, now);
	WRITE_ONCE(seen->scan, scan);
	WRITE_ONCE(seen->sport, sport);
	WRITE_ONCE(seen->count, min_t(u32, tries + 1, U16_MAX));
	WRITE_ONCE(seen->answered, answered);
	return tries;
}

/* Whether @source's scan forces its speed, by this first probe or retry. */
static bool chaos_fast(struct chaos_source *source, u32 tries, u32 now)
{
	u16 firsts;

	if (tries) {
		WRITE_ONCE(source->retried, true);
		WRITE_ONCE(source->fast, false);
		return false;
	}
	if (now - READ_ONCE(source->window) >= CHAOS_FAST_TIME) {
		WRITE_ONCE(source->window, now);
		WRITE_ONCE(source->firsts, 0);
	}
	firsts = READ_ONCE(source->firsts) + 1;
	WRITE_ONCE(source->firsts, firsts);
	if (firsts >= CHAOS_FAST_PROBES && !READ_ONCE(source->retried))
		WRITE_ONCE(source->fast, true);
	return READ_ONCE(source->fast);
}

/*
 * What to do with a probe from @sport to @port; with CHAOS_LATE_ANSWER,
 * how late in *@delay.
 */
static enum chaos_action chaos_plan(const struct sk_buff *skb,
				    const struct xt_action_param *par,
				    u8 proto, __be16 sport, __be16 port,
				    unsigned long *delay)
{
	const struct xt_chaos_tginfo *info = par->targinfo;
	struct chaos_state *st = info->priv;
	u32 now = (u32)jiffies | 1, src, tries, rung, left;
	struct chaos_source *source;
	struct chaos_port *seen;
	u64 ticks, spare;
	bool climb;
	u32 key;

	/* By the netns's key: a change of it starts every source afresh. */
	src = nf_chaos_source_hash(xt_net(par), skb, xt_family(par));
	key = jhash_2words(src, proto, 0);
	source = &st->source[key % CHAOS_SOURCE_SLOTS];
	if (READ_ONCE(source->key) != key ||
	    !chaos_live(READ_ONCE(source->stamp), now)) {
		WRITE_ONCE(source->key, key);
		chaos_new_scan(source, now);
	}
	WRITE_ONCE(source->stamp, now);
	tries = chaos_count(st, source, src, proto, port, ntohs(sport), now,
			    &seen);
	if (chaos_fast(source, tries, now))
		return CHAOS_FIRST_ANSWER;
	if (!tries || READ_ONCE(seen->answered))
		return CHAOS_SILENT;

	/* Sent before the scanner heard our latest answer, or it is due. */
	left = READ_ONCE(source->left);
	if ((s32)(now - left) < CHAOS_HEARD_TIME)
		return CHAOS_SILENT;

	/*
	 * A retry that goes further climbs; below the quiet rungs the same
	 * one again may mean our answer was lost (to a busy link or the
	 * kernel's ICMP rate limit), and is answered too. The other answers
	 * wait until the scanner has climbed to where it slows down, and
	 * leave a token in the bucket for the next climb.
	 */
	rung = READ_ONCE(source->rung);
	climb = (tries > rung && rung < CHAOS_RUNGS) ||
		(tries == rung && rung < CHAOS_QUIET_RUNGS);
	if (!climb && (rung < CHAOS_QUIET_RUNGS ||
		       now - left < CHAOS_OTHER_TIME ||
		       !chaos_chance(info->reject_prob)))
		return CHAOS_SILENT;
	ticks = get_jiffies_64();
	spare = climb ? 0 : st->bucket.interval;
	if (!nf_chaos_bucket_take(&st->bucket.tat, ticks << CHAOS_FRAC,
				  st->bucket.interval,
				  st->bucket.tolerance - spare)) {
		nf_chaos_count_drop(xt_net(par), NF_CHAOS_DROP_RATELIMIT);
		return CHAOS_SILENT;
	}

	/* Until the scanner shows it heard one, as soon as the first. */
	*delay = max(tries, rung) > 1 ?
		 CHAOS_LATE + get_random_u32_below(HZ / 5) :
		 CHAOS_FIRST_LATE + get_random_u32_below(HZ / 10);
	WRITE_ONCE(source->left, now + *delay);
	if (tries > rung)
		WRITE_ONCE(source->rung, min_t(u32, tries, CHAOS_RUNGS));
	WRITE_ONCE(seen->answered, true);
	return CHAOS_LATE_ANSWER;
}

/* Transport protocol, or -1 for a non-first fragment or a bad header chain. */
static int chaos_transport(struct sk_buff *skb,
			   const struct xt_action_param *par,
			   unsigned int *thoff)
{
	unsigned short frag_off = 0;
	int proto;

	if (xt_family(par) == NFPROTO_IPV4) {
		if (par->fragoff != 0)
			return -1;
		*thoff = par->thoff;
		return ip_hdr(skb)->protocol;
	}
	/* ip6_tables finds the transport header only for rules with -p. */
	*thoff = 0;
	proto = ipv6_find_hdr(skb, thoff, -1, &frag_off, NULL);
	if (proto < 0 || frag_off != 0)
		return -1;
	return proto;
}

/* The positive answer of the rule's variant: the port looks open. */
static enum nf_chaos_answer chaos_open(const struct xt_chaos_tginfo *info)
{
	return info->variant == XT_CHAOS_TARPIT ? NF_CHAOS_TARPIT :
	       NF_CHAOS_DELUDE;
}

static void chaos_tcp(struct sk_buff *skb, const struct xt_action_param *par,
		      unsigned int thoff)
{
	const struct xt_chaos_tginfo *info = par->targinfo;
	struct net *net = xt_net(par);
	enum chaos_action action;
	const struct tcphdr *th;
	unsigned long delay;
	struct tcphdr _th;
	bool deluded;

	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	/*
	 * No RST for RST, and no tokens spent on it. A bad checksum never
	 * reaches a stack's sockets: no answer, nor a count as a probe.
	 */
	if (!th || th->rst ||
	    !nf_chaos_csum_ok(skb, xt_family(par), thoff, skb->len - thoff,
			      IPPROTO_TCP))
		return;

	/*
	 * The peers we tarpitted have no state here: hand all their later
	 * segments to the core, which answers only the probes whose ACK
	 * carries its cookie, so stray and spoofed ACKs stay unanswered.
	 */
	if (info->variant == XT_CHAOS_TARPIT && th->ack && !th->syn) {
		nf_chaos_tcp_answer(net, skb, xt_hooknum(par), xt_family(par),
				    NF_CHAOS_TARPIT, NF_CHAOS_BY_CHAOS);
		return;
	}

	/*
	 * Nor did we keep the peers we deluded: the core greets those whose
	 * ACK carries its cookie, and keeps quiet to what they send after;
	 * the other segments go on below.
	 */
	if ((info->flags & XT_CHAOS_BANNER) && th->ack && !th->syn &&
	    nf_chaos_tcp_answer(net, skb, xt_hooknum(par), xt_family(par),
				NF_CHAOS_BANNER, NF_CHAOS_BY_CHAOS))
		return;

	action = chaos_plan(skb, par, IPPROTO_TCP, th->source, th->dest,
			    &delay);
	if (action == CHAOS_SILENT)
		return;
	/* DELUDE and TARPIT answer opening SYNs only. */
	deluded = info->variant != XT_CHAOS_NORMAL && th->syn && !th->ack &&
		  (portscan_classify(skb, thoff, par->state, 0) &
		   PORTSCAN_OPENING_SYN);
	if (action == CHAOS_FIRST_ANSWER) {
		if (deluded && chaos_chance(info->delude_prob))
			nf_chaos_tcp_answer(net, skb, xt_hooknum(par),
					    xt_family(par), chaos_open(info),
					    NF_CHAOS_BY_CHAOS);
		return;
	}
	nf_chaos_answer_late(net, skb, xt_hooknum(par), xt_family(par),
			     deluded && chaos_chance(min_t(u32, 10 *
						info->delude_prob,
						XT_CHAOS_PROB_ONE)) ?
			     chaos_open(info) : NF_CHAOS_RESET,
			     NF_CHAOS_BY_CHAOS, delay);
}

/*
 * nf_send_unreach{,6}() trust CHECKSUM_COMPLETE outside PRE_ROUTING and
 * LOCAL_IN, and a bad datagram must not count as a probe either. UDP-Lite
 * covers part of a datagram only; it is left unchecked, as there.
 */
static bool chaos_udp_ok(struct sk_buff *skb, const struct xt_action_param *par,
			 unsigned int thoff, u8 proto, const struct udphdr *uh)
{
	unsigned int len = ntohs(uh->len);

	if (proto == IPPROTO_UDPLITE)
		return true;
	if (len < sizeof(*uh) || len > skb->len - thoff)
		return false;
	/* IPv4 allows no checksum at all. */
	if (!uh->check && xt_family(par) == NFPROTO_IPV4)
		return true;
	return nf_chaos_csum_ok(skb, xt_family(par), thoff, len, IPPROTO_UDP);
}

static void chaos_udp(struct sk_buff *skb, const struct xt_action_param *par,
		      unsigned int thoff, u8 proto)
{
	const struct udphdr *uh;
	unsigned long delay;
	struct udphdr _uh;

	uh = skb_header_pointer(skb, thoff, sizeof(_uh), &_uh);
	if (uh && chaos_udp_ok(skb, par, thoff, proto, uh) &&
	    chaos_plan(skb, par, proto, uh->source, uh->dest, &delay) ==
	    CHAOS_LATE_ANSWER)
		nf_chaos_answer_late(xt_net(par), skb, xt_hooknum(par),
				     xt_family(par), NF_CHAOS_PORT_UNREACH,
				     NF_CHAOS_BY_CHAOS, delay);
}

static unsigned int chaos_tg(struct sk_buff *skb,
			     const struct xt_action_param *par)
{
	unsigned long delay;
	unsigned int thoff;
	int proto;

	/*
	 * Nobody to answer for broadcast, multicast, martian or our own
	 * sources (icmp_send() checks only the input route): keep the tokens.
	 */
	if (!nf_chaos_may_answer(xt_net(par), skb, xt_family(par)))
		return NF_DROP;

	proto = chaos_transport(skb, par, &thoff);
	switch (proto) {
	case IPPROTO_TCP:
		chaos_tcp(skb, par, thoff);
		break;
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		chaos_udp(skb, par, thoff, proto);
		break;
	/* Stacks send no ICMP errors about ICMP; nothing follows NONE. */
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
	case NEXTHDR_NONE:
	case -1:
		break;
	default:
		if (chaos_plan(skb, par, proto, 0, 0, &delay) ==
		    CHAOS_LATE_ANSWER)
			nf_chaos_answer_late(xt_net(par), skb, xt_hooknum(par),
					     xt_family(par),
					     NF_CHAOS_PROTO_UNREACH,
					     NF_CHAOS_BY_CHAOS, delay);
		break;
	}
	return NF_DROP;
}

/* Whether the rule's options hold; its rate's interval in *@interval. */
static int chaos_tg_check_info(const struct xt_tgchk_param *par,
			       u64 *interval)
{
	const struct xt_chaos_tginfo *info = par->targinfo;

	if (info->variant >= __XT_CHAOS_MAX) {
		pr_info_ratelimited("unknown variant %u\n", info->variant);
		return -EINVAL;
	}
	/* Revision 0 has no flags: that byte was padding. */
	if (info->flags & ~(par->target->revision ? XT_CHAOS_MASK : 0)) {
		pr_info_ratelimited("unknown flags %#x\n", info->flags);
		return -EINVAL;
	}
	if ((info->flags & XT_CHAOS_BANNER) &&
	    info->variant != XT_CHAOS_DELUDE) {
		pr_info_ratelimited("--banner needs --delude\n");
		return -EINVAL;
	}
	if (info->reject_prob > XT_CHAOS_PROB_ONE ||
	    info->delude_prob > XT_CHAOS_PROB_ONE) {
		pr_info_ratelimited("probabilities must not exceed 1\n");
		return -EINVAL;
	}
	if (info->rate == 0 || info->burst == 0) {
		pr_info_ratelimited("rate and burst must be at least 1\n");
		return -EINVAL;
	}
	*interval = div_u64((u64)60 * HZ << CHAOS_FRAC, info->rate);
	if (info->burst > CHAOS_TOLERANCE_MAX / *interval) {
		pr_info_ratelimited("burst %u too large for a rate of %u/min\n",
				    info->burst, info->rate);
		return -EINVAL;
	}
	return 0;
}

static int chaos_tg_check(const struct xt_tgchk_param *par)
{
	struct xt_chaos_tginfo *info = par->targinfo;
	struct chaos_state *st;
	u64 interval;
	int ret;

	ret = chaos_tg_check_info(par, &interval);
	if (ret)
		return ret;
	/* Some 10 KiB: no need for physically contiguous pages. */
	st = kvzalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	if (!st)
		return -ENOMEM;
	st->bucket.interval = interval;
	st->bucket.tolerance = interval * info->burst;

	ret = nf_chaos_net_get(par->net);
	if (ret)
		goto err_st;
	/* The classifier tells opening SYNs by their conntrack state. */
	if (info->variant != XT_CHAOS_NORMAL) {
		ret = nf_ct_netns_get(par->net, par->family);
		if (ret < 0) {
			pr_info_ratelimited("cannot load conntrack support for proto=%u\n",
					    par->family);
			goto err_net;
		}
	}
	info->priv = st;
	return 0;

err_net:
	nf_chaos_net_put(par->net);
err_st:
	kvfree(st);
	return ret;
}

static void chaos_tg_destroy(const struct xt_tgdtor_param *par)
{
	const struct xt_chaos_tginfo *info = par->targinfo;

	if (info->variant != XT_CHAOS_NORMAL)
		nf_ct_netns_put(par->net, par->family);
	nf_chaos_net_put(par->net);
	kvfree(info->priv);
}

static struct xt_target chaos_tg_reg[] __read_mostly = {
	{
		.name		= "CHAOS",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.target		= chaos_tg,
		.checkentry	= chaos_tg_check,
		.destroy	= chaos_tg_destroy,
		.targetsize	= sizeof(struct xt_chaos_tginfo),
		.usersize	= offsetof(struct xt_chaos_tginfo, priv),
		.me		= THIS_MODULE,
	},
	{
		.name		= "CHAOS",
		.revision	= 0,
		.family		= NFPROTO_IPV6,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.target		= chaos_tg,
		.checkentry	= chaos_tg_check,
		.destroy	= chaos_tg_destroy,
		.targetsize	= sizeof(struct xt_chaos_tginfo),
		.usersize	= offsetof(struct xt_chaos_tginfo, priv),
		.me		= THIS_MODULE,
	},
	{
		.name		= "CHAOS",
		.revision	= 1,
		.family		= NFPROTO_IPV4,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.target		= chaos_tg,
		.checkentry	= chaos_tg_check,
		.destroy	= chaos_tg_destroy,
		.targetsize	= sizeof(struct xt_chaos_tginfo),
		.usersize	= offsetof(struct xt_chaos_tginfo, priv),
		.me		= THIS_MODULE,
	},
	{
		.name		= "CHAOS",
		.revision	= 1,
		.family		= NFPROTO_IPV6,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.target		= chaos_tg,
		.checkentry	= chaos_tg_check,
		.destroy	= chaos_tg_destroy,
		.targetsize	= sizeof(struct xt_chaos_tginfo),
		.usersize	= offsetof(struct xt_chaos_tginfo, priv),
		.me		= THIS_MODULE,
	},
};

static int __init chaos_tg_init(void)
{
	return xt_register_targets(chaos_tg_reg, ARRAY_SIZE(chaos_tg_reg));
}

static void __exit chaos_tg_exit(void)
{
	xt_unregister_targets(chaos_tg_reg, ARRAY_SIZE(chaos_tg_reg));
}

module_init(chaos_tg_init);
module_exit(chaos_tg_exit);
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: slow, random and lying answers to port scans");
MODULE_LICENSE("GPL");
MODULE_ALIAS("ipt_CHAOS");
MODULE_ALIAS("ip6t_CHAOS");
