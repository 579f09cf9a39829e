// SPDX-License-Identifier: GPL-2.0
/*
 * The answer to a segment: what a listener, a held connection, a
 * honeypot or a greeting service would send, as the TCP header, options
 * and data of an nf_chaos_seg, from the segment and our cookie alone.
 */
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/sock.h>
#include <net/tcp.h>
#include "nf_chaos_internal.h"

/* Receive window we offer when we want data, until the route sizes it. */
#define NF_CHAOS_WINDOW	64240

/* NOP, NOP, timestamp at @opt, as Linux aligns it when alone. */
static unsigned int nf_chaos_put_ts(__be32 *opt, u32 head, u32 tsval,
				    u32 tsecr)
{
	opt[0] = htonl(head << 16 | TCPOPT_TIMESTAMP << 8 | TCPOLEN_TIMESTAMP);
	opt[1] = htonl(tsval);
	opt[2] = htonl(tsecr);
	return 3;
}

/* tcp_select_initial_window()'s window scale for the largest buffer */
static u8 nf_chaos_rcv_wscale(struct net *net)
{
	u32 space = max_t(u32, READ_ONCE(net->ipv4.sysctl_tcp_rmem[2]),
			  READ_ONCE(sysctl_rmem_max));

	return clamp_t(int, ilog2(space) - 15, 0, TCP_MAX_WSCALE);
}

/*
 * The SYN/ACK's options, in tcp_options_write()'s order and alignment:
 * MSS (its value once routed), SACK-permitted, timestamps and window
 * scaling, each if the SYN offered it and this netns's TCP would use it.
 * Returns the number of option words.
 */
static unsigned int nf_chaos_syn_opts(struct net *net,
				      struct nf_chaos_seg *seg,
				      const struct sk_buff *oldskb, u8 family,
				      const struct nf_chaos_peer_opts *po)
{
	bool sack = po->sack_ok && READ_ONCE(net->ipv4.sysctl_tcp_sack);
	unsigned int n = 1;

	seg->tstamp = po->saw_tstamp &&
		      READ_ONCE(net->ipv4.sysctl_tcp_timestamps);
	if (seg->tstamp)
		n += nf_chaos_put_ts(&seg->opt[n], sack ?
				     TCPOPT_SACK_PERM << 8 | TCPOLEN_SACK_PERM :
				     TCPOPT_NOP << 8 | TCPOPT_NOP,
				     nf_chaos_tsval(seg->flow_keys, oldskb,
						    family),
				     po->tsval);
	else if (sack)
		seg->opt[n++] = htonl(TCPOPT_NOP << 24 | TCPOPT_NOP << 16 |
				      TCPOPT_SACK_PERM << 8 |
				      TCPOLEN_SACK_PERM);
	if (po->wscale_ok && READ_ONCE(net->ipv4.sysctl_tcp_window_scaling)) {
		seg->wscale = nf_chaos_rcv_wscale(net);
		seg->opt[n++] = htonl(TCPOPT_NOP << 24 | TCPOPT_WINDOW << 16 |
				      TCPOLEN_WINDOW << 8 | seg->wscale);
	}
	return n;
}

/*
 * Answers to the later segments of a flow (TARPIT, honeypot, greeted) are
 * stateless, so nothing but the cookie ties them to a handshake of ours:
 * two hosts that answered any ACK would answer each other's answers
 * forever, and reflect every spoofed ACK. Before any data of ours a real
 * peer acks our ISN + 1, peer ISN + cookie + 1, and @ack_seq - cookie is
 * its ISN + 1. A held peer (zero window) only sends window probes and
 * keepalives: one byte at that sequence (RFC 1122), or nothing or one byte
 * just before it (Linux, and keepalives). A stalled peer, whose data we
 * never ack, sends that data again and again from that sequence, and
 * keepalives before it. A honeypot peer sends data: its sequence is at
 * most NF_CHAOS_HONEYPOT_MAX beyond. A peer to be greeted has sent nothing
 * yet: its sequence is exactly its ISN + 1; a greeted one is within
 * NF_CHAOS_GREETED_MAX of it (nf_chaos_after_greeting()). A guessed ACK
 * passes with odds of 2^-31 (tarpit, stall), 2^-32 (greeting), 2^-12
 * (honeypot) or 2^-16 (greeted); the last two answer only data and FINs,
 * with a pure ACK. Our pure ACKs pass nowhere, and a greeting, data and a
 * FIN, passes only a honeypot or a greeted flow, whose ACK then passes
 * nowhere: no two of our targets can loop.
 * (Each odds doubled, as either value of the cookie's top bit passes, and
 * doubled again, as a cookie of either of two epochs does; tripled in the
 * last NF_CHAOS_SKEW seconds of an epoch, and doubled in the grace of a
 * previous key, see nf_chaos_rcv_nxt().)
 */
#define NF_CHAOS_HONEYPOT_MAX	BIT_U32(20)

static bool nf_chaos_acks_cookie(u32 seq, u32 rcv_nxt, u32 dlen,
				 enum nf_chaos_answer answer)
{
	if (answer == NF_CHAOS_HONEYPOT)
		return seq - rcv_nxt < NF_CHAOS_HONEYPOT_MAX;
	if (answer == NF_CHAOS_DELUDE_BANNER || answer == NF_CHAOS_BANNER)
		return seq == rcv_nxt;
	if (dlen <= 1 && seq + 1 == rcv_nxt)
		return true;
	return seq == rcv_nxt && dlen && (dlen == 1 || answer == NF_CHAOS_STALL);
}

/*
 * After a greeting of L bytes and a FIN, the peer acks peer ISN + cookie +
 * L + 2 and sends from its ISN + 1 + S, S what it has sent since the
 * handshake: @rcv_nxt - @seq is 1 + L - S, as long as it has sent less
 * than NF_CHAOS_GREETED_MAX. Its data and FIN, whether it sent them before
 * or after it read the greeting (a request longer than the answer, SMTP
 * pipelining, its close), get a pure ACK, as from the server; its ACKs
 * get nothing. A RST would reach the peer before it read the greeting,
 * and fail the read.
 */
#define NF_CHAOS_GREETED_MAX	BIT_U32(16)

static bool nf_chaos_after_greeting(u32 seq, u32 rcv_nxt)
{
	s32 ahead = rcv_nxt - seq;

	return ahead >= -(s32)NF_CHAOS_GREETED_MAX &&
	       ahead <= NF_CHAOS_BANNER_MAX + 2;
}

/*
 * Whether @oth carries a cookie we accept (nf_chaos_rcv_nxt(), from the
 * netns's key set @seg->keys), and then its key set in @seg->flow_keys,
 * the peer's next sequence number in *@rcv_nxt and whether our SYN/ACK
 * offered window scaling in *@wscale; for a greeting, whether it follows
 * one of ours (NF_CHAOS_OURS, with that cookie's).
 */
static enum nf_chaos_verdict
nf_chaos_check(struct net *net, struct nf_chaos_seg *seg,
	       const struct sk_buff *oldskb, u8 family,
	       const struct tcphdr *oth, u32 dlen,
	       enum nf_chaos_answer answer, u32 *rcv_nxt, bool *wscale)
{
	const struct nf_chaos_keys *greeted = NULL, *k;
	u32 seq = ntohl(oth->seq), greeted_nxt = 0, nxt;
	bool handshake = false, greeted_ws = false, ws;
	unsigned int i;

	for (i = 0; i < NF_CHAOS_COOKIES; i++) {
		k = nf_chaos_rcv_nxt(net, seg->keys, oldskb, family, oth, i,
				     &nxt, &ws);
		if (!k)
			continue;
		if (nf_chaos_acks_cookie(seq, nxt, dlen, answer)) {
			seg->flow_keys = k;
			*rcv_nxt = nxt;
			*wscale = ws;
			return NF_CHAOS_SEND;
		}
		handshake |= seq == nxt;	/* unanswered, not a failure */
		if (!greeted && (answer == NF_CHAOS_DELUDE_BANNER ||
				 answer == NF_CHAOS_BANNER) &&
		    nf_chaos_after_greeting(seq, nxt)) {
			greeted = k;
			greeted_nxt = nxt;
			greeted_ws = ws;
		}
	}
	if (greeted) {
		seg->flow_keys = greeted;
		*rcv_nxt = greeted_nxt;
		*wscale = greeted_ws;
		return NF_CHAOS_OURS;
	}
	if (!handshake)
		nf_chaos_count_drop(net, NF_CHAOS_DROP_COOKIE);
	return NF_CHAOS_NOT_OURS;
}

/* Bytes of a request we look at: an SMB negotiate up to its MID. */
#define NF_CHAOS_REQ_PEEK	36

/*
 * Greet a peer that completed our handshake: the greeting, with a FIN as
 * the service then closes, in one segment. The peer's window field, scaled
 * or not, is at most its window; what it cannot take is left out, and so is
 * the FIN then.
 */
static bool nf_chaos_plan_banner(struct net *net, struct nf_chaos_seg *seg,
				 const struct sk_buff *oldskb,
				 const struct tcphdr *oth, u32 dlen)
{
	struct tcphdr *th = &seg->th;
	u8 buf[NF_CHAOS_REQ_PEEK];
	unsigned int len = min_t(u32, dlen, sizeof(buf));
	const u8 *req = NULL;

	if (len)
		req = skb_header_pointer(oldskb, oldskb->len - dlen, len, buf);
	len = nf_chaos_banner(net, seg->keys, seg->data, oth->dest, req,
			      req ? len : 0);
	seg->len = min_t(unsigned int, len, ntohs(oth->window));
	if (!seg->len)
		return false;

	th->seq = oth->ack_seq;
	th->ack_seq = htonl(ntohl(oth->seq) + dlen + oth->fin);
	th->ack = 1;
	th->psh = 1;
	th->fin = seg->len == len;
	th->window = htons(NF_CHAOS_WINDOW);
	return true;
}

/*
 * The rest of an answer to a later segment of a flow of ours, as from the
 * SYN/ACK on: its window scaled if the SYN/ACK offered scaling (@wscale),
 * and our timestamp to a peer that sends them; the timestamp clock, IP ID
 * and flow label those of the cookie's key set (@seg->flow_keys), so that
 * after a key change they still follow the SYN/ACK's.
 * It is sent if its source's budget allows.
 */
static enum nf_chaos_verdict
nf_chaos_later(struct net *net, struct nf_chaos_seg *seg,
	       const struct sk_buff *oldskb, u8 family,
	       const struct nf_chaos_peer_opts *po, bool wscale, u32 rcv_nxt)
{
	seg->peer_isn = rcv_nxt - 1;
	if (wscale)
		seg->wscale = nf_chaos_rcv_wscale(net);
	seg->tstamp = po->saw_tstamp &&
		      READ_ONCE(net->ipv4.sysctl_tcp_timestamps);
	if (seg->tstamp)
		seg->th.doff += nf_chaos_put_ts(seg->opt,
						TCPOPT_NOP << 8 | TCPOPT_NOP,
						nf_chaos_tsval(seg->flow_keys,
							       oldskb, family),
						po->tsval);
	return nf_chaos_held_allow(net, seg->keys, oldskb, family) ?
	       NF_CHAOS_SEND : NF_CHAOS_OURS;
}

/*
 * tcp_ecn_create_request(): ECE to an ECN SYN (ECE and CWR) if the netns
 * takes ECN (tcp_ecn not 0), but not to a SYN already ECT-marked unless a
 * reserved bit or AE (NS) is set.
 */
static bool nf_chaos_ecn_ok(struct net *net, const struct sk_buff *oldskb,
			    u8 family, const struct tcphdr *oth)
{
	u8 dsfield = family == NFPROTO_IPV4 ?
		     ipv4_get_dsfield(ip_hdr(oldskb)) :
		     ipv6_get_dsfield(ipv6_hdr(oldskb));

	return oth->ece && oth->cwr && READ_ONCE(net->ipv4.sysctl_tcp_ecn) &&
	       (INET_ECN_is_not_ect(dsfield) ||
		tcp_flag_word(oth) & htonl(0x0F000000));
}

/*
 * A listener's SYN/ACK, its ISN our cookie of this epoch. A listener drops
 * SYN|FIN (tcp_rcv_state_process()).
 */
static enum nf_chaos_verdict
nf_chaos_plan_synack(struct net *net, struct nf_chaos_seg *seg,
		     const struct sk_buff *oldskb, u8 family,
		     const struct tcphdr *oth,
		     const struct nf_chaos_peer_opts *po,
		     enum nf_chaos_answer answer)
{
	struct tcphdr *th = &seg->th;
	u32 seq = ntohl(oth->seq);

	if (oth->fin)
		return NF_CHAOS_NOT_OURS;
	seg->flow_keys = seg->keys;
	th->doff += nf_chaos_syn_opts(net, seg, oldskb, family, po);
	th->seq = htonl(seq + nf_chaos_cookie(seg->keys, oldskb, family, oth,
					      nf_chaos_epoch(net)) +
			(seg->wscale ? NF_CHAOS_COOKIE_WSCALE : 0));
	th->ack_seq = htonl(seq + 1);
	th->syn = 1;
	th->ack = 1;
	th->ece = nf_chaos_ecn_ok(net, oldskb, family, oth);
	seg->peer_isn = seq;
	/*
	 * A tarpit offers no window at all: the peer sends no data, only
	 * window probes, and RFC 1122 has it wait as long as they are
	 * answered. Any window would let it send, then retransmit and give
	 * up after tcp_retries2.
	 */
	if (answer != NF_CHAOS_TARPIT)
		th->window = htons(NF_CHAOS_WINDOW);
	return NF_CHAOS_SEND;
}

/* RFC 793 reset generation. */
static enum nf_chaos_verdict nf_chaos_plan_reset(struct nf_chaos_seg *seg,
						 const struct tcphdr *oth,
						 u32 dlen)
{
	struct tcphdr *th = &seg->th;

	th->rst = 1;
	if (oth->ack) {
		th->seq = oth->ack_seq;
	} else {
		th->ack_seq = htonl(ntohl(oth->seq) + oth->syn + oth->fin +
				    dlen);
		th->ack = 1;
	}
	return NF_CHAOS_SEND;
}

/*
 * Make @seg the server's ACK of a greeted peer's data and FIN, from
 * @snd_nxt, the greeting's end; false for an ACK, which gets nothing.
 */
static bool nf_chaos_plan_greeted(struct nf_chaos_seg *seg,
				  const struct tcphdr *oth, u32 dlen,
				  u32 snd_nxt)
{
	struct tcphdr *th = &seg->th;

	if (!dlen && !oth->fin)
		return false;
	th->seq = htonl(snd_nxt);
	th->ack_seq = htonl(ntohl(oth->seq) + dlen + oth->fin);
	th->ack = 1;
	th->psh = 0;
	th->fin = 0;
	th->window = htons(NF_CHAOS_WINDOW);
	seg->len = 0;
	return true;
}

/*
 * The greeting, to the handshake's ACK or the first data, which carry our
 * cookie; to what follows a greeting of ours, an ACK of its data and FIN,
 * else silence (NF_CHAOS_OURS). NF_CHAOS_NOT_OURS leaves the segment to
 * DELUDE's reset.
 */
static enum nf_chaos_verdict
nf_chaos_plan_greeting(struct net *net, struct nf_chaos_seg *seg,
		       const struct sk_buff *oldskb, u8 family,
		       const struct tcphdr *oth, u32 dlen,
		       const struct nf_chaos_peer_opts *po,
		       enum nf_chaos_answer answer)
{
	enum nf_chaos_verdict verdict;
	bool wscale = false;
	u32 rcv_nxt;

	if (oth->syn || !oth->ack)
		return NF_CHAOS_NOT_OURS;
	verdict = nf_chaos_check(net, seg, oldskb, family, oth, dlen, answer,
				 &rcv_nxt, &wscale);
	/* A peer that read the greeting acks its end. */
	if (verdict == NF_CHAOS_OURS &&
	    nf_chaos_plan_greeted(seg, oth, dlen, ntohl(oth->ack_seq)))
		return nf_chaos_later(net, seg, oldskb, family, po, wscale,
				      rcv_nxt);
	if (verdict != NF_CHAOS_SEND)
		return verdict;
	if (!nf_chaos_plan_banner(net, seg, oldskb, oth, dlen))
		return NF_CHAOS_OURS;
	verdict = nf_chaos_later(net, seg, oldskb, family, po, wscale, rcv_nxt);
	/*
	 * Once a flow: a replayed ACK would have it again, 200 B for 40.
	 * Data sent before the greeting was read is acked past it.
	 */
	if (verdict == NF_CHAOS_SEND &&
	    !nf_chaos_greet_first(net, seg->keys, oldskb, family,
				  nf_chaos_hash(seg->flow_keys, oldskb, family,
						(__force u32)oth->source << 16 |
						(__force u16)oth->dest,
						rcv_nxt, NF_CHAOS_HASH_FLOW)) &&
	    !nf_chaos_plan_greeted(seg, oth, dlen, ntohl(oth->ack_seq) +
				   seg->len + seg->th.fin))
		return NF_CHAOS_OURS;
	return verdict;
}

/*
 * TARPIT and STALL: hold a flow of ours. Close attempts and strays go
 * unanswered.
 */
static enum nf_chaos_verdict
nf_chaos_plan_held(struct net *net, struct nf_chaos_seg *seg,
		   const struct sk_buff *oldskb, u8 family,
		   const struct tcphdr *oth, u32 dlen,
		   const struct nf_chaos_peer_opts *po,
		   enum nf_chaos_answer answer)
{
	struct tcphdr *th = &seg->th;
	bool wscale = false;
	u32 rcv_nxt;

	if (oth->syn || oth->fin || !oth->ack ||
	    nf_chaos_check(net, seg, oldskb, family, oth, dlen, answer,
			   &rcv_nxt, &wscale) != NF_CHAOS_SEND)
		return NF_CHAOS_NOT_OURS;
	/* Ack exactly what the peer has acked: probes are answered. */
	th->seq = oth->ack_seq;
	th->ack_seq = htonl(rcv_nxt);
	th->ack = 1;
	/*
	 * A stalled peer's window stays open until it sends data; then it is
	 * zero and the data never acked, so the peer retransmits it on its
	 * back-off, and each answer keeps it waiting.
	 */
	if (answer == NF_CHAOS_STALL && ntohl(oth->seq) + 1 == rcv_nxt)
		th->window = htons(NF_CHAOS_WINDOW);
	return nf_chaos_later(net, seg, oldskb, family, po, wscale, rcv_nxt);
}

/*
 * HONEYPOT: ack the data and FIN of a flow of ours, with an open window.
 * A socket would have acked each earlier segment: as many as fit before
 * this one if all were as long (a bare FIN's, of the default MSS).
 */
static enum nf_chaos_verdict
nf_chaos_plan_honeypot(struct net *net, struct nf_chaos_seg *seg,
		       const struct sk_buff *oldskb, u8 family,
		       const struct tcphdr *oth, u32 dlen,
		       const struct nf_chaos_peer_opts *po)
{
	struct tcphdr *th = &seg->th;
	bool wscale = false;
	u32 rcv_nxt;

	if (oth->syn || !oth->ack || (!dlen && !oth->fin) ||
	    nf_chaos_check(net, seg, oldskb, family, oth, dlen,
			   NF_CHAOS_HONEYPOT, &rcv_nxt, &wscale) !=
	    NF_CHAOS_SEND)
		return NF_CHAOS_NOT_OURS;
	th->seq = oth->ack_seq;
	th->ack_seq = htonl(ntohl(oth->seq) + dlen + oth->fin);
	th->ack = 1;
	th->window = htons(NF_CHAOS_WINDOW);
	seg->sent = (ntohl(oth->seq) - rcv_nxt) / (dlen ?: TCP_MSS_DEFAULT);
	return nf_chaos_later(net, seg, oldskb, family, po, wscale, rcv_nxt);
}

/*
 * Fill @seg with the answer to @oth, which carries @dlen bytes of data, by
 * the netns's key set @keys.
 */
enum nf_chaos_verdict
nf_chaos_plan(struct net *net, const struct nf_chaos_keys *keys,
	      struct nf_chaos_seg *seg, const struct sk_buff *oldskb, u8 family,
	      const struct tcphdr *oth, u32 dlen,
	      const struct nf_chaos_peer_opts *po,
	      enum nf_chaos_answer answer)
{
	enum nf_chaos_verdict verdict;

	memset(seg, 0, offsetof(struct nf_chaos_seg, data));
	seg->keys = keys;
	seg->th.source = oth->dest;
	seg->th.dest = oth->source;
	seg->th.doff = sizeof(seg->th) / 4;

	if (oth->syn && !oth->ack && answer != NF_CHAOS_RESET &&
	    answer != NF_CHAOS_BANNER)
		return nf_chaos_plan_synack(net, seg, oldskb, family, oth, po,
					    answer);
	switch (answer) {
	case NF_CHAOS_DELUDE_BANNER:
		verdict = nf_chaos_plan_greeting(net, seg, oldskb, family, oth,
						 dlen, po, answer);
		if (verdict != NF_CHAOS_NOT_OURS)
			return verdict;
		fallthrough;
	case NF_CHAOS_DELUDE:
	case NF_CHAOS_RESET:
		return nf_chaos_plan_reset(seg, oth, dlen);
	case NF_CHAOS_BANNER:
		return nf_chaos_plan_greeting(net, seg, oldskb, family, oth,
					      dlen, po, answer);
	case NF_CHAOS_TARPIT:
	case NF_CHAOS_STALL:
		return nf_chaos_plan_held(net, seg, oldskb, family, oth, dlen,
					  po, answer);
	case NF_CHAOS_HONEYPOT:
		return nf_chaos_plan_honeypot(net, seg, oldskb, family, oth,
					      dlen, po);
	case NF_CHAOS_PORT_UNREACH:
	case NF_CHAOS_PROTO_UNREACH:
		break;
	}
	return NF_CHAOS_NOT_OURS;
}
