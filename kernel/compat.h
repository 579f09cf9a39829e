/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility shims, force-included into every module. Keyed on the
 * features a kernel has, newest API first; no version checks in .c files.
 */
#ifndef _CHAOSTABLES_COMPAT_H
#define _CHAOSTABLES_COMPAT_H

#include <linux/version.h>

/* The oldest kernel whose netfilter and conntrack API the modules use. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "chaostables needs Linux 6.1 or newer"
#endif

/*
 * 6.1.y before the backport of 6.8's "replace physindev with physinif":
 * nf_bridge_get_physindev() takes no netns. Variadic, so that the
 * header's own declaration expands to itself.
 */
#ifdef CHAOS_PHYSINDEV_NO_NET
#define nf_bridge_get_physindev(skb, ...) nf_bridge_get_physindev(skb)
#endif

#endif /* _CHAOSTABLES_COMPAT_H */
