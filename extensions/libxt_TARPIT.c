// SPDX-License-Identifier: GPL-2.0
/* iptables target "TARPIT": hold, take in, or reset TCP connections. */
#include <stdio.h>
#include <xtables.h>
#include <linux/netfilter/xt_TARPIT.h>

/* Option ids are the modes. */
enum {
	O_TARPIT   = XT_TARPIT_TARPIT,
	O_HONEYPOT = XT_TARPIT_HONEYPOT,
	O_RESET    = XT_TARPIT_RESET,
	O_STALL    = XT_TARPIT_STALL,
	F_TARPIT   = 1 << O_TARPIT,
	F_HONEYPOT = 1 << O_HONEYPOT,
	F_RESET    = 1 << O_RESET,
	F_STALL    = 1 << O_STALL,
	F_MODES    = F_TARPIT | F_HONEYPOT | F_RESET | F_STALL,
};

/* Indexed by mode. */
static const char *const tarpit_modes[] = {
	[XT_TARPIT_TARPIT]   = "tarpit",
	[XT_TARPIT_HONEYPOT] = "honeypot",
	[XT_TARPIT_RESET]    = "reset",
	[XT_TARPIT_STALL]    = "stall",
};

static void tarpit_tg_help(void)
{
	printf(
"TARPIT target options (one mode per rule; INPUT and FORWARD; TCP is\n"
"answered, other protocols are dropped):\n"
"  --tarpit      complete the handshake with a zero window and keep the\n"
"                peer waiting; no state is kept (default)\n"
"  --stall       complete the handshake as the host's TCP would, window\n"
"                included, then close the window to zero when the peer\n"
"                sends data, and never take it in (revision 1)\n"
"  --honeypot    complete the handshake with an open window so the peer\n"
"                sends its payload; we never send data\n"
"  --reset       answer with a RST, as a closed port would\n"
"The packet itself is dropped and no state is kept; exempting the port from\n"
"conntrack in the raw table (\"-j CT --notrack\") saves conntrack work on\n"
"every segment (see the man page).\n");
}

static const struct xt_option_entry tarpit_tg_opts[] = {
	{ .name = "tarpit", .id = O_TARPIT, .type = XTTYPE_NONE,
	  .excl = F_MODES },
	{ .name = "stall", .id = O_STALL, .type = XTTYPE_NONE,
	  .excl = F_MODES },
	{ .name = "honeypot", .id = O_HONEYPOT, .type = XTTYPE_NONE,
	  .excl = F_MODES },
	{ .name = "reset", .id = O_RESET, .type = XTTYPE_NONE,
	  .excl = F_MODES },
	XTOPT_TABLEEND,
};

static void tarpit_tg_parse(struct xt_option_call *cb)
{
	struct xt_tarpit_tginfo *info = cb->data;

	xtables_option_parse(cb);
	info->mode = cb->entry->id;
}

static void tarpit_tg_check0(struct xt_fcheck_call *cb)
{
	if (cb->xflags & F_STALL)
		xtables_error(PARAMETER_PROBLEM,
			      "TARPIT: --stall needs revision 1 of the target: load a newer xt_TARPIT");
}

static void tarpit_tg_print(const void *ip __attribute__((unused)),
			    const struct xt_entry_target *t,
			    int numeric __attribute__((unused)))
{
	const struct xt_tarpit_tginfo *info = (const void *)t->data;

	if (info->mode < __XT_TARPIT_MAX)
		printf(" mode %s", tarpit_modes[info->mode]);
}

static void tarpit_tg_save(const void *ip __attribute__((unused)),
			   const struct xt_entry_target *t)
{
	const struct xt_tarpit_tginfo *info = (const void *)t->data;

	/* Default mode is implied; an unknown mode cannot be saved sensibly. */
	if (info->mode != XT_TARPIT_TARPIT && info->mode < __XT_TARPIT_MAX)
		printf(" --%s", tarpit_modes[info->mode]);
}

/*
 * iptables takes the highest revision the kernel knows: revision 0 keeps
 * the other modes working with an older module, and refuses --stall
 * there rather than hold the peer another way.
 */
static struct xtables_target tarpit_tg_reg[] = {
	{
		.version       = XTABLES_VERSION,
		.name          = "TARPIT",
		.revision      = 0,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_tarpit_tginfo)),
		.userspacesize = XT_ALIGN(sizeof(struct xt_tarpit_tginfo)),
		.help          = tarpit_tg_help,
		.x6_parse      = tarpit_tg_parse,
		.print         = tarpit_tg_print,
		.save          = tarpit_tg_save,
		.x6_fcheck     = tarpit_tg_check0,
		.x6_options    = tarpit_tg_opts,
	},
	{
		.version       = XTABLES_VERSION,
		.name          = "TARPIT",
		.revision      = 1,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_tarpit_tginfo)),
		.userspacesize = XT_ALIGN(sizeof(struct xt_tarpit_tginfo)),
		.help          = tarpit_tg_help,
		.x6_parse      = tarpit_tg_parse,
		.print         = tarpit_tg_print,
		.save          = tarpit_tg_save,
		.x6_options    = tarpit_tg_opts,
	},
};

void _init(void)
{
	xtables_register_targets(tarpit_tg_reg, ARRAY_SIZE(tarpit_tg_reg));
}
