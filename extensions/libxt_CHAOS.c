// SPDX-License-Identifier: GPL-2.0
/* iptables target "CHAOS": slow, random and rate-limited answers to probes. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xtables.h>
#include <linux/netfilter/xt_CHAOS.h>

enum {
	O_DELUDE = 0,
	O_TARPIT,
	O_REJECT_PROB,
	O_DELUDE_PROB,
	O_RATE,
	O_BURST,
	O_BANNER,
	F_DELUDE      = 1 << O_DELUDE,
	F_TARPIT      = 1 << O_TARPIT,
	F_DELUDE_PROB = 1 << O_DELUDE_PROB,
	F_BANNER      = 1 << O_BANNER,
};

/* Defaults: probabilities in ppm, rate per minute. */
#define CHAOS_REJECT_PROB	100000	/* 10% of the other retries */
#define CHAOS_DELUDE_PROB	 50000	/* 5% of SYN probes */
#define CHAOS_RATE		   120
#define CHAOS_BURST		     5

/* Largest --burst; a deeper bucket would let a scan through unslowed. */
#define CHAOS_BURST_MAX	10000

/* Shortest decimal of a probability: 10000 ppm -> "0.01". */
static const char *chaos_prob_str(char *buf, size_t size, uint32_t ppm)
{
	uint32_t frac = ppm % XT_CHAOS_PROB_ONE;
	int digits = 6;

	if (frac == 0) {
		snprintf(buf, size, "%u", ppm / XT_CHAOS_PROB_ONE);
		return buf;
	}
	for (; frac % 10 == 0; frac /= 10)
		--digits;
	snprintf(buf, size, "%u.%0*u", ppm / XT_CHAOS_PROB_ONE, digits, frac);
	return buf;
}

/* Per second when exact, else per minute; both parse back. */
static const char *chaos_rate_str(char *buf, size_t size, uint32_t per_min)
{
	if (per_min % 60 == 0)
		snprintf(buf, size, "%u/sec", per_min / 60);
	else
		snprintf(buf, size, "%u/min", per_min);
	return buf;
}

static void chaos_tg_help(void)
{
	char rp[16], dp[16], rate[16];

	printf(
"CHAOS target options (INPUT and FORWARD chains):\n"
"  --delude              hand some opening SYNs to DELUDE (port looks open)\n"
"  --tarpit              hand some opening SYNs to TARPIT (port looks open\n"
"                        and holds the peer; conntrack cost, see man page)\n"
"  --reject-prob P       probability of a late answer (TCP RST, ICMP\n"
"                        unreachable) to a retry, within the rate limit,\n"
"                        once the source was answered on a 2nd retry; a\n"
"                        retry further than any answered before from its\n"
"                        source is always answered, a first probe never;\n"
"                        else the packet is dropped silently (default %s)\n"
"  --delude-prob P       probability that an opening SYN of a scan that\n"
"                        forces its speed goes to DELUDE or TARPIT, ten\n"
"                        times that for an answered retry's SYN; needs\n"
"                        --delude or --tarpit (default %s)\n"
"  --banner              with --delude: greet the deluded peers that\n"
"                        complete the handshake as DELUDE --banner does\n"
"  --rate N[/second|/minute]\n"
"                        most answers to retries per time unit, plain N is\n"
"                        per second (default %s)\n"
"  --burst N             token bucket depth of the rate limit, 1 to %u\n"
"                        (default %u)\n"
"Probabilities run from 0 to 1 in steps of 0.000001.\n",
	       chaos_prob_str(rp, sizeof(rp), CHAOS_REJECT_PROB),
	       chaos_prob_str(dp, sizeof(dp), CHAOS_DELUDE_PROB),
	       chaos_rate_str(rate, sizeof(rate), CHAOS_RATE),
	       CHAOS_BURST_MAX, CHAOS_BURST);
}

#define s struct xt_chaos_tginfo
static const struct xt_option_entry chaos_tg_opts[] = {
	{ .name = "delude", .id = O_DELUDE, .type = XTTYPE_NONE,
	  .excl = F_TARPIT },
	{ .name = "tarpit", .id = O_TARPIT, .type = XTTYPE_NONE,
	  .excl = F_DELUDE },
	{ .name = "reject-prob", .id = O_REJECT_PROB, .type = XTTYPE_STRING },
	{ .name = "delude-prob", .id = O_DELUDE_PROB, .type = XTTYPE_STRING },
	{ .name = "rate", .id = O_RATE, .type = XTTYPE_STRING },
	{ .name = "burst", .id = O_BURST, .type = XTTYPE_UINT32,
	  .flags = XTOPT_PUT, XTOPT_POINTER(s, burst),
	  .min = 1, .max = CHAOS_BURST_MAX },
	{ .name = "banner", .id = O_BANNER, .type = XTTYPE_NONE },
	XTOPT_TABLEEND,
};
#undef s

static void chaos_tg_init(struct xt_entry_target *t)
{
	struct xt_chaos_tginfo *info = (void *)t->data;

	info->reject_prob = CHAOS_REJECT_PROB;
	info->delude_prob = CHAOS_DELUDE_PROB;
	info->rate = CHAOS_RATE;
	info->burst = CHAOS_BURST;
}

/*
 * A decimal from 0 to 1 with at most six digits after the point (trailing
 * zeros aside), in parts per million. Exact: "0.0000005" is refused, not
 * rounded.
 */
static uint32_t chaos_parse_prob(const char *opt, const char *arg)
{
	const char *p = arg;
	uint32_t ppm = 0, scale = XT_CHAOS_PROB_ONE;

	if (*p == '0' || *p == '1')
		ppm = (*p++ - '0') * XT_CHAOS_PROB_ONE;
	else if (*p != '.')
		goto bad;
	if (*p == '.' && isdigit((unsigned char)p[1])) {
		for (++p; isdigit((unsigned char)*p); ++p) {
			scale /= 10;
			if (scale == 0 && *p != '0')
				goto bad;
			ppm += (*p - '0') * scale;
		}
	}
	if (*p != '\0' || ppm > XT_CHAOS_PROB_ONE)
		goto bad;
	return ppm;
bad:
	xtables_error(PARAMETER_PROBLEM,
		      "CHAOS: --%s \"%s\": want a probability from 0 to 1 in steps of 0.000001",
		      opt, arg);
	return 0;
}

/* "N", "N/second", "N/minute" (or a prefix of the unit): per minute. */
static uint32_t chaos_parse_rate(const char *arg)
{
	unsigned long long n;
	uint32_t mult = 60;
	const char *unit;
	char *end;
	size_t len;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || errno != 0 || end == arg)
		goto bad;
	if (*end == '/') {
		unit = end + 1;
		len = strlen(unit);
		if (len > 0 && strncasecmp(unit, "minute", len) == 0)
			mult = 1;
		else if (len == 0 || strncasecmp(unit, "second", len) != 0)
			goto bad;
	} else if (*end != '\0') {
		goto bad;
	}
	if (n == 0 || n > UINT32_MAX / mult)
		goto bad;
	return n * mult;
bad:
	xtables_error(PARAMETER_PROBLEM,
		      "CHAOS: --rate \"%s\": want N, N/second or N/minute, at least 1, at most %u per minute",
		      arg, UINT32_MAX);
	return 0;
}

static void chaos_tg_parse(struct xt_option_call *cb)
{
	struct xt_chaos_tginfo *info = cb->data;

	xtables_option_parse(cb);
	switch (cb->entry->id) {
	case O_DELUDE:
		info->variant = XT_CHAOS_DELUDE;
		break;
	case O_TARPIT:
		info->variant = XT_CHAOS_TARPIT;
		break;
	case O_REJECT_PROB:
		info->reject_prob = chaos_parse_prob(cb->entry->name, cb->arg);
		break;
	case O_DELUDE_PROB:
		info->delude_prob = chaos_parse_prob(cb->entry->name, cb->arg);
		break;
	case O_RATE:
		info->rate = chaos_parse_rate(cb->arg);
		break;
	case O_BANNER:
		info->flags |= XT_CHAOS_BANNER;
		break;
	}
}

static void chaos_tg_check(struct xt_fcheck_call *cb)
{
	if ((cb->xflags & F_DELUDE_PROB) &&
	    !(cb->xflags & (F_DELUDE | F_TARPIT)))
		xtables_error(PARAMETER_PROBLEM,
			      "CHAOS: --delude-prob needs --delude or --tarpit");
	if ((cb->xflags & F_BANNER) && !(cb->xflags & F_DELUDE))
		xtables_error(PARAMETER_PROBLEM,
			      "CHAOS: --banner needs --delude");
}

/* Revision 0 of the kernel target would ignore the flags byte. */
static void chaos_tg_check0(struct xt_fcheck_call *cb)
{
	chaos_tg_check(cb);
	if (cb->xflags & F_BANNER)
		xtables_error(PARAMETER_PROBLEM,
			      "CHAOS: --banner needs revision 1 of the target: load a newer xt_CHAOS");
}

static const char *chaos_variant_name(uint8_t variant)
{
	switch (variant) {
	case XT_CHAOS_DELUDE:
		return "delude";
	case XT_CHAOS_TARPIT:
		return "tarpit";
	}
	return NULL;
}

static void chaos_tg_print(const void *ip __attribute__((unused)),
			   const struct xt_entry_target *t,
			   int numeric __attribute__((unused)))
{
	const struct xt_chaos_tginfo *info = (const void *)t->data;
	const char *variant = chaos_variant_name(info->variant);
	char buf[16];

	if (variant)
		printf(" %s", variant);
	printf(" reject-prob %s",
	       chaos_prob_str(buf, sizeof(buf), info->reject_prob));
	if (variant)
		printf(" delude-prob %s",
		       chaos_prob_str(buf, sizeof(buf), info->delude_prob));
	printf(" rate %s burst %u",
	       chaos_rate_str(buf, sizeof(buf), info->rate), info->burst);
	if (info->flags & XT_CHAOS_BANNER)
		printf(" banner");
}

static void chaos_tg_save(const void *ip __attribute__((unused)),
			  const struct xt_entry_target *t)
{
	const struct xt_chaos_tginfo *info = (const void *)t->data;
	const char *variant = chaos_variant_name(info->variant);
	char buf[16];

	if (variant)
		printf(" --%s", variant);
	if (info->reject_prob != CHAOS_REJECT_PROB)
		printf(" --reject-prob %s",
		       chaos_prob_str(buf, sizeof(buf), info->reject_prob));
	if (variant && info->delude_prob != CHAOS_DELUDE_PROB)
		printf(" --delude-prob %s",
		       chaos_prob_str(buf, sizeof(buf), info->delude_prob));
	if (info->rate != CHAOS_RATE)
		printf(" --rate %s", chaos_rate_str(buf, sizeof(buf), info->rate));
	if (info->burst != CHAOS_BURST)
		printf(" --burst %u", info->burst);
	if (info->flags & XT_CHAOS_BANNER)
		printf(" --banner");
}

/*
 * iptables takes the highest revision the kernel knows: revision 0 keeps
 * the rules working with an older module, and refuses --banner there
 * rather than have it ignored.
 */
static struct xtables_target chaos_tg_reg[] = {
	{
		.version       = XTABLES_VERSION,
		.name          = "CHAOS",
		.revision      = 0,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_chaos_tginfo)),
		.userspacesize = offsetof(struct xt_chaos_tginfo, priv),
		.help          = chaos_tg_help,
		.init          = chaos_tg_init,
		.x6_parse      = chaos_tg_parse,
		.x6_fcheck     = chaos_tg_check0,
		.print         = chaos_tg_print,
		.save          = chaos_tg_save,
		.x6_options    = chaos_tg_opts,
	},
	{
		.version       = XTABLES_VERSION,
		.name          = "CHAOS",
		.revision      = 1,
		.family        = NFPROTO_UNSPEC,
		.size          = XT_ALIGN(sizeof(struct xt_chaos_tginfo)),
		.userspacesize = offsetof(struct xt_chaos_tginfo, priv),
		.help          = chaos_tg_help,
		.init          = chaos_tg_init,
		.x6_parse      = chaos_tg_parse,
		.x6_fcheck     = chaos_tg_check,
		.print         = chaos_tg_print,
		.save          = chaos_tg_save,
		.x6_options    = chaos_tg_opts,
	},
};

void _init(void)
{
	xtables_register_targets(chaos_tg_reg, ARRAY_SIZE(chaos_tg_reg));
}
