/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
#ifndef _XT_TARPIT_H
#define _XT_TARPIT_H

#include <linux/types.h>

enum xt_tarpit_mode {
	XT_TARPIT_TARPIT = 0,	/* zero window, hold the peer */
	XT_TARPIT_HONEYPOT,	/* open window, take the payload */
	XT_TARPIT_RESET,	/* answer with a RST */
	XT_TARPIT_STALL,	/* open window until data, then zero */
	__XT_TARPIT_MAX,
};

struct xt_tarpit_tginfo {
	__u8 mode;
};

#endif /* _XT_TARPIT_H */
