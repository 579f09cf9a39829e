/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
#ifndef _XT_CHAOS_H
#define _XT_CHAOS_H

#include <linux/types.h>

enum xt_chaos_variant {
	XT_CHAOS_NORMAL = 0,	/* reject or drop */
	XT_CHAOS_DELUDE,	/* also answer some SYNs as DELUDE */
	XT_CHAOS_TARPIT,	/* also answer some SYNs as TARPIT */
	__XT_CHAOS_MAX,
};

/* Flags of revision 1; revision 0 has none. */
enum {
	XT_CHAOS_BANNER = 1 << 0,	/* --delude: greet the completed handshake */
	XT_CHAOS_MASK   = (1 << 1) - 1,
};

/* Probabilities are in parts per million. */
#define XT_CHAOS_PROB_ONE	1000000U

struct xt_chaos_tginfo {
	__u8 variant;
	__u8 flags;		/* revision 1 */
	__u32 reject_prob;	/* ppm: answer with RST or ICMP */
	__u32 delude_prob;	/* ppm: SYN probes handed to DELUDE/TARPIT */
	__u32 rate;		/* negative answers per minute */
	__u32 burst;		/* token bucket depth */

	/* Used internally by the kernel */
	void *priv __attribute__((aligned(8)));
};

#endif /* _XT_CHAOS_H */
