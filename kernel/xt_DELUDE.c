// SPDX-License-Identifier: GPL-2.0
/*
 * DELUDE target: answer a TCP SYN with a SYN/ACK and anything else with a
 * RST, so half-open scans see the port open while nothing is held. With
 * --banner (revision 1), a peer that completes the handshake is greeted
 * as a service would greet it, and then the port closes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_DELUDE.h>
#include "nf_chaos_reply.h"

static unsigned int DELUDE_tg(struct sk_buff *skb,
			      const struct xt_action_param *par)
{
	nf_chaos_tcp_answer(xt_net(par), skb, xt_hooknum(par), xt_family(par),
			    NF_CHAOS_DELUDE, NF_CHAOS_BY_DELUDE);
	return NF_DROP;
}

static unsigned int DELUDE_tg1(struct sk_buff *skb,
			       const struct xt_action_param *par)
{
	const struct xt_delude_tginfo *info = par->targinfo;

	nf_chaos_tcp_answer(xt_net(par), skb, xt_hooknum(par), xt_family(par),
			    info->flags & XT_DELUDE_BANNER ?
			    NF_CHAOS_DELUDE_BANNER : NF_CHAOS_DELUDE,
			    NF_CHAOS_BY_DELUDE);
	return NF_DROP;
}

/* The answer core's state in the netns lives while rules do. */
static int DELUDE_tg_check(const struct xt_tgchk_param *par)
{
	return nf_chaos_net_get(par->net);
}

static int DELUDE_tg_check1(const struct xt_tgchk_param *par)
{
	const struct xt_delude_tginfo *info = par->targinfo;

	if (info->flags & ~XT_DELUDE_MASK) {
		pr_info_ratelimited("unknown flags %#x\n", info->flags);
		return -EINVAL;
	}
	return DELUDE_tg_check(par);
}

static void DELUDE_tg_destroy(const struct xt_tgdtor_param *par)
{
	nf_chaos_net_put(par->net);
}

/* x_tables itself refuses other hooks and rules without "-p tcp". */
static struct xt_target DELUDE_tg_reg[] __read_mostly = {
	{
		.name		= "DELUDE",
		.revision	= 0,
		.family		= NFPROTO_IPV4,
		.target		= DELUDE_tg,
		.checkentry	= DELUDE_tg_check,
		.destroy	= DELUDE_tg_destroy,
		.proto		= IPPROTO_TCP,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.me		= THIS_MODULE,
	},
	{
		.name		= "DELUDE",
		.revision	= 0,
		.family		= NFPROTO_IPV6,
		.target		= DELUDE_tg,
		.checkentry	= DELUDE_tg_check,
		.destroy	= DELUDE_tg_destroy,
		.proto		= IPPROTO_TCP,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.me		= THIS_MODULE,
	},
	{
		.name		= "DELUDE",
		.revision	= 1,
		.family		= NFPROTO_IPV4,
		.target		= DELUDE_tg1,
		.checkentry	= DELUDE_tg_check1,
		.destroy	= DELUDE_tg_destroy,
		.targetsize	= sizeof(struct xt_delude_tginfo),
		.proto		= IPPROTO_TCP,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.me		= THIS_MODULE,
	},
	{
		.name		= "DELUDE",
		.revision	= 1,
		.family		= NFPROTO_IPV6,
		.target		= DELUDE_tg1,
		.checkentry	= DELUDE_tg_check1,
		.destroy	= DELUDE_tg_destroy,
		.targetsize	= sizeof(struct xt_delude_tginfo),
		.proto		= IPPROTO_TCP,
		.hooks		= (1 << NF_INET_LOCAL_IN) |
				  (1 << NF_INET_FORWARD),
		.me		= THIS_MODULE,
	},
};

static int __init DELUDE_tg_init(void)
{
	return xt_register_targets(DELUDE_tg_reg, ARRAY_SIZE(DELUDE_tg_reg));
}

static void __exit DELUDE_tg_exit(void)
{
	xt_unregister_targets(DELUDE_tg_reg, ARRAY_SIZE(DELUDE_tg_reg));
}

module_init(DELUDE_tg_init);
module_exit(DELUDE_tg_exit);
MODULE_LICENSE("GPL");
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: make closed TCP ports look open to SYN scans");
MODULE_ALIAS("ipt_DELUDE");
MODULE_ALIAS("ip6t_DELUDE");
