/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of nf_chaos_reply.ko share; the targets include
 * nf_chaos_reply.h only.
 */
#ifndef _NF_CHAOS_INTERNAL_H
#define _NF_CHAOS_INTERNAL_H

#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/types.h>
#include "nf_chaos_reply.h"

/*
 * A greeting fits the 536-byte MSS that every peer accepts (RFC 9293), so
 * the peer's MSS, which only its SYN carries, need not be remembered.
 */
#define NF_CHAOS_BANNER_MAX	192

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
	unsigned int len;
	char data[NF_CHAOS_BANNER_MAX];
};

/* nf_chaos_banner.c */
unsigned int nf_chaos_banner(char *buf, __be16 port, const u8 *req,
			     unsigned int len);

/* nf_chaos_send.c: send @seg as the answer to @oldskb. */
bool nf_chaos_send4(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg);
bool nf_chaos_send6(struct net *net, struct sk_buff *oldskb,
		    const struct nf_chaos_seg *seg);

#endif /* _NF_CHAOS_INTERNAL_H */
