// SPDX-License-Identifier: GPL-2.0
/*
 * The stateless part of an answer: keyed hashes of a segment, a key set
 * per network namespace (net.netfilter.nf_chaos_key), the cookie that is
 * our ISN and the epoch it belongs to, and our timestamp clock.
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/timekeeping.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include "nf_chaos_internal.h"

/*
 * A key per network namespace and per hash: the answer budgets' slots,
 * the timestamp offsets, the cookies, the service of each port and
 * xt_CHAOS's tables of sources. All derive from one key, random unless an
 * admin sets it (net.netfilter.nf_chaos_key), so that two firewalls behind
 * one address accept each other's cookies and pose as the same services,
 * and no secret is drawn on its own.
 */
#define NF_CHAOS_KEY_PORT	NF_CHAOS_HASHES
#define NF_CHAOS_KEYS		(NF_CHAOS_KEY_PORT + 1)
#define NF_CHAOS_KEY_ID		NF_CHAOS_KEYS	/* what the fingerprint hashes */
#define NF_CHAOS_KEY_SOURCE	(NF_CHAOS_KEY_ID + 1)

/*
 * A key set. After a write of nf_chaos_key the set it replaced is @prev,
 * whose cookies are accepted until @prev_until (wall-clock seconds): as
 * long as they would have been without the change, so that a rotation
 * cuts no hold and no pending greeting.
 */
struct nf_chaos_keys {
	siphash_key_t key[NF_CHAOS_KEYS];
	siphash_key_t source;	/* nf_chaos_source_hash()'s */
	struct nf_chaos_keys __rcu *prev;
	time64_t prev_until;
	u32 id;			/* net.netfilter.nf_chaos_key_id */
	struct rcu_head rcu;
};

static DEFINE_MUTEX(nf_chaos_keys_mutex);

/*
 * The netns's current key set, under RCU; NULL from its exit on. A
 * segment reads it once: its parts must not mix two sets of a rotation.
 */
const struct nf_chaos_keys *nf_chaos_keys(struct net *net)
{
	return rcu_dereference(nf_chaos_pernet(net)->keys);
}

/* Keyed hash of @of of the segment @oldskb, its ports being @ports. */
u64 nf_chaos_hash(const struct nf_chaos_keys *keys,
		  const struct sk_buff *oldskb, u8 family, u32 ports,
		  u32 epoch, enum nf_chaos_hash_of of)
{
	static const u8 len6[] = {
		[NF_CHAOS_HASH_SNET]	= 8,
		[NF_CHAOS_HASH_ADDRS]	= 32,
		[NF_CHAOS_HASH_FLOW]	= 40,
	};
	const siphash_key_t *key;
	struct {
		struct in6_addr saddr;
		struct in6_addr daddr;
		u32 ports;
		u32 epoch;
	} key6;
	u8 len;

	key = &keys->key[of];
	if (family == NFPROTO_IPV4) {
		const struct iphdr *iph = ip_hdr(oldskb);
		const u32 key4[] = {
			(__force u32)iph->saddr, (__force u32)iph->daddr,
			ports, epoch,
		};

		return siphash(key4, (of + 1 + (of == NF_CHAOS_HASH_FLOW)) *
			       sizeof(key4[0]), key);
	}
	key6.saddr = ipv6_hdr(oldskb)->saddr;
	key6.daddr = ipv6_hdr(oldskb)->daddr;
	key6.ports = ports;
	key6.epoch = epoch;
	len = len6[of];
	/* Link-local peers all share one /64: each is a source of its own. */
	if (of == NF_CHAOS_HASH_SNET &&
	    ipv6_addr_type(&key6.saddr) & IPV6_ADDR_LINKLOCAL)
		len = sizeof(key6.saddr);
	return siphash(&key6, len, key);
}

/*
 * Our ISN is the peer's plus a keyed hash of the flow and the epoch, so
 * any later segment of the flow tells us the peer's ISN from its ACK
 * number: rcv_nxt without keeping state. Its top bit is flipped when our
 * SYN/ACK offered window scaling, which later segments must then use.
 * The epoch, wall-clock seconds over net.netfilter.nf_chaos_epoch, as
 * SYN cookies' counter, so that an observed cookie expires: a cookie of
 * this epoch or the last one is accepted, and a connection we hold lives
 * one to two epochs (HA peers agree on the epoch as on the time). So is
 * one of the next epoch from NF_CHAOS_SKEW before it begins: the cookie
 * of an HA peer whose clock is a little ahead of ours.
 */
u32 nf_chaos_epoch(struct net *net)
{
	return div_u64(ktime_get_real_seconds(),
		       READ_ONCE(nf_chaos_pernet(net)->epoch));
}

u32 nf_chaos_cookie(const struct nf_chaos_keys *keys,
		    const struct sk_buff *oldskb, u8 family,
		    const struct tcphdr *oth, u32 epoch)
{
	return nf_chaos_hash(keys, oldskb, family,
			     (__force u32)oth->source << 16 |
			     (__force u16)oth->dest, epoch, NF_CHAOS_HASH_FLOW);
}

/*
 * The @i-th of the cookies we accept now, newest first: of the current key
 * set @keys, then of the previous one in its grace; of the next epoch
 * within the skew, this one, the last one. NULL if there is no such cookie
 * now; else its key set, the peer's next sequence number, from its ACK of
 * our ISN, in *@rcv_nxt, and in *@wscale whether our SYN/ACK offered
 * window scaling, as the peer's sequence is near that number, never 2^31
 * away.
 */
const struct nf_chaos_keys *
nf_chaos_rcv_nxt(struct net *net, const struct nf_chaos_keys *keys,
		 const struct sk_buff *oldskb, u8 family,
		 const struct tcphdr *oth, unsigned int i, u32 *rcv_nxt,
		 bool *wscale)
{
	u32 span = READ_ONCE(nf_chaos_pernet(net)->epoch);
	time64_t now = ktime_get_real_seconds();
	u32 epoch = div_u64(now, span), first;

	first = min_t(u32, div_u64(now + NF_CHAOS_SKEW, span), epoch + 1);
	if (i >= NF_CHAOS_COOKIES / 2) {
		if (now >= keys->prev_until)
			return NULL;
		keys = rcu_dereference(keys->prev);
		i -= NF_CHAOS_COOKIES / 2;
	}
	if (!keys || first - i + 1 < epoch)
		return NULL;
	*rcv_nxt = ntohl(oth->ack_seq) -
		   nf_chaos_cookie(keys, oldskb, family, oth, first - i);
	*wscale = (ntohl(oth->seq) - *rcv_nxt + NF_CHAOS_COOKIE_WSCALE / 2) &
		  NF_CHAOS_COOKIE_WSCALE;
	if (*wscale)
		*rcv_nxt -= NF_CHAOS_COOKIE_WSCALE;
	return keys;
}

/*
 * Our timestamp clock: milliseconds, as Linux's, from an offset per pair
 * of addresses, as Linux's (secure_tcp_ts_off()), so that it reveals
 * neither the uptime nor that the answers share one clock. The wall clock,
 * not the uptime: after a failover to a box that booted later, a held
 * peer's TSval still moves forward, where PAWS (RFC 7323) would discard
 * our answers. HA peers agree on the time, as on the epoch.
 */
u32 nf_chaos_tsval(const struct nf_chaos_keys *keys,
		   const struct sk_buff *oldskb, u8 family)
{
	return (u32)div_u64(ktime_get_real_ns(), NSEC_PER_MSEC) +
	       (u32)nf_chaos_hash(keys, oldskb, family, 0, 0,
				  NF_CHAOS_HASH_ADDRS);
}

/*
 * A keyed hash of @skb's whole source address, which xt_CHAOS's tables
 * are indexed by: no source can choose an address whose hash is a
 * victim's (ipv6_addr_hash() folds the words of an address together).
 */
u32 nf_chaos_source_hash(struct net *net, const struct sk_buff *skb,
			 u8 family)
{
	const struct nf_chaos_keys *keys = nf_chaos_keys(net);

	/* A dying netns's rules may outlive its keys: one slot for all. */
	if (!keys)
		return 0;
	if (family == NFPROTO_IPV4)
		return siphash_1u32((__force u32)ip_hdr(skb)->saddr,
				    &keys->source);
	return siphash(&ipv6_hdr(skb)->saddr, sizeof(struct in6_addr),
		       &keys->source);
}
EXPORT_SYMBOL_GPL(nf_chaos_source_hash);

/* A keyed hash of @port, the same in every netns that has our key. */
u32 nf_chaos_port_hash(const struct nf_chaos_keys *keys, u16 port)
{
	return siphash_1u32(port, &keys->key[NF_CHAOS_KEY_PORT]);
}

/* A set, and the one it replaced if any (whose own @prev is NULL). */
static void nf_chaos_keys_free(struct rcu_head *head)
{
	struct nf_chaos_keys *keys = container_of(head, struct nf_chaos_keys,
						  rcu);

	kfree_sensitive(rcu_dereference_protected(keys->prev, true));
	kfree_sensitive(keys);
}

/*
 * A fresh set of keys from @master, in place of the netns's, which stays
 * accepted as @prev; unless @replace is false and the netns has keys. The
 * same key again (a service restart) changes nothing, so that it ends no
 * grace.
 */
static int nf_chaos_keys_set(struct nf_chaos_net *cn,
			     const siphash_key_t *master, bool replace)
{
	struct nf_chaos_keys *keys, *old, *gone = NULL;
	u32 span = READ_ONCE(cn->epoch);
	unsigned int i;

	keys = kzalloc(sizeof(*keys), GFP_KERNEL_ACCOUNT);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < NF_CHAOS_KEYS; i++) {
		keys->key[i].key[0] = siphash_2u32(i, 0, master);
		keys->key[i].key[1] = siphash_2u32(i, 1, master);
	}
	keys->source.key[0] = siphash_2u32(NF_CHAOS_KEY_SOURCE, 0, master);
	keys->source.key[1] = siphash_2u32(NF_CHAOS_KEY_SOURCE, 1, master);
	keys->id = siphash_2u32(NF_CHAOS_KEY_ID, 0, master) >> 32;
	/* The old cookies live to the end of the next epoch, as they would. */
	keys->prev_until = (div_u64(ktime_get_real_seconds(), span) + 2) *
			   (time64_t)span;

	mutex_lock(&nf_chaos_keys_mutex);
	old = rcu_dereference_protected(cn->keys,
					lockdep_is_held(&nf_chaos_keys_mutex));
	if (old && (!replace ||
		    !memcmp(old->key, keys->key, sizeof(keys->key)))) {
		mutex_unlock(&nf_chaos_keys_mutex);
		kfree_sensitive(keys);
		return 0;
	}
	if (old) {
		gone = rcu_replace_pointer(old->prev, NULL, true);
		RCU_INIT_POINTER(keys->prev, old);
	}
	rcu_assign_pointer(cn->keys, keys);
	mutex_unlock(&nf_chaos_keys_mutex);
	if (gone)
		call_rcu(&gone->rcu, nf_chaos_keys_free);
	return 0;
}

/*
 * net.netfilter.nf_chaos_key: 32 hex digits, write-only, so that the
 * firewalls of an HA pair share their cookies and a host keeps its
 * services across a reboot.
 */
int nf_chaos_key_sysctl(chaos_ctl_table *table, int write, void *buffer,
			size_t *lenp, loff_t *ppos)
{
	char hex[2 * sizeof(siphash_key_t) + 2] = "";
	struct ctl_table tmp = {
		.data	= hex,
		.maxlen	= sizeof(hex),
	};
	char word[2 * sizeof(u64) + 1] = "";
	siphash_key_t master;
	unsigned int i;
	int ret;

	if (!write)
		return -EPERM;
	ret = proc_dostring(&tmp, write, buffer, lenp, ppos);
	if (ret)
		return ret;
	/* kstrtou64() would take a sign and "0x" too. */
	if (strlen(hex) != 2 * sizeof(master))
		ret = -EINVAL;
	for (i = 0; !ret && hex[i]; i++)
		if (!isxdigit(hex[i]))
			ret = -EINVAL;
	for (i = 0; !ret && i < ARRAY_SIZE(master.key); i++) {
		memcpy(word, hex + i * (sizeof(word) - 1), sizeof(word) - 1);
		ret = kstrtou64(word, 16, &master.key[i]);
	}
	if (!ret)
		ret = nf_chaos_keys_set(table->data, &master, true);
	memzero_explicit(hex, sizeof(hex));
	memzero_explicit(word, sizeof(word));
	memzero_explicit(&master, sizeof(master));
	return ret;
}

/*
 * net.netfilter.nf_chaos_key_id: a keyed hash of the master key, 8 hex
 * digits, that tells whether two boxes share a key and reveals nothing
 * of it.
 */
int nf_chaos_key_id_sysctl(chaos_ctl_table *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	struct nf_chaos_net *cn = table->data;
	const struct nf_chaos_keys *keys;
	char id[2 * sizeof(u32) + 1] = "";
	struct ctl_table tmp = {
		.data	= id,
		.maxlen	= sizeof(id),
	};

	if (write)
		return -EPERM;
	/* Empty until a rule or a write made a key. */
	rcu_read_lock();
	keys = rcu_dereference(cn->keys);
	if (keys)
		snprintf(id, sizeof(id), "%08x", keys->id);
	rcu_read_unlock();
	return proc_dostring(&tmp, write, buffer, lenp, ppos);
}

/* A random key, unless the netns has one: at its first rule. */
int nf_chaos_keys_init(struct nf_chaos_net *cn)
{
	siphash_key_t master;
	int ret;

	if (rcu_access_pointer(cn->keys))
		return 0;
	get_random_bytes(&master, sizeof(master));
	ret = nf_chaos_keys_set(cn, &master, false);
	memzero_explicit(&master, sizeof(master));
	return ret;
}

/*
 * The rules of a dying netns may outlive this (nf_chaos_net_exit()), and
 * packets still pass them: they find no keys, and the keys wait for
 * those that found them.
 */
void nf_chaos_keys_exit(struct nf_chaos_net *cn)
{
	struct nf_chaos_keys *keys = rcu_replace_pointer(cn->keys, NULL, true);

	if (keys)
		call_rcu(&keys->rcu, nf_chaos_keys_free);
}
