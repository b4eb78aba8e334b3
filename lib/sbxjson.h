/* sbxjson.h: JSON in (json.c, for sbx and docker output) and out (jsonout.c) */
#ifndef SBXJSON_H
#define SBXJSON_H

#include <stddef.h>
#include <stdio.h>

/* json.c: a small reader for sbx and docker output */
enum sbx_jtype {
	SBX_JNULL, SBX_JBOOL, SBX_JNUM, SBX_JSTR, SBX_JARR, SBX_JOBJ
};
struct sbx_json {
	enum sbx_jtype	 type;
	char		*key;	/* member name inside an object */
	char		*str;	/* string value, or number text */
	size_t		 len;
	int		 boolean;
	struct sbx_json	*child;	/* first element or member */
	struct sbx_json	*next;
};
struct sbx_json *sbx_json_parse(const char *, size_t, const char **);
void	 sbx_json_free(struct sbx_json *);
const struct sbx_json *sbx_json_get(const struct sbx_json *, const char *);
const char *sbx_json_str(const struct sbx_json *, const char *);
struct sbx_json *sbx_json_doc(const char *, size_t, const char **);
struct sbx_json *sbx_json_span(const char *, size_t, size_t *, size_t *,
	    const char **);

/* jsonout.c: a JSON string into a buffer, or on a stream */
size_t	 sbx_jsonout_esc(char *, size_t, const char *, size_t *);
void	 sbx_jsonout_puts(FILE *, const char *);
void	 sbx_jsonout_putline(FILE *, const char *, size_t);

#endif /* SBXJSON_H */
