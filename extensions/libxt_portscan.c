// SPDX-License-Identifier: GPL-2.0
/*
 * iptables match "portscan": flags flows that behave like nmap probes.
 * "lscan", xtables-addons' name for its match, is the same match.
 */
#include <stdio.h>
#include <stdint.h>
#include <strings.h>
#include <xtables.h>
#include <linux/netfilter/xt_portscan.h>

/* Default connmark bits that hold the per-flow state. */
#define PORTSCAN_MARK_MASK	0xf8000000U

enum {
	O_STEALTH = 0,
	O_SYNSCAN,
	O_CNSCAN,
	O_GRSCAN,
	O_MIRAI,
	O_MARK_MASK,
};

/* Indexed by option id: option name, print name and flag of each class. */
static const struct {
	const char *opt, *name;
	uint8_t flag;
} portscan_classes[] = {
	{ "stealth", "STEALTH", XT_PORTSCAN_STEALTH },
	{ "synscan", "SYNSCAN", XT_PORTSCAN_SYN },
	{ "cnscan",  "CNSCAN",  XT_PORTSCAN_CONNECT },
	{ "grscan",  "GRSCAN",  XT_PORTSCAN_GRAB },
	{ "mirai",   "MIRAI",   XT_PORTSCAN_MIRAI },
};

static void portscan_mt_help(void)
{
	printf(
"portscan match options, also of -m lscan (at least one class; a packet\n"
"matches if its flow is in any of the given classes):\n"
"  --stealth             non-SYN TCP packet outside any connection (nmap\n"
"                        -sF -sN -sX -sA -sW -sM, odd flag combinations)\n"
"  --synscan             SYN, our SYN/ACK, then RST from the peer (-sS)\n"
"  --cnscan              handshake, then the peer closes without sending\n"
"                        data (-sT, FIN-connect)\n"
"  --grscan              handshake, we sent data, the peer left without\n"
"                        sending any (banner grabbing)\n"
"  --mirai               SYN whose sequence number is the IPv4 destination\n"
"                        address (Mirai's scanner)\n"
"  --mark-mask mask      connmark bits that hold the per-flow state; needs\n"
"                        %u contiguous bits from its lowest set bit\n"
"                        (default 0x%08x); use the same mask in every\n"
"                        portscan rule of a network namespace\n"
"Not invertible: \"not a scan\" would match all normal traffic; put\n"
"ACCEPT or RETURN rules first instead.\n",
	       XT_PORTSCAN_STATE_BITS, PORTSCAN_MARK_MASK);
}

#define s struct xt_portscan_mtinfo
static const struct xt_option_entry portscan_mt_opts[] = {
	{ .name = "stealth", .id = O_STEALTH, .type = XTTYPE_NONE },
	{ .name = "synscan", .id = O_SYNSCAN, .type = XTTYPE_NONE },
	{ .name = "cnscan",  .id = O_CNSCAN,  .type = XTTYPE_NONE },
	{ .name = "grscan",  .id = O_GRSCAN,  .type = XTTYPE_NONE },
	{ .name = "mirai",   .id = O_MIRAI,   .type = XTTYPE_NONE },
	{ .name = "mark-mask", .id = O_MARK_MASK, .type = XTTYPE_UINT32,
	  .flags = XTOPT_PUT, XTOPT_POINTER(s, mark_mask) },
	XTOPT_TABLEEND,
};
#undef s

static void portscan_mt_init(struct xt_entry_match *m)
{
	struct xt_portscan_mtinfo *info = (void *)m->data;

	info->mark_mask = PORTSCAN_MARK_MASK;
}

/* The state needs XT_PORTSCAN_STATE_BITS bits upwards of the lowest set bit. */
static int portscan_mask_valid(uint32_t mask)
{
	uint64_t need;

	if (mask == 0)
		return 0;
	need = (uint64_t)((1U << XT_PORTSCAN_STATE_BITS) - 1) << (ffs(mask) - 1);
	return (need & mask) == need;
}

static void portscan_mt_parse(struct xt_option_call *cb)
{
	struct xt_portscan_mtinfo *info = cb->data;

	xtables_option_parse(cb);
	if (cb->entry->id == O_MARK_MASK) {
		if (!portscan_mask_valid(info->mark_mask))
			xtables_error(PARAMETER_PROBLEM,
				      "%s: --mark-mask 0x%x must contain %u contiguous bits starting at its lowest set bit",
				      cb->ext_name, info->mark_mask,
				      XT_PORTSCAN_STATE_BITS);
		return;
	}
	info->match |= portscan_classes[cb->entry->id].flag;
}

static void portscan_mt_check(struct xt_fcheck_call *cb)
{
	const struct xt_portscan_mtinfo *info = cb->data;

	if (info->match == 0)
		xtables_error(PARAMETER_PROBLEM,
			      "%s: give at least one of --stealth, --synscan, --cnscan, --grscan, --mirai",
			      cb->ext_name);
}

static void portscan_print(const char *name, const struct xt_entry_match *m)
{
	const struct xt_portscan_mtinfo *info = (const void *)m->data;
	unsigned int i;

	printf(" %s", name);
	for (i = 0; i < ARRAY_SIZE(portscan_classes); ++i)
		if (info->match & portscan_classes[i].flag)
			printf(" %s", portscan_classes[i].name);
	if (info->mark_mask != PORTSCAN_MARK_MASK)
		printf(" mark-mask 0x%x", info->mark_mask);
}

static void portscan_mt_print(const void *ip __attribute__((unused)),
			      const struct xt_entry_match *m,
			      int numeric __attribute__((unused)))
{
	portscan_print("portscan", m);
}

static void lscan_mt_print(const void *ip __attribute__((unused)),
			   const struct xt_entry_match *m,
			   int numeric __attribute__((unused)))
{
	portscan_print("lscan", m);
}

static void portscan_mt_save(const void *ip __attribute__((unused)),
			     const struct xt_entry_match *m)
{
	const struct xt_portscan_mtinfo *info = (const void *)m->data;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(portscan_classes); ++i)
		if (info->match & portscan_classes[i].flag)
			printf(" --%s", portscan_classes[i].opt);
	if (info->mark_mask != PORTSCAN_MARK_MASK)
		printf(" --mark-mask 0x%x", info->mark_mask);
}

/* Two names, one match: the kernel registers both (xt_portscan). */
static struct xtables_match portscan_mt_reg[] = {
	{
		.version       = XTABLES_VERSION,
		.name          = "portscan",
		.revision      = 0,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_portscan_mtinfo)),
		.userspacesize = XT_ALIGN(sizeof(struct xt_portscan_mtinfo)),
		.help          = portscan_mt_help,
		.init          = portscan_mt_init,
		.x6_parse      = portscan_mt_parse,
		.x6_fcheck     = portscan_mt_check,
		.print         = portscan_mt_print,
		.save          = portscan_mt_save,
		.x6_options    = portscan_mt_opts,
	},
	{
		.version       = XTABLES_VERSION,
		.name          = "lscan",
		.revision      = 0,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_portscan_mtinfo)),
		.userspacesize = XT_ALIGN(sizeof(struct xt_portscan_mtinfo)),
		.help          = portscan_mt_help,
		.init          = portscan_mt_init,
		.x6_parse      = portscan_mt_parse,
		.x6_fcheck     = portscan_mt_check,
		.print         = lscan_mt_print,
		.save          = portscan_mt_save,
		.x6_options    = portscan_mt_opts,
	},
};

void _init(void)
{
	xtables_register_matches(portscan_mt_reg, ARRAY_SIZE(portscan_mt_reg));
}
