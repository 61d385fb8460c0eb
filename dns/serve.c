/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dns_serve: run mode's answerer (SPEC 6.6), bytes in, bytes out.
 *
 * A query for a name egress_judge_name admits gets, for type A, one A
 * record with the name's fake address; every other type an empty NOERROR
 * answer (AAAA included: the range is IPv4 only, and an empty AAAA makes
 * every resolver settle on the A record).  A name no rule admits gets
 * NXDOMAIN for every type.  The answer echoes the ID and the question
 * exactly as sent (resolvers randomise the case of names and compare),
 * copies RD and sets QR, AA and RA.
 *
 * Not parsed: the answer, authority and additional sections of a query.
 * An EDNS0 OPT record there is ignored and none is sent back (RFC 6891
 * 7: a client then takes the answer as plain DNS); every answer is under
 * 512 bytes, so the client's buffer size never matters.
 *
 * Hand-parsed on purpose: c-ares's ares_dns_record API is not in Debian
 * 12's c-ares 1.18, and a question is a few bytes to read.
 */
#include <string.h>

#include "dns/dns.h"

#define HDR_LEN		12
#define QR		0x80	/* in flags byte 2 */
#define OPCODE(b)	(((b) >> 3) & 0x0f)
#define AA		0x04
#define TC		0x02
#define RD		0x01
#define RA		0x80	/* in flags byte 3 */

#define RC_NOERROR	0
#define RC_FORMERR	1
#define RC_SERVFAIL	2
#define RC_NXDOMAIN	3
#define RC_NOTIMP	4

#define T_A		1
#define C_IN		1
#define WIRE_NAME_MAX	255	/* RFC 1035 2.3.4 */
#define A_RR_LEN	16	/* pointer 2, type 2, class 2, TTL 4, len 2, 4 */

/* The question of a query, as read. */
struct question {
	size_t		 len;		/* name, type and class on the wire */
	uint16_t	 qtype, qclass;
	char		 name[EGRESS_HOST_MAX + 1];	/* normalized */
};

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

int
dns_tcp_len(const uint8_t *p, size_t len)
{
	return len < 2 ? -1 : get16(p);
}

int
dns_tcp_put_len(uint8_t out[2], size_t len)
{
	if (len > DNS_TCP_MSG_MAX)
		return -1;
	put16(out, (uint16_t)len);
	return 0;
}

/* A byte a name may hold (SPEC 3.2; upper case is lowered later). */
static bool
name_byte(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * The question's name, from p (at most len bytes), as text into q->name;
 * its wire length into *wlen.  -1: malformed (a compression pointer or an
 * extended label type, past the end, over 255 bytes) or a byte no policy
 * name may hold (a '.' inside a label would change what the text means).
 */
static int
read_name(const uint8_t *p, size_t len, struct question *q, size_t *wlen)
{
	size_t off = 0, out = 0, l;

	for (;;) {
		if (off >= len || off >= WIRE_NAME_MAX)
			return -1;
		l = p[off++];
		if (l == 0)
			break;
		if (l & 0xc0)
			return -1;
		if (off + l > len || off + l >= WIRE_NAME_MAX ||
		    out + (out > 0) + l > EGRESS_HOST_MAX)
			return -1;
		if (out > 0)
			q->name[out++] = '.';
		for (; l > 0; l--, off++) {
			if (!name_byte(p[off]))
				return -1;
			q->name[out++] = (char)(p[off] >= 'A' &&
			    p[off] <= 'Z' ? p[off] - 'A' + 'a' : p[off]);
		}
	}
	q->name[out] = '\0';
	*wlen = off;
	return 0;
}

/*
 * The one question after the header.  -1: FORMERR.  The name is
 * normalized like a request's host (lower case; it holds no trailing dot).
 */
static int
read_question(const uint8_t *msg, size_t len, struct question *q)
{
	struct egress_target t;
	const char *err;
	size_t wlen;

	if (read_name(msg + HDR_LEN, len - HDR_LEN, q, &wlen) == -1 ||
	    len - HDR_LEN - wlen < 4)
		return -1;
	q->qtype = get16(msg + HDR_LEN + wlen);
	q->qclass = get16(msg + HDR_LEN + wlen + 2);
	q->len = wlen + 4;
	if (egress_host_parse(q->name, strlen(q->name), &t, &err) == -1)
		return -1;
	/* An address literal keeps its text: judged, it is refused. */
	if (!t.is_addr)
		memcpy(q->name, t.host, sizeof(q->name));
	return 0;
}

/*
 * The header of an answer to msg: ID and RD copied, QR, AA and RA set,
 * the counts given.  Needs HDR_LEN bytes of out; msg holds at least 2.
 */
static void
put_header(uint8_t *out, const uint8_t *msg, size_t len, uint8_t rcode,
    uint16_t qd, uint16_t an)
{
	memset(out, 0, HDR_LEN);
	out[0] = msg[0];
	out[1] = msg[1];
	out[2] = QR | AA | (len > 2 ? (msg[2] & RD) : 0);
	out[3] = RA | (rcode & 0x0f);
	put16(out + 4, qd);
	put16(out + 6, an);
}

static void
put_a(uint8_t *p, const struct egress_addr *a)
{
	uint32_t v4 = egress_addr_v4(a);

	put16(p, 0xc000 | HDR_LEN);	/* the question's name */
	put16(p + 2, T_A);
	put16(p + 4, C_IN);
	p[6] = (uint8_t)(DNS_FAKE_TTL >> 24);
	p[7] = (uint8_t)(DNS_FAKE_TTL >> 16);
	p[8] = (uint8_t)(DNS_FAKE_TTL >> 8);
	p[9] = (uint8_t)DNS_FAKE_TTL;
	put16(p + 10, 4);
	p[12] = (uint8_t)(v4 >> 24);
	p[13] = (uint8_t)(v4 >> 16);
	p[14] = (uint8_t)(v4 >> 8);
	p[15] = (uint8_t)v4;
}

/*
 * Write the answer: header, the question as sent (qlen bytes, 0 for
 * none), the A record when s->kind is DNS_SERVED_ADDR.  What does not fit
 * becomes TC with no records (and no question if even that does not fit);
 * not even a header: nothing is sent.
 */
static enum dns_served_kind
emit(const uint8_t *msg, size_t len, size_t qlen, uint8_t *out,
    size_t outlen, size_t *outused, struct dns_served *s)
{
	size_t an = s->kind == DNS_SERVED_ADDR ? A_RR_LEN : 0;

	s->truncated = false;
	if (outlen < HDR_LEN) {
		s->kind = DNS_SERVED_DROP;
		return s->kind;
	}
	if (HDR_LEN + qlen + an > outlen) {
		s->truncated = true;
		if (HDR_LEN + qlen > outlen)
			qlen = 0;
		an = 0;
	}
	put_header(out, msg, len, s->rcode, qlen > 0, an > 0);
	if (s->truncated)
		out[2] |= TC;
	memcpy(out + HDR_LEN, msg + HDR_LEN, qlen);
	if (an > 0)
		put_a(out + HDR_LEN + qlen, &s->addr);
	*outused = HDR_LEN + qlen + an;
	return s->kind;
}

/* Judge a well-formed question and fill s; the answer's rcode in s. */
static void
decide(struct dns_fake *f, const struct egress_policy *p,
    const struct question *q, struct dns_served *s)
{
	egress_judge_name(p, q->name, &s->verdict);
	if (s->verdict.decision == EGRESS_DENY) {
		s->kind = DNS_SERVED_REFUSED;
		s->rcode = RC_NXDOMAIN;
		return;
	}
	if (q->qtype != T_A || q->qclass != C_IN) {
		s->kind = DNS_SERVED_EMPTY;
		s->rcode = RC_NOERROR;
		return;
	}
	if (dns_fake_addr(f, q->name, &s->addr) == -1) {
		/* The range is used up: say so, never a wrong address. */
		s->kind = DNS_SERVED_ERROR;
		s->rcode = RC_SERVFAIL;
		return;
	}
	s->kind = DNS_SERVED_ADDR;
	s->rcode = RC_NOERROR;
}

enum dns_served_kind
dns_serve(struct dns_fake *f, const struct egress_policy *p,
    const uint8_t *msg, size_t len, uint8_t *out, size_t outlen,
    size_t *outused, struct dns_served *s)
{
	struct question q;

	memset(s, 0, sizeof(*s));
	*outused = 0;
	s->kind = DNS_SERVED_ERROR;
	/* Never answer an answer: two answerers would loop. */
	if (len < 2 || (len > 2 && (msg[2] & QR))) {
		s->kind = DNS_SERVED_DROP;
		return s->kind;
	}
	if (len < HDR_LEN) {
		s->rcode = RC_FORMERR;
		return emit(msg, len, 0, out, outlen, outused, s);
	}
	if (OPCODE(msg[2]) != 0) {
		s->rcode = RC_NOTIMP;
		return emit(msg, len, 0, out, outlen, outused, s);
	}
	if (get16(msg + 4) != 1 || read_question(msg, len, &q) == -1) {
		s->rcode = RC_FORMERR;
		return emit(msg, len, 0, out, outlen, outused, s);
	}
	memcpy(s->name, q.name, sizeof(s->name));
	s->qtype = q.qtype;
	decide(f, p, &q, s);
	return emit(msg, len, q.len, out, outlen, outused, s);
}
