// SPDX-License-Identifier: GPL-2.0
/*
 * xt_portscan: match TCP port scans (stealth, SYN, connect, banner grab).
 * A tracking hook keeps each flow's history in conntrack mark bits; the
 * match classifies the current segment against it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/netfilter/x_tables.h>
#include <linux/netfilter/xt_portscan.h>
#include <net/netfilter/nf_conntrack.h>
#include "portscan_classify.h"
#include "portscan_stats.h"
#include "portscan_track.h"

static bool portscan_mt(const struct sk_buff *skb, struct xt_action_param *par)
{
	const struct xt_portscan_mtinfo *info = par->matchinfo;
	unsigned int classes;

	if (par->fragoff)
		return false;
	classes = portscan_classify(skb, par->thoff, par->state,
				    info->mark_mask) & info->match;
	if (classes)
		portscan_count(xt_net(par), classes);
	return classes;
}

static int portscan_mt_check(const struct xt_mtchk_param *par)
{
	const struct xt_portscan_mtinfo *info = par->matchinfo;
	int ret;

	if (!info->match || info->match & ~XT_PORTSCAN_ALL) {
		pr_info_ratelimited("scan class set 0x%x is empty or unknown\n",
				    info->match);
		return -EINVAL;
	}
	if (!portscan_mask_valid(info->mark_mask)) {
		pr_info_ratelimited("mark mask 0x%08x needs %u contiguous bits from its lowest set bit\n",
				    info->mark_mask, XT_PORTSCAN_STATE_BITS);
		return -EINVAL;
	}
	ret = nf_ct_netns_get(par->net, par->family);
	if (ret < 0) {
		pr_info_ratelimited("cannot load conntrack support for proto=%u\n",
				    par->family);
		return ret;
	}
	ret = portscan_track_get(par->net, par->family, info->mark_mask);
	if (ret < 0)
		goto err_ct;
	ret = portscan_stats_get(par->net);
	if (ret < 0)
		goto err_track;
	return 0;

err_track:
	portscan_track_put(par->net, par->family);
err_ct:
	nf_ct_netns_put(par->net, par->family);
	return ret;
}

static void portscan_mt_destroy(const struct xt_mtdtor_param *par)
{
	portscan_stats_put(par->net);
	portscan_track_put(par->net, par->family);
	nf_ct_netns_put(par->net, par->family);
}

/*
 * x_tables finds a match by the name in the rule, so xtables-addons'
 * name for it, lscan, is registered too: the same match, options and
 * state; rules keep the name they were written with.
 */
#define PORTSCAN_MT_REG(_name, _family) {				\
	.name		= (_name),					\
	.revision	= 0,						\
	.family		= (_family),					\
	.proto		= IPPROTO_TCP,					\
	.match		= portscan_mt,					\
	.checkentry	= portscan_mt_check,				\
	.destroy	= portscan_mt_destroy,				\
	.matchsize	= XT_ALIGN(sizeof(struct xt_portscan_mtinfo)),	\
	.me		= THIS_MODULE,					\
}

static struct xt_match portscan_mt_reg[] __read_mostly = {
	PORTSCAN_MT_REG("portscan", NFPROTO_IPV4),
	PORTSCAN_MT_REG("portscan", NFPROTO_IPV6),
	PORTSCAN_MT_REG("lscan", NFPROTO_IPV4),
	PORTSCAN_MT_REG("lscan", NFPROTO_IPV6),
};

static int __init portscan_mt_init(void)
{
	int ret;

	ret = portscan_track_init();
	if (ret < 0)
		return ret;
	ret = portscan_stats_init();
	if (ret < 0)
		goto err_track;
	ret = xt_register_matches(portscan_mt_reg, ARRAY_SIZE(portscan_mt_reg));
	if (ret < 0)
		goto err_stats;
	return 0;

err_stats:
	portscan_stats_exit();
err_track:
	portscan_track_exit();
	return ret;
}

static void __exit portscan_mt_exit(void)
{
	xt_unregister_matches(portscan_mt_reg, ARRAY_SIZE(portscan_mt_reg));
	portscan_stats_exit();
	portscan_track_exit();
}

module_init(portscan_mt_init);
module_exit(portscan_mt_exit);
MODULE_AUTHOR("chaostables developers");
MODULE_DESCRIPTION("Xtables: TCP port scan detection");
MODULE_LICENSE("GPL");
MODULE_ALIAS("ipt_portscan");
MODULE_ALIAS("ip6t_portscan");
MODULE_ALIAS("ipt_lscan");
MODULE_ALIAS("ip6t_lscan");
