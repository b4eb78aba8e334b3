/* result.h: a check's verdict and evidence, and the lines reporting them. */
#ifndef RESULT_H
#define RESULT_H

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define PRINTFLIKE(f, a)	__attribute__((__format__(__printf__, f, a)))
#else
#define PRINTFLIKE(f, a)
#endif

enum verdict { PASS, FAIL, SKIP };

struct result {
	const char	*name;
	enum verdict	 verdict;
	char		 evidence[1024];
};

void	 result_vsay(struct result *, enum verdict, const char *, va_list)
	    PRINTFLIKE(3, 0);
void	 result_say(struct result *, enum verdict, const char *, ...)
	    PRINTFLIKE(3, 4);
void	 result_append(char *, size_t, const char *, ...) PRINTFLIKE(3, 4);
void	 result_report(const struct result *, int, int, int);

#endif /* RESULT_H */
