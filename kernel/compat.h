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

/*
 * Before 7.x, __inet{,6}_lookup_established() take the hash table that
 * 7.x finds from the netns. Called by their 7.x arguments under our own
 * name: a macro of theirs would rewrite the header's declaration too.
 */
#ifdef CHAOS_LOOKUP_HASHINFO
#define chaos_inet_lookup_established(net, ...) ({			\
	typeof(net) net_ = (net);					\
	__inet_lookup_established(net_, net_->ipv4.tcp_death_row.hashinfo, \
				  __VA_ARGS__);				\
})
#define chaos_inet6_lookup_established(net, ...) ({			\
	typeof(net) net_ = (net);					\
	__inet6_lookup_established(net_, net_->ipv4.tcp_death_row.hashinfo, \
				   __VA_ARGS__);			\
})
#else
#define chaos_inet_lookup_established __inet_lookup_established
#define chaos_inet6_lookup_established __inet6_lookup_established
#endif

/*
 * Before 6.8, the SYN cookie checks take the cookie (the ACK's number
 * less one) that 6.8 finds in the header itself.
 */
#ifdef CHAOS_COOKIE_CHECK_SEQ
#define chaos_cookie_v4_check(iph, th, cookie) \
	__cookie_v4_check(iph, th, cookie)
#define chaos_cookie_v6_check(iph, th, cookie) \
	__cookie_v6_check(iph, th, cookie)
#else
#define chaos_cookie_v4_check(iph, th, cookie) __cookie_v4_check(iph, th)
#define chaos_cookie_v6_check(iph, th, cookie) __cookie_v6_check(iph, th)
#endif

/* Before 6.6: tables end in an empty entry, sizes are not passed. */
#ifdef CHAOS_NO_NET_SYSCTL_SZ
#define register_net_sysctl_sz(net, path, table, size) \
	register_net_sysctl(net, path, table)
#endif

/* Before 6.11, sysctl handlers take a table they may change. */
#ifdef CHAOS_CTL_TABLE_NO_CONST
#define chaos_ctl_table struct ctl_table
#else
#define chaos_ctl_table const struct ctl_table
#endif

/* Before 6.12, the unaligned accessors are the architecture's header. */
#ifdef CHAOS_ASM_UNALIGNED
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/* Before BIT_U32(): a u32, so that sequence arithmetic wraps at 2^32. */
#ifdef CHAOS_NO_BIT_U32
#include <linux/bits.h>
#define BIT_U32(nr) ((u32)BIT(nr))
#endif

/* Before 6.16, timer_container_of() was from_timer(). */
#ifdef CHAOS_NO_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field) from_timer(var, timer, field)
#endif

#endif /* _CHAOSTABLES_COMPAT_H */
