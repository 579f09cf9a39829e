// SPDX-License-Identifier: GPL-2.0
/* iptables target "DELUDE": make closed TCP ports look open to SYN probes. */
#include <stdio.h>
#include <xtables.h>
#include <linux/netfilter/xt_DELUDE.h>

enum {
	O_BANNER = 0,
};

static void delude_tg_help(void)
{
	printf(
"DELUDE target options (TCP only; INPUT and FORWARD chains):\n"
"  --banner      greet a peer that completes the handshake as a service\n"
"                on that port would (SSH, SMTP, FTP, POP3, IMAP, HTTP,\n"
"                TLS; see the man page), then close\n"
"It answers a TCP SYN with a SYN/ACK and any other TCP segment with a RST\n"
"(with --banner: but the handshake's ACK), then drops the packet: half-open\n"
"scans see the port open, a real connection is reset at once, and no state\n"
"is kept.\n");
}

static const struct xt_option_entry delude_tg_opts[] = {
	{ .name = "banner", .id = O_BANNER, .type = XTTYPE_NONE },
	XTOPT_TABLEEND,
};

static void delude_tg_parse(struct xt_option_call *cb)
{
	struct xt_delude_tginfo *info = cb->data;

	xtables_option_parse(cb);
	if (cb->entry->id == O_BANNER)
		info->flags |= XT_DELUDE_BANNER;
}

/* Revision 0 has no room for flags: only the check below sees them. */
static void delude_tg_parse0(struct xt_option_call *cb)
{
	xtables_option_parse(cb);
}

static void delude_tg_check0(struct xt_fcheck_call *cb)
{
	if (cb->xflags & (1 << O_BANNER))
		xtables_error(PARAMETER_PROBLEM,
			      "DELUDE: --banner needs revision 1 of the target: load a newer xt_DELUDE");
}

static void delude_tg_print(const void *ip __attribute__((unused)),
			    const struct xt_entry_target *t,
			    int numeric __attribute__((unused)))
{
	const struct xt_delude_tginfo *info = (const void *)t->data;

	if (info->flags & XT_DELUDE_BANNER)
		printf(" banner");
}

static void delude_tg_save(const void *ip __attribute__((unused)),
			   const struct xt_entry_target *t)
{
	const struct xt_delude_tginfo *info = (const void *)t->data;

	if (info->flags & XT_DELUDE_BANNER)
		printf(" --banner");
}

/*
 * iptables takes the highest revision the kernel knows: revision 0 keeps
 * plain DELUDE rules working with an older module, and refuses --banner
 * there rather than drop it.
 */
static struct xtables_target delude_tg_reg[] = {
	{
		.version       = XTABLES_VERSION,
		.name          = "DELUDE",
		.revision      = 0,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(0),
		.userspacesize = XT_ALIGN(0),
		.help          = delude_tg_help,
		.x6_parse      = delude_tg_parse0,
		.x6_fcheck     = delude_tg_check0,
		.x6_options    = delude_tg_opts,
	},
	{
		.version       = XTABLES_VERSION,
		.name          = "DELUDE",
		.revision      = 1,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_delude_tginfo)),
		.userspacesize = XT_ALIGN(sizeof(struct xt_delude_tginfo)),
		.help          = delude_tg_help,
		.x6_parse      = delude_tg_parse,
		.print         = delude_tg_print,
		.save          = delude_tg_save,
		.x6_options    = delude_tg_opts,
	},
};

void _init(void)
{
	xtables_register_targets(delude_tg_reg, ARRAY_SIZE(delude_tg_reg));
}
