/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of nf_chaos_reply.ko share; the targets include
 * nf_chaos_reply.h only.
 */
#ifndef _NF_CHAOS_INTERNAL_H
#define _NF_CHAOS_INTERNAL_H

#include <linux/types.h>
#include "nf_chaos_reply.h"

/*
 * A greeting fits the 536-byte MSS that every peer accepts (RFC 9293), so
 * the peer's MSS, which only its SYN carries, need not be remembered.
 */
#define NF_CHAOS_BANNER_MAX	192

/* nf_chaos_banner.c */
unsigned int nf_chaos_banner(char *buf, __be16 port, const u8 *req,
			     unsigned int len);

#endif /* _NF_CHAOS_INTERNAL_H */
