/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _PORTSCAN_CLASSIFY_H
#define _PORTSCAN_CLASSIFY_H

#include <linux/bits.h>
#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <linux/netfilter/xt_portscan.h>

/* Kernel-only class: a SYN that opens a new flow (a possible SYN probe). */
#define PORTSCAN_OPENING_SYN	BIT(7)

/*
 * Classify the TCP segment @skb whose TCP header starts at @thoff, seen
 * at the hook @state.
 * Returns XT_PORTSCAN_* flags plus PORTSCAN_OPENING_SYN. With
 * @mark_mask 0 only the stateless classes (stealth, Mirai, opening SYN) are
 * computed; otherwise it must be the mask of the portscan rules of the netns,
 * whose tracking hook keeps the per-flow state. The caller holds
 * nf_ct_netns_get() for the family so that packets carry their conntrack.
 */
unsigned int portscan_classify(const struct sk_buff *skb, unsigned int thoff,
			       const struct nf_hook_state *state, u32 mark_mask);

#endif /* _PORTSCAN_CLASSIFY_H */
