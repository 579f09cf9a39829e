/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-flow state that xt_portscan keeps in XT_PORTSCAN_STATE_BITS
 * contiguous conntrack mark bits, starting at the lowest bit of the rule's
 * mark mask, and the tracking hook that maintains it.
 */
#ifndef _PORTSCAN_TRACK_H
#define _PORTSCAN_TRACK_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/netfilter/xt_portscan.h>
#include <net/net_namespace.h>

#if !IS_ENABLED(CONFIG_NF_CONNTRACK_MARK)
#error "xt_portscan keeps its per-flow state in the conntrack mark: enable CONFIG_NF_CONNTRACK_MARK"
#endif

enum {
	PORTSCAN_TRACKED	= BIT(0),	/* we saw the opening SYN */
	PORTSCAN_ACKED		= BIT(1),	/* originator completed the handshake */
	PORTSCAN_ORIG_DATA	= BIT(2),	/* originator sent payload */
	PORTSCAN_REPLY_DATA	= BIT(3),	/* responder sent payload */
	PORTSCAN_REPLY_FIN	= BIT(4),	/* responder closed first */
	PORTSCAN_STATE_ALL	= BIT(XT_PORTSCAN_STATE_BITS) - 1,
};

static_assert(PORTSCAN_REPLY_FIN <= PORTSCAN_STATE_ALL);

/* State bits of a flow, given its conntrack mark and a valid mark mask. */
static inline u32 portscan_state(u32 mark, u32 mark_mask)
{
	return (mark >> __ffs(mark_mask)) & PORTSCAN_STATE_ALL;
}

bool portscan_mask_valid(u32 mark_mask);
int portscan_track_get(struct net *net, u8 family, u32 mark_mask);
void portscan_track_put(struct net *net, u8 family);
int portscan_track_init(void);
void portscan_track_exit(void);

#endif /* _PORTSCAN_TRACK_H */
