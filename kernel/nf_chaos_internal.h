/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of nf_chaos_reply.ko share; the targets include
 * nf_chaos_reply.h only. The parts, none of which calls a target:
 *
 * nf_chaos_core.c	the entry point: checks and parses a segment, has it
 *			planned and sent; netns state, sysctls, the module
 * nf_chaos_plan.c	the answer's TCP header, options and data
 * nf_chaos_cookie.c	keyed hashes and keys, the cookie (our ISN), epochs,
 *			our timestamps
 * nf_chaos_limit.c	the token bucket (xt_CHAOS's too), the held
 *			answers' budget per source, the flows greeted
 * nf_chaos_services.c	the services we pose as: one per port, and the
 *			versions each netns shows
 * nf_chaos_banner.c	their answers: a greeting, or the answer to a request
 * nf_chaos_send.c	IPv4/IPv6 headers, MSS and window from the route,
 *			routed or bridged output
 * nf_chaos_late.c	late answers: their queue and timer; ICMP errors
 * nf_chaos_stats.c	the counters and their file, /proc/net/nf_chaos_stat
 */
#ifndef _NF_CHAOS_INTERNAL_H
#define _NF_CHAOS_INTERNAL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/sysctl.h>
#include <linux/timer.h>
#include <linux/tcp.h>
#include <linux/types.h>
#include <net/netns/generic.h>
#include "nf_chaos_reply.h"

/*
 * A greeting fits the 536-byte MSS that every peer accepts (RFC 9293), so
 * the peer's MSS, which only its SYN carries, need not be remembered. The
 * longest, nginx's page with a version of NF_CHAOS_VERSION_MAX, is 192
 * bytes; scnprintf() keeps one more for its NUL.
 */
#define NF_CHAOS_BANNER_MAX	200

/*
 * A reply: a header, the options the host's stack would send (on a SYN/ACK
 * MSS first, the rest as the SYN offered them; a timestamp on the later
 * segments of a peer that sends one), data on a greeting.
 */
struct nf_chaos_seg {
	struct tcphdr th;
	__be32 opt[5];
	bool tstamp;
	u8 wscale;		/* of the window field, after the SYN/ACK */
	u16 sent;		/* by the socket since the SYN/ACK: IP ID */
	u32 peer_isn;		/* the socket's seed: IP ID, flow label */
	/* Under RCU: the netns's, read once a segment, and the cookie's. */
	const struct nf_chaos_keys *keys;
	const struct nf_chaos_keys *flow_keys;
	unsigned int len;
	char data[NF_CHAOS_BANNER_MAX];
};

/* The options of a peer's segment that shape our answer. */
struct nf_chaos_peer_opts {
	bool sack_ok;		/* SYN only */
	bool wscale_ok;		/* SYN only */
	bool saw_tstamp;
	u32 tsval;
};

/* What the answer core makes of a segment. */
enum nf_chaos_verdict {
	NF_CHAOS_NOT_OURS,	/* silence, and the caller may answer */
	NF_CHAOS_OURS,		/* a flow of ours: silence, from all */
	NF_CHAOS_SEND,		/* the answer in the nf_chaos_seg */
};

/* The counters, per CPU: the packet path takes no lock nor atomic. */
struct nf_chaos_stats {
	unsigned long sent[NF_CHAOS_TARGETS][NF_CHAOS_KINDS];
	unsigned long drop[NF_CHAOS_DROPS];
};

/*
 * The core's state in a network namespace. Without rules of ours it is
 * this and the sysctls, under 1 KiB: the answers' state (@live) exists
 * from the first rule to the last (nf_chaos_net_get()). The keys, made by
 * the first write of nf_chaos_key or the first rule, stay until the netns
 * goes, so that rules loaded after the key, or loaded again, keep it.
 */
struct nf_chaos_net {
	struct nf_chaos_keys __rcu *keys;
	struct nf_chaos_live __rcu *live;	/* NULL: no rule of ours */
	struct ctl_table_header *sysctl;
	struct nf_chaos_catalogue __rcu *services;	/* NULL: built-in */
	unsigned int users;		/* rules, under nf_chaos_net_mutex */
	unsigned int epoch;		/* seconds */
	unsigned int held_rate;		/* answers per second and source */
};

extern unsigned int nf_chaos_net_id;

static inline struct nf_chaos_net *nf_chaos_pernet(struct net *net)
{
	return net_generic(net, nf_chaos_net_id);
}

/* nf_chaos_cookie.c: keyed hashes, the cookie, our timestamps. */

/* What of a segment a hash covers: a prefix of its source, then more. */
enum nf_chaos_hash_of {
	NF_CHAOS_HASH_SNET,	/* source address; for IPv6 its /64 */
	NF_CHAOS_HASH_ADDRS,	/* source and destination address */
	NF_CHAOS_HASH_FLOW,	/* both addresses, both ports, the epoch */
	NF_CHAOS_HASHES,
};

#define NF_CHAOS_COOKIE_WSCALE	BIT_U32(31)	/* in our ISN: we offered scaling */
#define NF_CHAOS_EPOCH		3600	/* default, seconds */
#define NF_CHAOS_EPOCH_MAX	(30 * 86400)
#define NF_CHAOS_SKEW		30	/* seconds an HA peer's clock may lead */
/* Cookies we accept: 2 key sets, each of 3 epochs (next, this, last). */
#define NF_CHAOS_COOKIES	6

struct nf_chaos_keys;

const struct nf_chaos_keys *nf_chaos_keys(struct net *net);
u64 nf_chaos_hash(const struct nf_chaos_keys *keys,
		  const struct sk_buff *oldskb, u8 family, u32 ports,
		  u32 epoch, enum nf_chaos_hash_of of);
u32 nf_chaos_epoch(struct net *net);
u32 nf_chaos_cookie(const struct nf_chaos_keys *keys,
		    const struct sk_buff *oldskb, u8 family,
		    const struct tcphdr *oth, u32 epoch);
const struct nf_chaos_keys *
nf_chaos_rcv_nxt(struct net *net, const struct nf_chaos_keys *keys,
		 const struct sk_buff *oldskb, u8 family,
		 const struct tcphdr *oth, unsigned int i, u32 *rcv_nxt,
		 bool *wscale);
u32 nf_chaos_tsval(const struct nf_chaos_keys *keys,
		   const struct sk_buff *oldskb, u8 family);
u32 nf_chaos_port_hash(const struct nf_chaos_keys *keys, u16 port);
int nf_chaos_key_sysctl(chaos_ctl_table *table, int write, void *buffer,
			size_t *lenp, loff_t *ppos);
int nf_chaos_key_id_sysctl(chaos_ctl_table *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos);
int nf_chaos_keys_init(struct nf_chaos_net *cn);
void nf_chaos_keys_exit(struct nf_chaos_net *cn);

/* nf_chaos_limit.c: the budget of each source's held answers. */
#define NF_CHAOS_HELD_RATE	1000	/* default, answers per second */
#define NF_CHAOS_HELD_RATE_MAX	1000000

/*
 * The held answers' budgets: a small table per netns of exact sources
 * (keyed hashes of 64 bits), a few ways a set.
 */
#define NF_CHAOS_HELD_SETS	128
#define NF_CHAOS_HELD_WAYS	4
/* The flows each set remembers having greeted, the oldest forgotten. */
#define NF_CHAOS_GREETED	8

struct nf_chaos_held_set {
	spinlock_t lock;	/* of way[] and greeted[] */
	struct {
		u64 tag;	/* keyed hash of the source, 0 if free */
		atomic64_t tat;	/* when the bucket is full again, in ns */
	} way[NF_CHAOS_HELD_WAYS];
	u32 greeted[NF_CHAOS_GREETED];	/* keyed hashes of flows */
	u8 next;			/* the greeted[] to forget next */
};

bool nf_chaos_held_allow(struct net *net, const struct nf_chaos_keys *keys,
			 const struct sk_buff *oldskb, u8 family);
bool nf_chaos_greet_first(struct net *net, const struct nf_chaos_keys *keys,
			  const struct sk_buff *oldskb, u8 family, u32 flow);
void nf_chaos_held_init(struct nf_chaos_held_set *held);

/* nf_chaos_late.c: the probes that wait for a late answer. */
#define NF_CHAOS_LATE_MAX	64	/* per netns */
#define NF_CHAOS_LATE_LEN	576	/* bytes of a probe: any a host accepts */

struct nf_chaos_late_probe {
	struct sk_buff *skb;	/* a copy, without its device */
	unsigned long due;	/* jiffies */
	int iif;		/* its device, by index */
	u8 hook;
	u8 family;
	u8 answer;		/* enum nf_chaos_answer */
	u8 by;			/* enum nf_chaos_target */
};

struct nf_chaos_late {
	spinlock_t lock;	/* of all below but @net */
	bool dead;		/* the last rule went: queue nothing */
	unsigned int n;
	struct timer_list timer;	/* at the earliest @due */
	struct net *net;
	struct nf_chaos_late_probe probe[NF_CHAOS_LATE_MAX];
};

void nf_chaos_late_init(struct nf_chaos_late *late, struct net *net);
void nf_chaos_late_exit(struct nf_chaos_late *late);

/* What a netns has while it has rules of ours: some KiB. */
struct nf_chaos_live {
	struct rcu_head rcu;
	struct nf_chaos_stats __percpu *stats;
	struct nf_chaos_late late;
	struct nf_chaos_held_set held[NF_CHAOS_HELD_SETS];
};

/* nf_chaos_services.c: the services we pose as, and their versions. */
enum nf_chaos_service {
	/* They greet first; a port outside the table poses as one of these. */
	NF_CHAOS_SSH,
	NF_CHAOS_SMTP,
	NF_CHAOS_FTP,
	NF_CHAOS_POP3,
	NF_CHAOS_IMAP,
	NF_CHAOS_ANY_PORT,
	NF_CHAOS_TELNET = NF_CHAOS_ANY_PORT,
	NF_CHAOS_MYSQL,
	NF_CHAOS_VNC,
	NF_CHAOS_PPTP,
	/* They answer a request. */
	NF_CHAOS_REQUEST,
	NF_CHAOS_HTTP = NF_CHAOS_REQUEST,
	NF_CHAOS_HTTPS,
	NF_CHAOS_TLS,
	NF_CHAOS_DNS,
	NF_CHAOS_RPCBIND,
	NF_CHAOS_MSRPC,
	NF_CHAOS_SMB,
	NF_CHAOS_RDP,
	NF_CHAOS_REDIS,
	NF_CHAOS_POSTGRES,
	NF_CHAOS_SERVICES,
};

/* The versions a netns shows, as the services print them. */
enum nf_chaos_version {
	NF_CHAOS_V_SSH,		/* after "SSH-2.0-" */
	NF_CHAOS_V_FTP,		/* in vsftpd's "220 (...)" */
	NF_CHAOS_V_HTTP,	/* the Server header */
	NF_CHAOS_V_MYSQL,	/* the handshake's server version */
	NF_CHAOS_V_DNS,		/* version.bind */
	NF_CHAOS_V_REDIS,	/* redis_version */
	NF_CHAOS_V_HOSTNAME,	/* in the SMTP greeting */
	NF_CHAOS_VERSIONS,
};

#define NF_CHAOS_VERSION_MAX	48	/* characters (NF_CHAOS_FITS()) */

enum nf_chaos_service nf_chaos_service(const struct nf_chaos_keys *keys,
				       __be16 port);
const char *nf_chaos_version(struct net *net, enum nf_chaos_version v);
int nf_chaos_services_sysctl(chaos_ctl_table *table, int write, void *buffer,
			     size_t *lenp, loff_t *ppos);
void nf_chaos_services_exit(struct nf_chaos_net *cn);

/* nf_chaos_banner.c */
unsigned int nf_chaos_banner(struct net *net, const struct nf_chaos_keys *keys,
			     char *buf, __be16 port, const u8 *req,
			     unsigned int len);

/* nf_chaos_plan.c: the netns's key set is @keys. */
enum nf_chaos_verdict
nf_chaos_plan(struct net *net, const struct nf_chaos_keys *keys,
	      struct nf_chaos_seg *seg, const struct sk_buff *oldskb, u8 family,
	      const struct tcphdr *oth, u32 dlen,
	      const struct nf_chaos_peer_opts *po,
	      enum nf_chaos_answer answer);

/* nf_chaos_send.c: send @seg as the answer to @oldskb, seen at @hook. */
bool nf_chaos_send4(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg, unsigned int hook);
bool nf_chaos_send6(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg, unsigned int hook);

/* nf_chaos_stats.c */
int nf_chaos_stats_init(struct net *net);
void nf_chaos_stats_exit(struct net *net);

#endif /* _NF_CHAOS_INTERNAL_H */
