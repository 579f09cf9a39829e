// SPDX-License-Identifier: GPL-2.0
/*
 * Rate limits: the token bucket, of CHAOS's answers and of ours, and the
 * budgets of the held answers.
 * The answers to the later segments of a flow, which only a cookie ties to
 * a handshake of ours, are bounded per source (IPv6: per /64) in a network
 * namespace: a real peer can have them at the rate it sends, a loop
 * through a cookie collision (if any) ends at the first answer the bucket
 * withholds, and an abusive peer uses up only its own bucket, never
 * another's. A token bucket of one second's answers, in ns.
 */
#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include "nf_chaos_internal.h"

/*
 * The token bucket is kept as one theoretical arrival time (GCRA), so it
 * is lockless and never wraps; its unit is the caller's.
 */
bool nf_chaos_bucket_take(atomic64_t *tat, u64 now, u64 interval,
			  u64 tolerance)
{
	s64 old = atomic64_read(tat);
	u64 next;

	do {
		next = max_t(u64, old, now) + interval;
		/* An empty bucket costs a read only, even under a flood. */
		if (next - now > tolerance)
			return false;
	} while (!atomic64_try_cmpxchg(tat, &old, next));
	return true;
}
EXPORT_SYMBOL_GPL(nf_chaos_bucket_take);

/*
 * The held answers' budgets (struct nf_chaos_held_set): a source that
 * finds no way of its own takes the fullest one, which loses the least:
 * others cannot drain its budget, however many sources they have, and
 * evicting it gives it a full one back. Without rules in the netns there
 * is no set: no budget, no answer and no greeting.
 */

/*
 * The set of @oldskb's source, whose tag by the netns's key set @keys goes
 * to *@tag; NULL if none.
 */
static struct nf_chaos_held_set *
nf_chaos_held_set(struct net *net, const struct nf_chaos_keys *keys,
		  const struct sk_buff *oldskb, u8 family, u64 *tag)
{
	struct nf_chaos_live *live = rcu_dereference(nf_chaos_pernet(net)->live);

	if (!live)
		return NULL;
	*tag = nf_chaos_hash(keys, oldskb, family, 0, 0,
			     NF_CHAOS_HASH_SNET) | 1;
	return &live->held[(u32)(*tag >> 32) % NF_CHAOS_HELD_SETS];
}

bool nf_chaos_held_allow(struct net *net, const struct nf_chaos_keys *keys,
			 const struct sk_buff *oldskb, u8 family)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(net);
	u64 now = ktime_get_mono_fast_ns();
	struct nf_chaos_held_set *set;
	unsigned int i, w = 0;
	u64 interval, tag;
	bool ok;

	set = nf_chaos_held_set(net, keys, oldskb, family, &tag);
	if (!set)
		return false;
	interval = NSEC_PER_SEC / READ_ONCE(cn->held_rate);
	spin_lock_bh(&set->lock);
	for (i = 0; i < NF_CHAOS_HELD_WAYS; i++) {
		if (set->way[i].tag == tag)
			break;
		if ((u64)atomic64_read(&set->way[i].tat) <
		    (u64)atomic64_read(&set->way[w].tat))
			w = i;
	}
	if (i == NF_CHAOS_HELD_WAYS) {
		i = w;
		set->way[i].tag = tag;
		atomic64_set(&set->way[i].tat, 0);
	}
	ok = nf_chaos_bucket_take(&set->way[i].tat, now, interval,
				  NSEC_PER_SEC);
	spin_unlock_bh(&set->lock);
	if (!ok)
		nf_chaos_count_drop(net, NF_CHAOS_DROP_BUDGET);
	return ok;
}

/*
 * Whether the flow of @oldskb whose keyed hash is @flow is greeted for the
 * first time, as far as its source's set remembers: a greeting goes once
 * to a flow, never again to a replay of its ACK, unless NF_CHAOS_GREETED
 * other flows of the set (other handshakes completed) were greeted since.
 */
bool nf_chaos_greet_first(struct net *net, const struct nf_chaos_keys *keys,
			  const struct sk_buff *oldskb, u8 family, u32 flow)
{
	struct nf_chaos_held_set *set;
	unsigned int i;
	u64 tag;

	set = nf_chaos_held_set(net, keys, oldskb, family, &tag);
	if (!set)
		return false;
	flow |= 1;
	spin_lock_bh(&set->lock);
	for (i = 0; i < NF_CHAOS_GREETED; i++) {
		if (set->greeted[i] == flow) {
			spin_unlock_bh(&set->lock);
			return false;
		}
	}
	set->greeted[set->next] = flow;
	set->next = (set->next + 1) % NF_CHAOS_GREETED;
	spin_unlock_bh(&set->lock);
	return true;
}

void nf_chaos_held_init(struct nf_chaos_held_set *held)
{
	unsigned int i;

	for (i = 0; i < NF_CHAOS_HELD_SETS; i++)
		spin_lock_init(&held[i].lock);
}
