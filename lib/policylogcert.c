/*
 * policylogcert.c: whether a failed call's output shows a container
 * refusing the certificate of the sandbox's proxy, which intercepts TLS
 * with a CA of its own that nested containers do not trust.
 */
#include <string.h>

#include "sbx.h"
#include "sbx-internal.h"
#include "sbxpolicy.h"

/* what each TLS stack says, in lower case: matched without case */
static const char *const phrases[] = {
	/* Go: docker pull, docker build */
	"x509: certificate signed by unknown authority",
	/* OpenSSL: curl, git, node, pip, ruby; 3.x spells self-signed */
	"unable to get local issuer certificate",
	"self-signed certificate in certificate chain",
	"self signed certificate in certificate chain",
	"certificate verify failed",
	/* Java */
	"unable to find valid certification path",
	/* GnuTLS: git, apt */
	"server certificate verification failed",
	"the certificate issuer is unknown",
	/* wget; rustls (cargo) */
	"unable to locally verify the issuer's authority",
	"invalid peer certificate: unknownissuer"
};

/* error codes (node, npm, python): matched as whole words */
static const char *const codes[] = {
	"SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
	"CERTIFICATE_VERIFY_FAILED"
};

static int
wordbyte(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_';
}

/* Whether s's len bytes (NULs among them) hold w exactly, a whole word. */
static int
code(const char *s, size_t len, const char *w)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n = strlen(w);

	for (i = 0; n <= len && i <= len - n; i++)
		if (memcmp(s + i, w, n) == 0 && (i == 0 || !wordbyte(u[i - 1])) &&
		    (i + n == len || !wordbyte(u[i + n])))
			return 1;
	return 0;
}

int
sbx_policylog_certhint(const char *out, size_t len)
{
	size_t i;

	if (out == NULL)
		return 0;
	for (i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
		if (sbx_line_find(out, len, phrases[i]) != -1)
			return 1;
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (code(out, len, codes[i]))
			return 1;
	return 0;
}

const char *
sbx_policylog_certadvice(void)
{
	return "a container refused the certificate of the sandbox's proxy, "
	    "which intercepts TLS with a CA of its own: give the container "
	    "the proxy variables (HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as "
	    "the sandbox has them) and trust that CA (copy the CA the sandbox "
	    "itself trusts into the image and add it to the image's trust "
	    "store), or pull and build through the sandbox's own docker, "
	    "which uses the proxy";
}
