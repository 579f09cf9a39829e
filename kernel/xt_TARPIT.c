// SPDX-License-Identifier: GPL-2.0
/*
 * TARPIT target: hold TCP connections with a zero window (from the
 * handshake on, or once they send data: stall), take in their payload
 * (honeypot), or reset them, without keeping any state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter_ipv4/ip_tables.h>
#include <linux/netfilter_ipv6/ip6_tables.h>
#include <linux/netfilter/xt_TARPIT.h>
#include "nf_chaos_reply.h"

static const enum nf_chaos_answer tarpit_answers[] = {
	[XT_TARPIT_TARPIT]	= NF_CHAOS_TARPIT,
	[XT_TARPIT_HONEYPOT]	= NF_CHAOS_HONEYPOT,
	[XT_TARPIT_RESET]	= NF_CHAOS_RESET,
	[XT_TARPIT_STALL]	= NF_CHAOS_STALL,
};

/*
 * A packet that is not TCP (a rule without "-p tcp") is dropped without
 * an answer: nf_chaos_tcp_answer() answers TCP segments only.
 */
static unsigned int TARPIT_tg(struct sk_buff *skb,
			      const struct xt_action_param *par)
{
	const struct xt_tarpit_tginfo *info = par->targinfo;

	nf_chaos_tcp_answer(xt_net(par), skb, xt_hooknum(par), xt_family(par),
			    tarpit_answers[info->mode], NF_CHAOS_BY_TARPIT);
	return NF_DROP;
}

/*
 * The rule's protocol: 0 for any (no "-p"). Set as x_tables would match
 * it, by ip_tables, ip6_tables or nft_compat (which fills the same
 * entry info from the rule's "-p").
 */
static u16 TARPIT_rule_proto(const struct xt_tgchk_param *par, bool *inv)
{
	const struct ip6t_ip6 *i6 = par->entryinfo;
	const struct ipt_ip *i4 = par->entryinfo;

	if (par->family == NFPROTO_IPV4) {
		*inv = i4->invflags & IPT_INV_PROTO;
		return i4->proto;
	}
	*inv = false;
	if (!(i6->flags & IP6T_F_PROTO))
		return 0;
	*inv = i6->invflags & IP6T_INV_PROTO;
	return i6->proto;
}

/*
 * x_tables itself refuses other hooks. A rule for TCP or for any protocol
 * is accepted: integrators that ban with "-j TARPIT" alone (no "-p tcp")
 * get a rule that holds TCP and drops the rest, rather than a refused
 * rule and no ban at all. A rule for another protocol only, or for all
 * but TCP, can hold nothing and is refused.
 */
static int TARPIT_tg_check_mode(const struct xt_tgchk_param *par,
				unsigned int max)
{
	const struct xt_tarpit_tginfo *info = par->targinfo;
	bool inv;
	u16 proto = TARPIT_rule_proto(par, &inv);

	if (inv || (proto && proto != IPPROTO_TCP)) {
		pr_info_ratelimited("only valid for TCP or any protocol, not %s%u\n",
				    inv ? "! " : "", proto);
		return -EINVAL;
	}
	if (info->mode > max) {
		pr_info_ratelimited("unknown mode %u\n", info->mode);
		return -EINVAL;
	}
	/* The answer core's state in the netns lives while rules do. */
	return nf_chaos_net_get(par->net);
}

static void TARPIT_tg_destroy(const struct xt_tgdtor_param *par)
{
	nf_chaos_net_put(par->net);
}

static int TARPIT_tg_check(const struct xt_tgchk_param *par)
{
	return TARPIT_tg_check_mode(par, XT_TARPIT_RESET);
}

/* Revision 1: the stall mode. */
static int TARPIT_tg_check1(const struct xt_tgchk_param *par)
{
	return TARPIT_tg_check_mode(par, __XT_TARPIT_MAX - 1);
}

#define TARPIT_TG_REG(fam, rev, check) {				\
	.name		= "TARPIT",					\
	.revision	= rev,						\
	.family		= fam,						\
	.target		= TARPIT_tg,					\
	.checkentry	= check,					\
	.destroy	= TARPIT_tg_destroy,				\
	.targetsize	= sizeof(struct xt_tarpit_tginfo),		\
	.hooks		= (1 << NF_INET_LOCAL_IN) |			\
			  (1 << NF_INET_FORWARD),			\
	.me		= THIS_MODULE,					\
}

static struct xt_target TARPIT_tg_reg[] __read_mostly = {
	TARPIT_TG_REG(NFPROTO_IPV4, 0, TARPIT_tg_check),
	TARPIT_TG_REG(NFPROTO_IPV6, 0, TARPIT_tg_check),
	TARPIT_TG_REG(NFPROTO_IPV4, 1, TARPIT_tg_check1),
	TARPIT_TG_REG(NFPROTO_IPV6, 1, TARPIT_tg_check1),
};

static int __init TARPIT_tg_init(void)
{
	return xt_register_targets(TARPIT_tg_reg, ARRAY_SIZE(TARPIT_tg_reg));
}

static void __exit TARPIT_tg_exit(void)
{
	xt_unregister_targets(TARPIT_tg_reg, ARRAY_SIZE(TARPIT_tg_reg));
}

module_init(TARPIT_tg_init);
module_exit(TARPIT_tg_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: hold, stall, take in or reset TCP connections");
MODULE_ALIAS("ipt_TARPIT");
MODULE_ALIAS("ip6t_TARPIT");
