// SPDX-License-Identifier: GPL-2.0
/*
 * Greetings (--banner): what a common service on the port would say to a
 * client that connected (@req empty) or sent @req first. The service and
 * its version depend on the destination port and on the netns's key
 * (nf_chaos_port_hash()), so repeated scans agree, and so do the
 * firewalls of an HA pair and a host after a reboot that share a key. A port that is not
 * in the table poses as one of the services that greet first, since those
 * are the ones a scanner names without sending anything.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "nf_chaos_internal.h"

enum nf_chaos_service {
	NF_CHAOS_SSH,
	NF_CHAOS_SMTP,
	NF_CHAOS_FTP,
	NF_CHAOS_POP3,
	NF_CHAOS_IMAP,
	NF_CHAOS_GREETERS,		/* the above greet first */
	NF_CHAOS_HTTP = NF_CHAOS_GREETERS,	/* answers a request */
	NF_CHAOS_TLS,			/* alerts on a ClientHello */
};

static const struct {
	u16 port;
	u8 service;
} nf_chaos_ports[] = {
	{ 21, NF_CHAOS_FTP },	{ 22, NF_CHAOS_SSH },	{ 25, NF_CHAOS_SMTP },
	{ 80, NF_CHAOS_HTTP },	{ 81, NF_CHAOS_HTTP },	{ 110, NF_CHAOS_POP3 },
	{ 143, NF_CHAOS_IMAP },	{ 222, NF_CHAOS_SSH },	{ 443, NF_CHAOS_TLS },
	{ 465, NF_CHAOS_TLS },	{ 587, NF_CHAOS_SMTP },	{ 993, NF_CHAOS_TLS },
	{ 995, NF_CHAOS_TLS },	{ 2121, NF_CHAOS_FTP },	{ 2222, NF_CHAOS_SSH },
	{ 2525, NF_CHAOS_SMTP }, { 8000, NF_CHAOS_HTTP }, { 8008, NF_CHAOS_HTTP },
	{ 8080, NF_CHAOS_HTTP }, { 8443, NF_CHAOS_TLS }, { 8888, NF_CHAOS_HTTP },
	{ 22222, NF_CHAOS_SSH },
};

#define NF_CHAOS_IMAP_CAPS \
	"* OK [CAPABILITY IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE IDLE LITERAL+ STARTTLS AUTH=PLAIN]"

/* Greetings; for HTTP the Server header; for TLS the alert. */
static const struct {
	u8 service;
	u8 len;
	const char *text;
} nf_chaos_banners[] = {
#define NF_CHAOS_TEXT(service, text) { service, sizeof(text) - 1, text }
	NF_CHAOS_TEXT(NF_CHAOS_SSH, "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_SSH, "SSH-2.0-OpenSSH_8.4p1 Debian-5+deb11u3\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_SSH, "SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13.5\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_SSH, "SSH-2.0-dropbear_2022.83\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_SMTP,
		      "220 mail.localdomain ESMTP Postfix (Debian/GNU)\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_SMTP, "220 mail.localdomain ESMTP Postfix\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_FTP, "220 (vsFTPd 3.0.3)\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_FTP, "220 (vsFTPd 3.0.5)\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_POP3, "+OK Dovecot ready.\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_POP3, "+OK Dovecot (Debian) ready.\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_IMAP, NF_CHAOS_IMAP_CAPS " Dovecot ready.\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_IMAP,
		      NF_CHAOS_IMAP_CAPS " Dovecot (Debian) ready.\r\n"),
	NF_CHAOS_TEXT(NF_CHAOS_HTTP, "nginx/1.22.1"),
	NF_CHAOS_TEXT(NF_CHAOS_HTTP, "Apache/2.4.62 (Debian)"),
	NF_CHAOS_TEXT(NF_CHAOS_HTTP, "lighttpd/1.4.69"),
	/* TLS 1.2 fatal handshake_failure */
	NF_CHAOS_TEXT(NF_CHAOS_TLS, "\x15\x03\x03\x00\x02\x02\x28"),
#undef NF_CHAOS_TEXT
};

/* "GET / ...", "HEAD /...": a method in capitals, a space, a path. */
static bool nf_chaos_http_request(const u8 *req, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len && req[i] >= 'A' && req[i] <= 'Z'; i++)
		;
	return i > 0 && i + 1 < len && req[i] == ' ' && req[i + 1] == '/';
}

/* Fill @buf with the greeting; returns its length, 0 to stay silent. */
unsigned int nf_chaos_banner(struct net *net, char *buf, __be16 port,
			     const u8 *req, unsigned int len)
{
	u32 hash, i, n = 0;
	int service = -1;

	hash = nf_chaos_port_hash(net, ntohs(port));

	for (i = 0; i < ARRAY_SIZE(nf_chaos_ports); i++)
		if (nf_chaos_ports[i].port == ntohs(port))
			service = nf_chaos_ports[i].service;
	if (service < 0)
		service = hash % NF_CHAOS_GREETERS;
	/* HTTP and TLS servers wait for the client. */
	if (service >= NF_CHAOS_GREETERS && !len)
		return 0;

	for (i = 0; i < ARRAY_SIZE(nf_chaos_banners); i++)
		n += nf_chaos_banners[i].service == service;
	n = (hash >> 16) % n;
	for (i = 0; i < ARRAY_SIZE(nf_chaos_banners); i++)
		if (nf_chaos_banners[i].service == service && !n--)
			break;

	if (service != NF_CHAOS_HTTP) {
		memcpy(buf, nf_chaos_banners[i].text, nf_chaos_banners[i].len);
		return nf_chaos_banners[i].len;
	}
	return scnprintf(buf, NF_CHAOS_BANNER_MAX,
			 "HTTP/1.1 %s\r\nServer: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
			 nf_chaos_http_request(req, len) ?
			 "404 Not Found" : "400 Bad Request",
			 nf_chaos_banners[i].text);
}
