// SPDX-License-Identifier: GPL-2.0
/*
 * Late answers: a copy of the probe waits in a queue of its network
 * namespace, and a timer answers it when it is due, as if the answer had
 * been slow to come. The queue holds NF_CHAOS_LATE_MAX probes of at most
 * NF_CHAOS_LATE_LEN bytes each; what finds it full goes unanswered and is
 * counted (LateDrop). Here too are the ICMP errors of CHAOS.
 */
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <net/icmp.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>
#include "nf_chaos_internal.h"

/* What a stack without the port or protocol sends (v6: a firewalled one). */
static void nf_chaos_unreach(struct net *net, struct sk_buff *oldskb,
			     unsigned int hook, u8 family,
			     enum nf_chaos_answer answer,
			     enum nf_chaos_target by)
{
	bool port = answer == NF_CHAOS_PORT_UNREACH;

	if (family == NFPROTO_IPV4)
		nf_send_unreach(oldskb, port ? ICMP_PORT_UNREACH :
				ICMP_PROT_UNREACH, hook);
	else if (IS_ENABLED(CONFIG_IPV6))
		nf_send_unreach6(net, oldskb, port ? ICMPV6_PORT_UNREACH :
				 ICMPV6_ADM_PROHIBITED, hook);
	nf_chaos_count_sent(net, by, NF_CHAOS_SENT_ICMP);
}

/*
 * A probe that came by a bridge holds its bridge ports by pointer in some
 * kernels: it is answered at once.
 */
static bool nf_chaos_late_bridged(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_info_exists(skb);
#else
	return false;
#endif
}

static void nf_chaos_answer_now(struct net *net, struct sk_buff *oldskb,
				unsigned int hook, u8 family,
				enum nf_chaos_answer answer,
				enum nf_chaos_target by)
{
	if (answer == NF_CHAOS_PORT_UNREACH || answer == NF_CHAOS_PROTO_UNREACH)
		nf_chaos_unreach(net, oldskb, hook, family, answer, by);
	else
		nf_chaos_tcp_answer(net, oldskb, hook, family, answer, by);
}

/* Answer what is due, at most a stackful at a time, and wait for the rest. */
#define NF_CHAOS_LATE_BATCH	16

static void nf_chaos_late_fire(struct timer_list *t)
{
	struct nf_chaos_late *late = timer_container_of(late, t, timer);
	struct nf_chaos_late_probe due[NF_CHAOS_LATE_BATCH];
	unsigned long now = jiffies, next = 0;
	unsigned int i = 0, n = 0;
	struct net_device *dev;
	bool more = false;

	spin_lock(&late->lock);
	while (i < late->n) {
		struct nf_chaos_late_probe *p = &late->probe[i];

		if (time_before(now, p->due)) {
			if (!more || time_before(p->due, next))
				next = p->due;
			more = true;
			i++;
		} else if (n < NF_CHAOS_LATE_BATCH) {
			due[n++] = *p;
			*p = late->probe[--late->n];
		} else {
			next = now;
			more = true;
			i++;
		}
	}
	if (more)
		mod_timer(&late->timer, next);
	spin_unlock(&late->lock);

	rcu_read_lock();
	for (i = 0; i < n; i++) {
		/* The device may have gone meanwhile: the index, not a pointer. */
		dev = dev_get_by_index_rcu(late->net, due[i].iif);
		if (dev) {
			due[i].skb->dev = dev;
			nf_chaos_answer_now(late->net, due[i].skb, due[i].hook,
					    due[i].family, due[i].answer,
					    due[i].by);
		}
		kfree_skb(due[i].skb);
	}
	rcu_read_unlock();
}

void nf_chaos_late_init(struct nf_chaos_late *late, struct net *net)
{
	spin_lock_init(&late->lock);
	timer_setup(&late->timer, nf_chaos_late_fire, 0);
	late->net = net;
}

/*
 * The last rule of the netns went: no probe is queued from now on, and
 * none of those waiting is answered.
 */
void nf_chaos_late_exit(struct nf_chaos_late *late)
{
	spin_lock_bh(&late->lock);
	late->dead = true;
	spin_unlock_bh(&late->lock);
	timer_shutdown_sync(&late->timer);
	while (late->n)
		kfree_skb(late->probe[--late->n].skb);
}

bool nf_chaos_answer_late(struct net *net, struct sk_buff *oldskb,
			  unsigned int hook, u8 family,
			  enum nf_chaos_answer answer, enum nf_chaos_target by,
			  unsigned long delay)
{
	struct nf_chaos_live *live = rcu_dereference(nf_chaos_pernet(net)->live);
	struct nf_chaos_late_probe *p;
	struct nf_chaos_late *late;
	struct sk_buff *copy;

	if (!live)
		return false;
	if (!skb_dst(oldskb) || nf_chaos_late_bridged(oldskb)) {
		nf_chaos_answer_now(net, oldskb, hook, family, answer, by);
		return true;
	}
	if (oldskb->len > NF_CHAOS_LATE_LEN || !oldskb->dev)
		goto drop;
	/* Its data, dst, conntrack entry and IP control block; no socket. */
	copy = skb_copy(oldskb, GFP_ATOMIC);
	if (!copy)
		goto drop;
	copy->dev = NULL;
	/* An input route is the packet's under RCU only: take a reference. */
	if (!skb_dst_force(copy)) {
		kfree_skb(copy);
		goto drop;
	}

	late = &live->late;
	spin_lock(&late->lock);
	if (late->dead || late->n == NF_CHAOS_LATE_MAX) {
		spin_unlock(&late->lock);
		kfree_skb(copy);
		goto drop;
	}
	p = &late->probe[late->n++];
	*p = (struct nf_chaos_late_probe) {
		.skb	= copy,
		.due	= jiffies + delay,
		.iif	= oldskb->dev->ifindex,
		.hook	= hook,
		.family	= family,
		.answer	= answer,
		.by	= by,
	};
	if (!timer_pending(&late->timer) ||
	    time_before(p->due, late->timer.expires))
		mod_timer(&late->timer, p->due);
	spin_unlock(&late->lock);
	return true;

drop:
	nf_chaos_count_drop(net, NF_CHAOS_DROP_LATE);
	return false;
}
EXPORT_SYMBOL_GPL(nf_chaos_answer_late);
