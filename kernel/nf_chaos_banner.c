// SPDX-License-Identifier: GPL-2.0
/*
 * Answers (--banner): what a common server of the port's service says to
 * a client that connected (@req empty) or sent @req first, the first
 * NF_CHAOS_REQ_PEEK bytes of its request. nmap's nmap-service-probes is
 * the reference for what a scanner sends and expects; each answer is the
 * one the server would give, in the versions of the netns' catalogue.
 */
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include "nf_chaos_internal.h"

/* Copy a string literal's bytes, without its NUL, to @buf. */
#define NF_CHAOS_PUT(buf, text) \
	(memcpy(buf, text, sizeof(text) - 1), sizeof(text) - 1)

/*
 * Print @fmt, whose one "%s" is @net's version @v, to @buf: the build
 * fails unless it fits whole with the longest version and scnprintf()'s
 * NUL.
 */
#define NF_CHAOS_PRINT(buf, net, fmt, v) ({				\
	BUILD_BUG_ON(sizeof(fmt) - sizeof("%s") + NF_CHAOS_VERSION_MAX >= \
		     NF_CHAOS_BANNER_MAX);				\
	scnprintf(buf, NF_CHAOS_BANNER_MAX, fmt, nf_chaos_version(net, v)); \
})

static unsigned int nf_chaos_ssh(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	return NF_CHAOS_PRINT(buf, net, "SSH-2.0-%s\r\n", NF_CHAOS_V_SSH);
}

/* Postfix's default smtpd_banner on Debian. */
static unsigned int nf_chaos_smtp(struct net *net, char *buf, const u8 *req,
				  unsigned int len)
{
	return NF_CHAOS_PRINT(buf, net, "220 %s ESMTP Postfix (Debian/GNU)\r\n",
			      NF_CHAOS_V_HOSTNAME);
}

static unsigned int nf_chaos_ftp(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	return NF_CHAOS_PRINT(buf, net, "220 (%s)\r\n", NF_CHAOS_V_FTP);
}

/* Dovecot's, which Debian builds with its name in the greeting. */
static unsigned int nf_chaos_pop3(struct net *net, char *buf, const u8 *req,
				  unsigned int len)
{
	return NF_CHAOS_PUT(buf, "+OK Dovecot (Debian) ready.\r\n");
}

#define NF_CHAOS_IMAP_CAPS \
	"* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN]"

static unsigned int nf_chaos_imap(struct net *net, char *buf, const u8 *req,
				  unsigned int len)
{
	return NF_CHAOS_PUT(buf, NF_CHAOS_IMAP_CAPS " Dovecot (Debian) ready.\r\n");
}

/* Linux telnetd asks for the terminal type, speed, X display, environment. */
static unsigned int nf_chaos_telnet(struct net *net, char *buf, const u8 *req,
				    unsigned int len)
{
	return NF_CHAOS_PUT(buf, "\xff\xfd\x18\xff\xfd\x20\xff\xfd\x23\xff\xfd\x27");
}

/*
 * MariaDB's handshake, protocol 10: a random connection id and scramble
 * of printable characters, as the server draws them for each connection.
 */
static unsigned int nf_chaos_mysql(struct net *net, char *buf, const u8 *req,
				   unsigned int len)
{
	u8 rnd[24];
	unsigned int n = 4, i;

	get_random_bytes(rnd, sizeof(rnd));
	for (i = 4; i < sizeof(rnd); i++)
		rnd[i] = '!' + rnd[i] % ('~' - '!' + 1);
	rnd[0] = 0;
	rnd[3] &= 0x3f;

	buf[n++] = 10;
	n += scnprintf(buf + n, NF_CHAOS_BANNER_MAX - n, "%s",
		       nf_chaos_version(net, NF_CHAOS_V_MYSQL)) + 1;
	memcpy(buf + n, rnd, 4);			/* connection id */
	memcpy(buf + n + 4, rnd + 4, 8);		/* scramble, first 8 */
	n += 12;
	/* filler, capabilities, utf8mb4, autocommit, capabilities, 21 */
	n += NF_CHAOS_PUT(buf + n, "\0\xfe\xff\x2d\x02\0\xff\x81\x15");
	/* reserved, MariaDB's extended capabilities */
	n += NF_CHAOS_PUT(buf + n, "\0\0\0\0\0\0\x1d\0\0\0");
	memcpy(buf + n, rnd + 12, 12);			/* scramble, the rest */
	n += 12;
	n += NF_CHAOS_PUT(buf + n, "\0mysql_native_password");
	buf[n++] = '\0';
	put_unaligned_le32(n - 4, buf);			/* sequence 0 */
	return n;
}

static unsigned int nf_chaos_vnc(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	return NF_CHAOS_PUT(buf, "RFB 003.008\n");
}

/* The PPTP control message nmap knows a PPTP server by. */
static unsigned int nf_chaos_pptp(struct net *net, char *buf, const u8 *req,
				  unsigned int len)
{
	return NF_CHAOS_PUT(buf, "\0\x10\0\x01\x1a\x2b\x3c\x4d\0\x05\0\0\0\0\0\x01");
}

/* "GET / ...", "HEAD /...": a method in capitals, a space, a path. */
static bool nf_chaos_http_request(const u8 *req, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len && req[i] >= 'A' && req[i] <= 'Z'; i++)
		;
	return i > 0 && i + 1 < len && req[i] == ' ' && req[i + 1] == '/';
}

static unsigned int nf_chaos_http(struct net *net, char *buf, const u8 *req,
				  unsigned int len)
{
	return scnprintf(buf, NF_CHAOS_BANNER_MAX,
			 "HTTP/1.1 %s\r\nServer: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			 nf_chaos_http_request(req, len) ?
			 "404 Not Found" : "400 Bad Request",
			 nf_chaos_version(net, NF_CHAOS_V_HTTP));
}

/* TLS 1.2 fatal handshake_failure, to a ClientHello. */
#define NF_CHAOS_TLS_ALERT	"\x15\x03\x03\x00\x02\x02\x28"

static unsigned int nf_chaos_tls(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	if (req[0] != 0x16)
		return 0;
	return NF_CHAOS_PUT(buf, NF_CHAOS_TLS_ALERT);
}

/* nginx on an HTTPS port answers plain HTTP too, with its own page. */
static unsigned int nf_chaos_https(struct net *net, char *buf, const u8 *req,
				   unsigned int len)
{
	if (!nf_chaos_http_request(req, len))
		return nf_chaos_tls(net, buf, req, len);
	return NF_CHAOS_PRINT(buf, net,
			      "HTTP/1.1 400 Bad Request\r\nServer: %s\r\nConnection: close\r\n\r\n<html>\r\n<head><title>400 The plain HTTP request was sent to HTTPS port</title></head>\r\n",
			      NF_CHAOS_V_HTTP);
}

/*
 * DNS over TCP, as BIND answers: version.bind (CHAOS TXT) with the
 * version, another query with REFUSED, another opcode with NOTIMP; the
 * query's ID and RD echoed.
 */
#define NF_CHAOS_DNS_VERSION_Q \
	"\0\x01\0\0\0\0\0\0\007version\004bind\0\0\x10\0\x03"

static unsigned int nf_chaos_dns(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	const char *version = nf_chaos_version(net, NF_CHAOS_V_DNS);
	const unsigned int q = sizeof(NF_CHAOS_DNS_VERSION_Q) - 1;
	unsigned int n = 6, vlen = strlen(version);

	if (len < 6)
		return 0;
	memcpy(buf + 2, req + 2, 2);
	buf[4] = 0x80 | (req[4] & 0x79);		/* QR, opcode, RD */
	if (req[4] & 0x78) {
		buf[5] = 4;				/* NOTIMP */
	} else if (len < 6 + q ||
		   memcmp(req + 6, NF_CHAOS_DNS_VERSION_Q, q)) {
		buf[5] = 5;				/* REFUSED */
	} else {
		buf[4] |= 0x04;				/* AA */
		buf[5] = 0;
		/* the question, one answer, one authority */
		n += NF_CHAOS_PUT(buf + n, "\0\x01\0\x01\0\x01\0\0");
		memcpy(buf + n, req + 14, q - 8);
		n += q - 8;
		n += NF_CHAOS_PUT(buf + n, "\xc0\x0c\0\x10\0\x03\0\0\0\0");
		put_unaligned_be16(vlen + 1, buf + n);
		buf[n + 2] = vlen;
		memcpy(buf + n + 3, version, vlen);
		n += 3 + vlen;
		n += NF_CHAOS_PUT(buf + n,
				  "\xc0\x0c\0\x02\0\x03\0\0\0\0\0\x02\xc0\x0c");
		put_unaligned_be16(n - 2, buf);
		return n;
	}
	memset(buf + n, 0, 8);
	n += 8;
	put_unaligned_be16(n - 2, buf);
	return n;
}

/*
 * rpcbind (ONC RPC over TCP, one record): program 100000 versions 2 to 4,
 * PROG_MISMATCH for another version, PROG_UNAVAIL for another program.
 */
static unsigned int nf_chaos_rpcbind(struct net *net, char *buf,
				     const u8 *req, unsigned int len)
{
	u32 prog, vers;
	unsigned int n = 28;

	/* record mark, xid, CALL, RPC version 2, program, version */
	if (len < 24 || get_unaligned_be32(req + 8) ||
	    get_unaligned_be32(req + 12) != 2)
		return 0;
	prog = get_unaligned_be32(req + 16);
	vers = get_unaligned_be32(req + 20);
	memcpy(buf + 4, req + 4, 4);
	/* REPLY, MSG_ACCEPTED, AUTH_NONE verifier */
	memcpy(buf + 8, "\0\0\0\x01\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	if (prog != 100000) {
		put_unaligned_be32(1, buf + 24);		/* PROG_UNAVAIL */
	} else if (vers < 2 || vers > 4) {
		put_unaligned_be32(2, buf + 24);		/* PROG_MISMATCH */
		put_unaligned_be32(2, buf + 28);
		put_unaligned_be32(4, buf + 32);
		n += 8;
	} else {
		put_unaligned_be32(0, buf + 24);		/* SUCCESS */
	}
	put_unaligned_be32(BIT(31) | (n - 4), buf);
	return n;
}

/*
 * The endpoint mapper's answer to what it cannot parse: a bind_nak
 * (reason: not specified) with the call id it read, in the request's byte
 * order (its data representation's first byte), written in ours,
 * little-endian.
 */
static unsigned int nf_chaos_msrpc(struct net *net, char *buf, const u8 *req,
				   unsigned int len)
{
	if (len < 16)
		return 0;
	memcpy(buf, "\x05\0\x0d\x03\x10\0\0\0\x18\0\0\0", 12);
	put_unaligned_le32(req[4] & 0x10 ? get_unaligned_le32(req + 12) :
			   get_unaligned_be32(req + 12), buf + 12);
	memcpy(buf + 16, "\x04\0\x01\x05\0\0\0\0", 8);
	return 24;
}

/*
 * Samba: a positive NetBIOS session response; to an SMB1 negotiate, since
 * SMB1 is off by default, "no dialect" (0xffff), with the request's TID,
 * PID, UID and MID.
 */
static unsigned int nf_chaos_smb(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	if (req[0] == 0x81)
		return NF_CHAOS_PUT(buf, "\x82\0\0\0");
	if (len < 36 || memcmp(req + 4, "\xffSMBr", 5))
		return 0;
	memcpy(buf, "\0\0\0\x25\xffSMBr\0\0\0\0\x88\x01\xc8", 16);
	memset(buf + 16, 0, 12);
	memcpy(buf + 28, req + 28, 8);
	memcpy(buf + 36, "\x01\xff\xff\0\0", 5);
	return 41;
}

/* xrdp's X.224 Connection Confirm to a Connection Request. */
static unsigned int nf_chaos_rdp(struct net *net, char *buf, const u8 *req,
				 unsigned int len)
{
	if (len < 6 || req[0] != 3 || (req[5] & 0xf0) != 0xe0)
		return 0;
	return NF_CHAOS_PUT(buf, "\x03\0\0\x0b\x06\xd0\0\0\0\0\0");
}

/* Redis: INFO's server section, PING's PONG, an error to the rest. */
static unsigned int nf_chaos_redis(struct net *net, char *buf, const u8 *req,
				   unsigned int len)
{
	const char *cmd = (const char *)req;
	char info[80];
	unsigned int n;

	if (strnstr(cmd, "PING", len) || strnstr(cmd, "ping", len))
		return NF_CHAOS_PUT(buf, "+PONG\r\n");
	if (!strnstr(cmd, "INFO", len) && !strnstr(cmd, "info", len))
		return NF_CHAOS_PUT(buf, "-ERR unknown command\r\n");
	n = scnprintf(info, sizeof(info), "# Server\r\nredis_version:%s\r\n",
		      nf_chaos_version(net, NF_CHAOS_V_REDIS));
	return scnprintf(buf, NF_CHAOS_BANNER_MAX, "$%u\r\n%s\r\n", n, info);
}

/* PostgreSQL: no SSL (Debian's has, but we cannot forge its handshake). */
static unsigned int nf_chaos_postgres(struct net *net, char *buf,
				      const u8 *req, unsigned int len)
{
	unsigned int n;

	if (len >= 8 && !memcmp(req, "\0\0\0\x08\x04\xd2\x16\x2f", 8))
		return NF_CHAOS_PUT(buf, "N");
	if (len < 8)
		return 0;
	n = scnprintf(buf + 5, NF_CHAOS_BANNER_MAX - 5,
		      "SFATAL%cC0A000%cMunsupported frontend protocol %u.%u: server supports 3.0 to 3.0%cFpostmaster.c%cRProcessStartupPacket%c",
		      0, 0, get_unaligned_be16(req + 4),
		      get_unaligned_be16(req + 6), 0, 0, 0) + 1;
	buf[0] = 'E';
	put_unaligned_be32(n + 4, buf + 1);
	return n + 5;
}

typedef unsigned int (*nf_chaos_answer_fn)(struct net *net, char *buf,
					   const u8 *req, unsigned int len);

static const nf_chaos_answer_fn nf_chaos_answers[NF_CHAOS_SERVICES] = {
	[NF_CHAOS_SSH]		= nf_chaos_ssh,
	[NF_CHAOS_SMTP]		= nf_chaos_smtp,
	[NF_CHAOS_FTP]		= nf_chaos_ftp,
	[NF_CHAOS_POP3]		= nf_chaos_pop3,
	[NF_CHAOS_IMAP]		= nf_chaos_imap,
	[NF_CHAOS_TELNET]	= nf_chaos_telnet,
	[NF_CHAOS_MYSQL]	= nf_chaos_mysql,
	[NF_CHAOS_VNC]		= nf_chaos_vnc,
	[NF_CHAOS_PPTP]		= nf_chaos_pptp,
	[NF_CHAOS_HTTP]		= nf_chaos_http,
	[NF_CHAOS_HTTPS]	= nf_chaos_https,
	[NF_CHAOS_TLS]		= nf_chaos_tls,
	[NF_CHAOS_DNS]		= nf_chaos_dns,
	[NF_CHAOS_RPCBIND]	= nf_chaos_rpcbind,
	[NF_CHAOS_MSRPC]	= nf_chaos_msrpc,
	[NF_CHAOS_SMB]		= nf_chaos_smb,
	[NF_CHAOS_RDP]		= nf_chaos_rdp,
	[NF_CHAOS_REDIS]	= nf_chaos_redis,
	[NF_CHAOS_POSTGRES]	= nf_chaos_postgres,
};

/*
 * Fill @buf with the answer of @port's service, by the netns's key set
 * @keys; returns its length, 0 to stay silent.
 */
unsigned int nf_chaos_banner(struct net *net, const struct nf_chaos_keys *keys,
			     char *buf, __be16 port, const u8 *req,
			     unsigned int len)
{
	enum nf_chaos_service service = nf_chaos_service(keys, port);
	unsigned int n;

	/* A server that answers requests waits for one. */
	if (service >= NF_CHAOS_REQUEST && !len)
		return 0;
	rcu_read_lock();
	n = nf_chaos_answers[service](net, buf, req, len);
	rcu_read_unlock();
	return n;
}
