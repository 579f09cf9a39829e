/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NF_CHAOS_REPLY_H
#define _NF_CHAOS_REPLY_H

#include <linux/atomic.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

/* How to answer a probe on the host's behalf. */
enum nf_chaos_answer {
	NF_CHAOS_DELUDE,	/* SYN -> SYN/ACK, anything else -> RST */
	NF_CHAOS_DELUDE_BANNER,	/* DELUDE, but greet the completed handshake */
	NF_CHAOS_BANNER,	/* only the greeting, to the handshake's ACK */
	NF_CHAOS_TARPIT,	/* handshake, then zero window; no state */
	NF_CHAOS_STALL,		/* open window until data, then zero */
	NF_CHAOS_HONEYPOT,	/* handshake, open window, ACK payload */
	NF_CHAOS_RESET,		/* RST, as a closed port */
	/* Any protocol; nf_chaos_answer_late() only. */
	NF_CHAOS_PORT_UNREACH,	/* ICMP port unreachable */
	NF_CHAOS_PROTO_UNREACH,	/* ICMP protocol unreachable (v6: prohibited) */
};

/* The target that answers, for the counters. */
enum nf_chaos_target {
	NF_CHAOS_BY_DELUDE,
	NF_CHAOS_BY_TARPIT,
	NF_CHAOS_BY_CHAOS,
	NF_CHAOS_TARGETS,
};

/* The kinds of answer counted. */
enum nf_chaos_kind {
	NF_CHAOS_SENT_SYNACK,
	NF_CHAOS_SENT_HOLD,	/* the SYN/ACK of a held connection */
	NF_CHAOS_SENT_ACK,	/* to a held, honeypot or greeted flow's segment */
	NF_CHAOS_SENT_RST,
	NF_CHAOS_SENT_GREETING,
	NF_CHAOS_SENT_ICMP,
	NF_CHAOS_KINDS,
};

/* Why a segment went unanswered, for the counters. */
enum nf_chaos_drop {
	NF_CHAOS_DROP_COOKIE,	/* an ACK without a cookie we accept */
	NF_CHAOS_DROP_BUDGET,	/* over its source's held answers' budget */
	NF_CHAOS_DROP_RATELIMIT,	/* over a CHAOS rule's rate */
	NF_CHAOS_DROP_LATE,	/* no room in the queue of late answers */
	NF_CHAOS_DROPS,
};

void nf_chaos_count_sent(struct net *net, enum nf_chaos_target by,
			 enum nf_chaos_kind kind);
void nf_chaos_count_drop(struct net *net, enum nf_chaos_drop why);

/*
 * Forge the answer to @oldskb (IPv4 or IPv6 by @family) and send it.
 * @oldskb must be routed: @hook is NF_INET_LOCAL_IN or NF_INET_FORWARD.
 * Nothing is sent for RSTs, later fragments (a first fragment is
 * answered as a whole segment when nothing reassembled it), what
 * nf_chaos_may_answer() refuses, bad checksums or malformed headers.
 * Returns true if @oldskb was answered or belongs to a flow answered
 * before (a held peer over its budget, a greeted peer): the caller must
 * not answer it otherwise. The reply is RELATED to @oldskb's conntrack
 * entry, if it has one, else untracked; a bridged @oldskb is answered out
 * of its bridge port. The caller drops @oldskb. What is sent is counted
 * as @by's.
 */
bool nf_chaos_tcp_answer(struct net *net, struct sk_buff *oldskb,
			 unsigned int hook, u8 family,
			 enum nf_chaos_answer answer, enum nf_chaos_target by);

/*
 * Answer @oldskb as nf_chaos_tcp_answer() would, or with an ICMP error, in
 * @delay jiffies (not 0): a copy of it waits in its netns's queue of late
 * answers (nf_chaos_late.c). A bridged @oldskb, or one without a route, is
 * answered now.
 * Returns false, and counts it, if the queue had no room. Under RCU.
 */
bool nf_chaos_answer_late(struct net *net, struct sk_buff *oldskb,
			  unsigned int hook, u8 family,
			  enum nf_chaos_answer answer, enum nf_chaos_target by,
			  unsigned long delay);

/*
 * Whether @skb (IPv4 or IPv6 by @family) may be answered at all: it came
 * in a unicast frame from one host, not us, to one host. Every answer of
 * every target asks first.
 */
bool nf_chaos_may_answer(struct net *net, const struct sk_buff *skb,
			 u8 family);

/*
 * A rule that answers with nf_chaos_tcp_answer() holds the core's state in
 * its netns: nf_chaos_net_get() in its checkentry, nf_chaos_net_put() in
 * its destroy.
 */
int nf_chaos_net_get(struct net *net);
void nf_chaos_net_put(struct net *net);

/*
 * A keyed hash of @skb's source address, by the key of @skb's netns
 * (net.netfilter.nf_chaos_key). Under RCU.
 */
u32 nf_chaos_source_hash(struct net *net, const struct sk_buff *skb,
			 u8 family);

/* Whether the @len bytes of @proto at @thoff of @skb have a good checksum. */
bool nf_chaos_csum_ok(struct sk_buff *skb, u8 family, unsigned int thoff,
		      unsigned int len, u8 proto);

/*
 * A token bucket kept as *@tat, the time it is full again: take a token
 * of @interval if the bucket then owes at most @tolerance (its burst
 * times @interval, less what must stay in it), in @now's unit.
 */
bool nf_chaos_bucket_take(atomic64_t *tat, u64 now, u64 interval,
			  u64 tolerance);

#endif /* _NF_CHAOS_REPLY_H */
