/*
 * imgcheck: imgcheck() of sbx-run/imgcheck.c on one file, for the
 * imgcheck suite: prints "ok", or "refused: WHY" and exits 1.  With -w,
 * imgwrite()s the archive docker would load to stdout instead of "ok";
 * -x runs a shell command between the check and the write (one that
 * changes the file, as someone with the cache in reach could).
 *   imgcheck [-w] [-x command] [-l limit] file
 */
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"
#include "../../sbx-run/sbx-run.h"

static void SBX_DEAD
usage(void)
{
	(void)fprintf(stderr, "usage: imgcheck [-w] [-x command] [-l limit] file\n");
	exit(SBX_EX_USAGE);
}

int
main(int argc, char *argv[])
{
	struct img_archive a;
	char why[512];
	const char *errstr, *between = NULL;
	long long limit = -1;
	off_t off;
	int c, fd, rc, wflag = 0;

	while ((c = getopt(argc, argv, "l:wx:")) != -1) {
		switch (c) {
		case 'x':
			between = optarg;
			break;
		case 'w':
			wflag = 1;
			break;
		case 'l':
			limit = sbx_strtonum(optarg, 0, 1LL << 62, &errstr);
			if (errstr != NULL)
				errx(SBX_EX_USAGE, "limit %s: %s", optarg, errstr);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	if ((fd = open(argv[0], O_RDONLY)) == -1)
		err(SBX_EX_FAIL, "%s", argv[0]);
	if (wflag) {
		if ((rc = imgcheck_scan(fd, limit, &a, why, sizeof(why))) == -1)
			printf("refused: %s\n", why);
		else if (between != NULL && system(between) != 0)
			errx(SBX_EX_FAIL, "%s failed", between);
		else if (imgwrite(fd, &a, STDOUT_FILENO) == -1)
			err(SBX_EX_FAIL, "img_write");	/* the suite greps this */
		else
			free(a.m);
	} else if ((rc = imgcheck(fd, limit, why, sizeof(why))) == 0)
		printf("ok\n");
	else
		printf("refused: %s\n", why);
	/* the caller hands fd on as docker load's stdin */
	if ((off = lseek(fd, 0, SEEK_CUR)) != 0 && off != -1)
		errx(SBX_EX_FAIL, "imgcheck moved the file offset");
	return sbx_io_fshut() == 0 && rc == 0 ? 0 : 1;
}
