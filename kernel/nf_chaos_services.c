// SPDX-License-Identifier: GPL-2.0
/*
 * The catalogue of the services we pose as (--banner): which service a
 * port has, and the versions a network namespace shows, which userspace
 * (chaostables-services) writes to net.netfilter.nf_chaos_services from
 * the host's own packages. A namespace that never wrote it shows the
 * built-in versions and costs a pointer.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "nf_chaos_internal.h"

/* nmap's top 100 TCP ports that belong to a well-known service, and more. */
static const struct {
	u16 port;
	u8 service;
} nf_chaos_ports[] = {
	{ 21, NF_CHAOS_FTP },		{ 22, NF_CHAOS_SSH },
	{ 23, NF_CHAOS_TELNET },	{ 25, NF_CHAOS_SMTP },
	{ 53, NF_CHAOS_DNS },		{ 80, NF_CHAOS_HTTP },
	{ 81, NF_CHAOS_HTTP },		{ 110, NF_CHAOS_POP3 },
	{ 111, NF_CHAOS_RPCBIND },	{ 135, NF_CHAOS_MSRPC },
	{ 139, NF_CHAOS_SMB },		{ 143, NF_CHAOS_IMAP },
	{ 222, NF_CHAOS_SSH },		{ 443, NF_CHAOS_HTTPS },
	{ 445, NF_CHAOS_SMB },		{ 465, NF_CHAOS_TLS },
	{ 587, NF_CHAOS_SMTP },		{ 990, NF_CHAOS_TLS },
	{ 993, NF_CHAOS_TLS },		{ 995, NF_CHAOS_TLS },
	{ 1723, NF_CHAOS_PPTP },	{ 2121, NF_CHAOS_FTP },
	{ 2222, NF_CHAOS_SSH },		{ 2525, NF_CHAOS_SMTP },
	{ 3306, NF_CHAOS_MYSQL },	{ 3389, NF_CHAOS_RDP },
	{ 5432, NF_CHAOS_POSTGRES },	{ 5900, NF_CHAOS_VNC },
	{ 6379, NF_CHAOS_REDIS },	{ 8000, NF_CHAOS_HTTP },
	{ 8008, NF_CHAOS_HTTP },	{ 8080, NF_CHAOS_HTTP },
	{ 8443, NF_CHAOS_HTTPS },	{ 8888, NF_CHAOS_HTTP },
	{ 22222, NF_CHAOS_SSH },
};

/*
 * A port outside the table poses as one of the first services that greet,
 * as a scanner names those without sending anything; which one depends on
 * the port and on the netns's key (nf_chaos_port_hash()), so repeated scans
 * agree, and so do the firewalls of an HA pair and a host after a reboot
 * that share a key.
 */
enum nf_chaos_service nf_chaos_service(const struct nf_chaos_keys *keys,
				       __be16 port)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(nf_chaos_ports); i++)
		if (nf_chaos_ports[i].port == ntohs(port))
			return nf_chaos_ports[i].service;
	return nf_chaos_port_hash(keys, ntohs(port)) % NF_CHAOS_ANY_PORT;
}

/* The built-in versions: Debian 13's when written. */
static const char *const nf_chaos_builtin[NF_CHAOS_VERSIONS] = {
	[NF_CHAOS_V_SSH]	= "OpenSSH_10.0p1 Debian-7+deb13u4",
	[NF_CHAOS_V_FTP]	= "vsFTPd 3.0.5",
	[NF_CHAOS_V_HTTP]	= "nginx/1.26.3",
	[NF_CHAOS_V_MYSQL]	= "11.8.9-MariaDB-0+deb13u1",
	[NF_CHAOS_V_DNS]	= "9.20.30-1~deb13u1-Debian",
	[NF_CHAOS_V_REDIS]	= "8.0.2",
	[NF_CHAOS_V_HOSTNAME]	= "localhost",
};

static const char *const nf_chaos_version_names[NF_CHAOS_VERSIONS] = {
	[NF_CHAOS_V_SSH]	= "ssh",
	[NF_CHAOS_V_FTP]	= "ftp",
	[NF_CHAOS_V_HTTP]	= "http",
	[NF_CHAOS_V_MYSQL]	= "mysql",
	[NF_CHAOS_V_DNS]	= "dns",
	[NF_CHAOS_V_REDIS]	= "redis",
	[NF_CHAOS_V_HOSTNAME]	= "hostname",
};

/* The sysctl's text: a "name=value" line per version. */
#define NF_CHAOS_SERVICES_MAX \
	(NF_CHAOS_VERSIONS * (sizeof("hostname=") + NF_CHAOS_VERSION_MAX))

struct nf_chaos_catalogue {
	struct rcu_head rcu;
	char version[NF_CHAOS_VERSIONS][NF_CHAOS_VERSION_MAX + 1];
};

/* Under rcu_read_lock(): the version @net shows, never NULL. */
const char *nf_chaos_version(struct net *net, enum nf_chaos_version v)
{
	const struct nf_chaos_catalogue *cat;

	cat = rcu_dereference(nf_chaos_pernet(net)->services);
	return cat ? cat->version[v] : nf_chaos_builtin[v];
}

/*
 * "name=value" into @cat; a value of printable ASCII that fits (isprint()
 * takes Latin-1 too).
 */
static int nf_chaos_services_line(struct nf_chaos_catalogue *cat, char *line)
{
	char *value = strchr(line, '=');
	unsigned int i;
	int v;

	if (!value)
		return -EINVAL;
	*value++ = '\0';
	v = match_string(nf_chaos_version_names, NF_CHAOS_VERSIONS, line);
	if (v < 0 || !*value || strlen(value) > NF_CHAOS_VERSION_MAX)
		return -EINVAL;
	for (i = 0; value[i]; i++)
		if (value[i] < ' ' || value[i] > '~')
			return -EINVAL;
	strscpy(cat->version[v], value, sizeof(cat->version[v]));
	return 0;
}

/* The catalogue of @text; NULL for an empty one, an ERR_PTR if invalid. */
static struct nf_chaos_catalogue *nf_chaos_services_parse(char *text)
{
	struct nf_chaos_catalogue *cat;
	char *line;
	int ret = 0, v;

	text = strim(text);
	if (!*text)
		return NULL;
	cat = kzalloc(sizeof(*cat), GFP_KERNEL_ACCOUNT);
	if (!cat)
		return ERR_PTR(-ENOMEM);
	for (v = 0; v < NF_CHAOS_VERSIONS; v++)
		strscpy(cat->version[v], nf_chaos_builtin[v],
			sizeof(cat->version[v]));
	while (!ret && (line = strsep(&text, "\n")))
		if (*line)
			ret = nf_chaos_services_line(cat, line);
	if (ret) {
		kfree(cat);
		return ERR_PTR(ret);
	}
	return cat;
}

/*
 * net.netfilter.nf_chaos_services: reads as the versions shown, one
 * "name=value" line each; a write of such lines replaces the versions it
 * names and restores the built-in ones of the others, an empty write
 * restores all.
 */
int nf_chaos_services_sysctl(chaos_ctl_table *table, int write, void *buffer,
			     size_t *lenp, loff_t *ppos)
{
	struct nf_chaos_net *cn = table->data;
	struct nf_chaos_catalogue *cat;
	struct ctl_table tmp = {
		.maxlen	= NF_CHAOS_SERVICES_MAX,
	};
	unsigned int v, n = 0;
	int ret = 0;

	/*
	 * The catalogue in one write, as proc_dostring() would take its first
	 * line only, a later part of a split one for the whole.
	 */
	if (write && (*ppos || *lenp >= NF_CHAOS_SERVICES_MAX))
		return -EINVAL;
	tmp.data = kzalloc(NF_CHAOS_SERVICES_MAX, GFP_KERNEL);
	if (!tmp.data)
		return -ENOMEM;
	if (write) {
		memcpy(tmp.data, buffer, *lenp);
		cat = nf_chaos_services_parse(tmp.data);
		if (IS_ERR(cat)) {
			ret = PTR_ERR(cat);
		} else {
			cat = unrcu_pointer(xchg(&cn->services,
						 RCU_INITIALIZER(cat)));
			if (cat)
				kfree_rcu(cat, rcu);
			*ppos += *lenp;
		}
	} else {
		/* One catalogue, though a write may replace it meanwhile. */
		rcu_read_lock();
		cat = rcu_dereference(cn->services);
		for (v = 0; v < NF_CHAOS_VERSIONS; v++) {
			n += scnprintf(tmp.data + n, NF_CHAOS_SERVICES_MAX - n,
				       "%s=%s\n", nf_chaos_version_names[v],
				       cat ? cat->version[v] :
				       nf_chaos_builtin[v]);
		}
		rcu_read_unlock();
		ret = proc_dostring(&tmp, write, buffer, lenp, ppos);
	}
	kfree(tmp.data);
	return ret;
}

void nf_chaos_services_exit(struct nf_chaos_net *cn)
{
	kfree(rcu_dereference_protected(cn->services, true));
}
