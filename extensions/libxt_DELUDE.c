// SPDX-License-Identifier: GPL-2.0
/* iptables target "DELUDE": make closed TCP ports look open to SYN probes. */
#include <stdio.h>
#include <xtables.h>

static void delude_tg_help(void)
{
	printf(
"DELUDE target takes no options. It answers a TCP SYN with a SYN/ACK and\n"
"any other TCP segment with a RST, then drops the packet: half-open scans\n"
"see the port open, a real connection is reset at once, and no state is\n"
"kept. TCP only; INPUT and FORWARD chains.\n");
}

static struct xtables_target delude_tg_reg = {
	.version       = XTABLES_VERSION,
	.name          = "DELUDE",
	.revision      = 0,
	.family        = NFPROTO_UNSPEC,
	.size          = XT_ALIGN(0),
	.userspacesize = XT_ALIGN(0),
	.help          = delude_tg_help,
};

void _init(void)
{
	xtables_register_target(&delude_tg_reg);
}
