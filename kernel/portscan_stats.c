// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of xt_portscan: the segments its rules matched, by class,
 * per CPU, summed when /proc/net/xt_portscan_stat is read, one
 * "Name<TAB>value" line each, as /proc/net/xfrm_stat prints its own.
 * They live from the first portscan rule of a network namespace to its
 * last: without rules the file reads zeros, and costs no counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/bitops.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include <linux/netfilter/xt_portscan.h>
#include <net/netns/generic.h>
#include "portscan_stats.h"

#define PORTSCAN_CLASSES	5	/* XT_PORTSCAN_STEALTH to _MIRAI */

static const char *const portscan_class_names[PORTSCAN_CLASSES] = {
	[ilog2(XT_PORTSCAN_STEALTH)]	= "Stealth",
	[ilog2(XT_PORTSCAN_SYN)]	= "Synscan",
	[ilog2(XT_PORTSCAN_CONNECT)]	= "Cnscan",
	[ilog2(XT_PORTSCAN_GRAB)]	= "Grscan",
	[ilog2(XT_PORTSCAN_MIRAI)]	= "Mirai",
};

struct portscan_stats {
	unsigned long matched[PORTSCAN_CLASSES];
};

/*
 * @stats is set under the mutex and read by packets without it: with
 * READ_ONCE()/WRITE_ONCE(), as __rcu and __percpu are two address spaces
 * sparse will not put on one pointer.
 */
struct portscan_stats_net {
	struct portscan_stats __percpu *stats;	/* NULL without rules */
	unsigned int rules;
};

static unsigned int portscan_stats_net_id __read_mostly;
/* Serialises rule setup and teardown and the file's reads. */
static DEFINE_MUTEX(portscan_stats_mutex);

static struct portscan_stats_net *portscan_stats_pernet(struct net *net)
{
	return net_generic(net, portscan_stats_net_id);
}

/* Count a segment a rule matched as @classes; its rule holds the counters. */
void portscan_count(struct net *net, unsigned int classes)
{
	struct portscan_stats __percpu *stats =
		READ_ONCE(portscan_stats_pernet(net)->stats);
	unsigned long c = classes & XT_PORTSCAN_ALL;
	unsigned int i;

	for_each_set_bit(i, &c, PORTSCAN_CLASSES)
		this_cpu_inc(stats->matched[i]);
}

int portscan_stats_get(struct net *net)
{
	struct portscan_stats_net *sn = portscan_stats_pernet(net);
	struct portscan_stats __percpu *stats;
	int ret = 0;

	mutex_lock(&portscan_stats_mutex);
	if (!sn->rules) {
		stats = alloc_percpu_gfp(struct portscan_stats,
					 GFP_KERNEL_ACCOUNT);
		if (!stats) {
			ret = -ENOMEM;
			goto out;
		}
		WRITE_ONCE(sn->stats, stats);
	}
	sn->rules++;
out:
	mutex_unlock(&portscan_stats_mutex);
	return ret;
}

/* After the rule's last packet: x_tables destroys unreachable rules. */
void portscan_stats_put(struct net *net)
{
	struct portscan_stats_net *sn = portscan_stats_pernet(net);

	mutex_lock(&portscan_stats_mutex);
	if (!--sn->rules) {
		free_percpu(sn->stats);
		WRITE_ONCE(sn->stats, NULL);
	}
	mutex_unlock(&portscan_stats_mutex);
}

static int portscan_stats_show(struct seq_file *seq, void *v)
{
	struct portscan_stats_net *sn =
		portscan_stats_pernet(seq_file_single_net(seq));
	unsigned long sum[PORTSCAN_CLASSES] = {};
	unsigned int i;
	int cpu;

	mutex_lock(&portscan_stats_mutex);
	if (sn->stats)
		for_each_possible_cpu(cpu)
			for (i = 0; i < PORTSCAN_CLASSES; i++)
				sum[i] += READ_ONCE(per_cpu_ptr(sn->stats, cpu)->matched[i]);
	mutex_unlock(&portscan_stats_mutex);
	for (i = 0; i < PORTSCAN_CLASSES; i++)
		seq_printf(seq, "%-24s\t%lu\n", portscan_class_names[i], sum[i]);
	return 0;
}

static int __net_init portscan_stats_net_init(struct net *net)
{
	if (!proc_create_net_single("xt_portscan_stat", 0444, net->proc_net,
				    portscan_stats_show, NULL))
		return -ENOMEM;
	return 0;
}

/*
 * The rules of a dying netns may go after this, their table's exit
 * following ours (its module came first): the last of them frees the
 * counters then, as net_generic data outlives every exit method.
 */
static void __net_exit portscan_stats_net_exit(struct net *net)
{
	remove_proc_entry("xt_portscan_stat", net->proc_net);
}

static struct pernet_operations portscan_stats_net_ops = {
	.init	= portscan_stats_net_init,
	.exit	= portscan_stats_net_exit,
	.id	= &portscan_stats_net_id,
	.size	= sizeof(struct portscan_stats_net),
};

int portscan_stats_init(void)
{
	return register_pernet_subsys(&portscan_stats_net_ops);
}

void portscan_stats_exit(void)
{
	unregister_pernet_subsys(&portscan_stats_net_ops);
}
