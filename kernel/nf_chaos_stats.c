// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of a network namespace: the answers sent, by target and
 * kind, and the segments left unanswered, by reason. Per CPU, summed when
 * /proc/net/nf_chaos_stat is read, one "Name<TAB>value" line each, as
 * /proc/net/xfrm_stat and snmp6 print theirs. They are part of the state
 * a netns has while it has rules of ours: zero without rules, and again
 * after the last rule goes.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/seq_file_net.h>
#include "nf_chaos_internal.h"

void nf_chaos_count_sent(struct net *net, enum nf_chaos_target by,
			 enum nf_chaos_kind kind)
{
	struct nf_chaos_live *live = rcu_dereference(nf_chaos_pernet(net)->live);

	if (live)
		this_cpu_inc(live->stats->sent[by][kind]);
}
EXPORT_SYMBOL_GPL(nf_chaos_count_sent);

void nf_chaos_count_drop(struct net *net, enum nf_chaos_drop why)
{
	struct nf_chaos_live *live = rcu_dereference(nf_chaos_pernet(net)->live);

	if (live)
		this_cpu_inc(live->stats->drop[why]);
}
EXPORT_SYMBOL_GPL(nf_chaos_count_drop);

/* The answers a target can send; chaostables-load(8), COUNTERS, has them all. */
static const struct {
	const char *name;
	enum nf_chaos_target by;
	enum nf_chaos_kind kind;
} nf_chaos_sent_names[] = {
	{ "DeludeSynAck",	NF_CHAOS_BY_DELUDE,	NF_CHAOS_SENT_SYNACK },
	{ "DeludeRst",		NF_CHAOS_BY_DELUDE,	NF_CHAOS_SENT_RST },
	{ "DeludeGreeting",	NF_CHAOS_BY_DELUDE,	NF_CHAOS_SENT_GREETING },
	{ "TarpitHold",		NF_CHAOS_BY_TARPIT,	NF_CHAOS_SENT_HOLD },
	{ "TarpitSynAck",	NF_CHAOS_BY_TARPIT,	NF_CHAOS_SENT_SYNACK },
	{ "TarpitAck",		NF_CHAOS_BY_TARPIT,	NF_CHAOS_SENT_ACK },
	{ "TarpitRst",		NF_CHAOS_BY_TARPIT,	NF_CHAOS_SENT_RST },
	{ "ChaosSynAck",	NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_SYNACK },
	{ "ChaosHold",		NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_HOLD },
	{ "ChaosAck",		NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_ACK },
	{ "ChaosRst",		NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_RST },
	{ "ChaosGreeting",	NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_GREETING },
	{ "ChaosIcmp",		NF_CHAOS_BY_CHAOS,	NF_CHAOS_SENT_ICMP },
};

static const char *const nf_chaos_drop_names[NF_CHAOS_DROPS] = {
	[NF_CHAOS_DROP_COOKIE]		= "CookieFail",
	[NF_CHAOS_DROP_BUDGET]		= "BudgetDrop",
	[NF_CHAOS_DROP_RATELIMIT]	= "RateLimitDrop",
	[NF_CHAOS_DROP_LATE]		= "LateDrop",
};

static int nf_chaos_stat_show(struct seq_file *seq, void *v)
{
	struct nf_chaos_net *cn = nf_chaos_pernet(seq_file_single_net(seq));
	unsigned long sum[ARRAY_SIZE(nf_chaos_sent_names) + NF_CHAOS_DROPS] = {};
	unsigned int i, n = ARRAY_SIZE(nf_chaos_sent_names);
	const struct nf_chaos_stats *st;
	struct nf_chaos_live *live;
	int cpu;

	rcu_read_lock();
	live = rcu_dereference(cn->live);
	for_each_possible_cpu(cpu) {
		if (!live)
			break;
		st = per_cpu_ptr(live->stats, cpu);
		for (i = 0; i < n; i++)
			sum[i] += READ_ONCE(st->sent[nf_chaos_sent_names[i].by]
						    [nf_chaos_sent_names[i].kind]);
		for (i = 0; i < NF_CHAOS_DROPS; i++)
			sum[n + i] += READ_ONCE(st->drop[i]);
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++)
		seq_printf(seq, "%-24s\t%lu\n", nf_chaos_sent_names[i].name,
			   sum[i]);
	for (i = 0; i < NF_CHAOS_DROPS; i++)
		seq_printf(seq, "%-24s\t%lu\n", nf_chaos_drop_names[i],
			   sum[n + i]);
	return 0;
}

int nf_chaos_stats_init(struct net *net)
{
	if (!proc_create_net_single("nf_chaos_stat", 0444, net->proc_net,
				    nf_chaos_stat_show, NULL))
		return -ENOMEM;
	return 0;
}

void nf_chaos_stats_exit(struct net *net)
{
	remove_proc_entry("nf_chaos_stat", net->proc_net);
}
