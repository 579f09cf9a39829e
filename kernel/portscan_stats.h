/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The segments that portscan rules matched, by class, per network
 * namespace: /proc/net/xt_portscan_stat.
 */
#ifndef _PORTSCAN_STATS_H
#define _PORTSCAN_STATS_H

#include <net/net_namespace.h>

void portscan_count(struct net *net, unsigned int classes);
int portscan_stats_get(struct net *net);
void portscan_stats_put(struct net *net);
int portscan_stats_init(void);
void portscan_stats_exit(void);

#endif /* _PORTSCAN_STATS_H */
