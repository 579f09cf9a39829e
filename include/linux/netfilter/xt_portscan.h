/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
#ifndef _XT_PORTSCAN_H
#define _XT_PORTSCAN_H

#include <linux/types.h>

/* Scan classes, as flags in xt_portscan_mtinfo.match. */
enum {
	XT_PORTSCAN_STEALTH = 1 << 0,	/* non-SYN probe outside a connection */
	XT_PORTSCAN_SYN     = 1 << 1,	/* SYN, our SYN/ACK, then RST */
	XT_PORTSCAN_CONNECT = 1 << 2,	/* handshake, close without data */
	XT_PORTSCAN_GRAB    = 1 << 3,	/* we sent data, peer left silent */
	XT_PORTSCAN_MIRAI   = 1 << 4,	/* SYN, sequence = IPv4 destination */
	XT_PORTSCAN_ALL     = (1 << 5) - 1,
};

/* Number of contiguous connmark bits the state needs. */
#define XT_PORTSCAN_STATE_BITS	5

struct xt_portscan_mtinfo {
	__u32 mark_mask;
	__u8 match;
};

#endif /* _XT_PORTSCAN_H */
