/*
 * json.c: a small JSON reader for sbx's and docker's output: a tree of
 * nodes, strings decoded, numbers kept as text.  Bounded in depth and
 * size; a NUL inside a string is refused, as callers use C strings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "sbxjson.h"

#define JSON_DEPTH	64

struct parser {
	const char	*p;
	const char	*end;
	const char	*err;
};

static struct sbx_json *value(struct parser *, int);

static void
skipws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
	    *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static struct sbx_json *
node(struct parser *ps, enum sbx_jtype type)
{
	struct sbx_json *j;

	if ((j = calloc(1, sizeof(*j))) == NULL)
		ps->err = "out of memory";
	else
		j->type = type;
	return j;
}

static int
hex4(struct parser *ps, unsigned *u)
{
	int i, c;

	*u = 0;
	if (ps->end - ps->p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		c = (unsigned char)*ps->p++;
		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static int
utf8(struct sbx_buf *b, unsigned u)
{
	unsigned char o[4];
	size_t n;

	if (u < 0x80) {
		o[0] = (unsigned char)u;
		n = 1;
	} else if (u < 0x800) {
		o[0] = (unsigned char)(0xc0 | u >> 6);
		o[1] = (unsigned char)(0x80 | (u & 0x3f));
		n = 2;
	} else if (u < 0x10000) {
		o[0] = (unsigned char)(0xe0 | u >> 12);
		o[1] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (u & 0x3f));
		n = 3;
	} else {
		o[0] = (unsigned char)(0xf0 | u >> 18);
		o[1] = (unsigned char)(0x80 | (u >> 12 & 0x3f));
		o[2] = (unsigned char)(0x80 | (u >> 6 & 0x3f));
		o[3] = (unsigned char)(0x80 | (u & 0x3f));
		n = 4;
	}
	return sbx_io_buf_add(b, o, n);
}

static char *
string(struct parser *ps, size_t *lenp)
{
	struct sbx_buf b = { NULL, 0, 0 };
	const char *run;
	unsigned u, lo;

	if (sbx_io_buf_add(&b, "", 0) == -1)
		goto nomem;
	for (;;) {
		for (run = ps->p; ps->p < ps->end && *ps->p != '"' &&
		    *ps->p != '\\' && (unsigned char)*ps->p >= 0x20; ps->p++)
			;
		if (sbx_io_buf_add(&b, run, (size_t)(ps->p - run)) == -1)
			goto nomem;
		if (ps->p >= ps->end || (unsigned char)*ps->p < 0x20)
			goto bad;
		if (*ps->p++ == '"')
			break;
		if (ps->p >= ps->end)
			goto bad;
		switch (*ps->p++) {
		case '"': case '\\': case '/':
			if (sbx_io_buf_add(&b, ps->p - 1, 1) == -1)
				goto nomem;
			continue;
		case 'b': u = '\b'; break;
		case 'f': u = '\f'; break;
		case 'n': u = '\n'; break;
		case 'r': u = '\r'; break;
		case 't': u = '\t'; break;
		case 'u':
			if (hex4(ps, &u) == -1)
				goto bad;
			if (u >= 0xd800 && u <= 0xdbff) {
				if (ps->end - ps->p < 6 || ps->p[0] != '\\' ||
				    ps->p[1] != 'u')
					goto bad;
				ps->p += 2;
				if (hex4(ps, &lo) == -1 || lo < 0xdc00 ||
				    lo > 0xdfff)
					goto bad;
				u = 0x10000 + ((u - 0xd800) << 10) +
				    (lo - 0xdc00);
			} else if (u >= 0xdc00 && u <= 0xdfff)
				goto bad;
			if (u == 0)
				goto bad;	/* NUL would cut the C string */
			break;
		default:
			goto bad;
		}
		if (utf8(&b, u) == -1)
			goto nomem;
	}
	*lenp = b.len;
	return b.data;
nomem:
	ps->err = "out of memory";
	sbx_io_buf_free(&b);
	return NULL;
bad:
	ps->err = "bad string";
	sbx_io_buf_free(&b);
	return NULL;
}

static struct sbx_json *
number(struct parser *ps)
{
	const char *s = ps->p;
	struct sbx_json *j;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
		goto bad;
	if (*ps->p == '0')
		ps->p++;
	else
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			goto bad;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			goto bad;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			ps->p++;
	}
	if ((j = node(ps, SBX_JNUM)) == NULL)
		return NULL;
	j->len = (size_t)(ps->p - s);
	if ((j->str = strndup(s, j->len)) == NULL) {
		ps->err = "out of memory";
		free(j);
		return NULL;
	}
	return j;
bad:
	ps->err = "bad number";
	return NULL;
}

static int
literal(struct parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0) {
		ps->err = "unexpected character";
		return -1;
	}
	ps->p += n;
	return 0;
}

static struct sbx_json *
container(struct parser *ps, int depth, int isobj)
{
	struct sbx_json *j, *v, **tail;
	char *key = NULL;
	size_t klen;

	if (depth >= JSON_DEPTH) {
		ps->err = "nested too deeply";
		return NULL;
	}
	if ((j = node(ps, isobj ? SBX_JOBJ : SBX_JARR)) == NULL)
		return NULL;
	tail = &j->child;
	skipws(ps);
	if (ps->p < ps->end && *ps->p == (isobj ? '}' : ']')) {
		ps->p++;
		return j;
	}
	for (;;) {
		skipws(ps);
		if (isobj) {
			if (ps->p >= ps->end || *ps->p != '"') {
				ps->err = "expected a member name";
				goto fail;
			}
			ps->p++;
			if ((key = string(ps, &klen)) == NULL)
				goto fail;
			skipws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				ps->err = "expected ':'";
				goto fail;
			}
			ps->p++;
		}
		if ((v = value(ps, depth + 1)) == NULL)
			goto fail;
		v->key = key;
		key = NULL;
		*tail = v;
		tail = &v->next;
		skipws(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == (isobj ? '}' : ']')) {
			ps->p++;
			return j;
		}
		ps->err = isobj ? "expected ',' or '}'" : "expected ',' or ']'";
		goto fail;
	}
fail:
	free(key);
	sbx_json_free(j);
	return NULL;
}

static struct sbx_json *
value(struct parser *ps, int depth)
{
	struct sbx_json *j;
	int istrue;

	skipws(ps);
	if (ps->p >= ps->end) {
		ps->err = "unexpected end";
		return NULL;
	}
	switch (*ps->p) {
	case '{':
	case '[':
		return container(ps, depth, *ps->p++ == '{');
	case '"':
		ps->p++;
		if ((j = node(ps, SBX_JSTR)) == NULL)
			return NULL;
		if ((j->str = string(ps, &j->len)) == NULL) {
			free(j);
			return NULL;
		}
		return j;
	case 't':
	case 'f':
		istrue = *ps->p == 't';
		if (literal(ps, istrue ? "true" : "false") == -1)
			return NULL;
		if ((j = node(ps, SBX_JBOOL)) != NULL)
			j->boolean = istrue;
		return j;
	case 'n':
		if (literal(ps, "null") == -1)
			return NULL;
		return node(ps, SBX_JNULL);
	default:
		return number(ps);
	}
}

/* Exactly one JSON value in buf; the tree, or NULL with *errstr. */
struct sbx_json *
sbx_json_parse(const char *buf, size_t len, const char **errstr)
{
	struct parser ps;
	struct sbx_json *j;

	ps.p = buf;
	ps.end = buf + len;
	ps.err = NULL;
	if ((j = value(&ps, 0)) != NULL) {
		skipws(&ps);
		if (ps.p != ps.end) {
			ps.err = "trailing data";
			sbx_json_free(j);
			j = NULL;
		}
	}
	if (errstr != NULL)
		*errstr = j != NULL ? NULL : ps.err ? ps.err : "invalid";
	return j;
}

void
sbx_json_free(struct sbx_json *j)
{
	struct sbx_json *next;

	for (; j != NULL; j = next) {
		next = j->next;
		sbx_json_free(j->child);
		free(j->key);
		free(j->str);
		free(j);
	}
}

const struct sbx_json *
sbx_json_get(const struct sbx_json *o, const char *key)
{
	const struct sbx_json *m;

	if (o == NULL || o->type != SBX_JOBJ)
		return NULL;
	for (m = o->child; m != NULL; m = m->next)
		if (strcmp(m->key, key) == 0)
			return m;
	return NULL;
}

const char *
sbx_json_str(const struct sbx_json *o, const char *key)
{
	const struct sbx_json *m;

	if ((m = sbx_json_get(o, key)) == NULL || m->type != SBX_JSTR)
		return NULL;
	return m->str;
}

#define DOC_TRIES	16	/* candidate lines tried before giving up */

/*
 * The one JSON document in output with sbx's notices around it: the first
 * line starting with '{' or '[' that parses and ends a line.  The tree,
 * or NULL with the first candidate's fault in *errstr.
 */
struct sbx_json *
sbx_json_doc(const char *buf, size_t len, const char **errstr)
{
	size_t start, end;

	return sbx_json_span(buf, len, &start, &end, errstr);
}

/* sbx_json_doc, saying where it is: bytes *start to *end. */
struct sbx_json *
sbx_json_span(const char *buf, size_t len, size_t *start, size_t *end,
    const char **errstr)
{
	struct parser ps;
	struct sbx_json *j;
	const char *first = NULL;
	size_t i;
	int tries = 0;

	for (i = 0; i < len && tries < DOC_TRIES; i++) {
		if ((i != 0 && buf[i - 1] != '\n') ||
		    (buf[i] != '{' && buf[i] != '['))
			continue;
		tries++;
		ps.p = buf + i;
		ps.end = buf + len;
		ps.err = NULL;
		if ((j = value(&ps, 0)) != NULL) {
			while (ps.p < ps.end && (*ps.p == ' ' ||
			    *ps.p == '\t' || *ps.p == '\r'))
				ps.p++;
			if (ps.p == ps.end || *ps.p == '\n') {
				*start = i;
				*end = (size_t)(ps.p - buf);
				*errstr = NULL;
				return j;
			}
			sbx_json_free(j);
			ps.err = "trailing data";
		}
		if (first == NULL)
			first = ps.err != NULL ? ps.err : "invalid";
	}
	*errstr = first != NULL ? first : "no JSON in the output";
	return NULL;
}
