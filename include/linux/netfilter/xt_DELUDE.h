/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
#ifndef _XT_DELUDE_H
#define _XT_DELUDE_H

#include <linux/types.h>

/* Revision 0 has no options; revision 1 has these flags. */
enum {
	XT_DELUDE_BANNER = 1 << 0,	/* greet the completed handshake */
	XT_DELUDE_MASK   = (1 << 1) - 1,
};

struct xt_delude_tginfo {
	__u8 flags;
};

#endif /* _XT_DELUDE_H */
