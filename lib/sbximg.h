/*
 * sbximg.h: the image cache (sbx-tools(7), IMAGE CACHE), one entry per
 * project: sbx-watch saves it (sbx-watch/imgsave.c), sbx-run checks and
 * loads it (sbx-run/imgcheck.c, imgload.c), sbx-watch and sbx-gc evict
 * (imgevict.c).  imgcache.c: the root and its entries; imgmeta.c: an
 * entry's meta.  The lock of a load is the state directory's
 * (SBX_IMGLOAD_LOCK, sbxstate.h).
 */
#ifndef SBXIMG_H
#define SBXIMG_H

#include <stddef.h>

#define SBX_IMG_REFS_MAX	64	/* references per entry */
#define SBX_IMG_REF_MAX		255	/* bytes of one */
#define SBX_IMG_STORE_MAX	64	/* bytes of a store driver's name */
#define SBX_IMG_NAME_MAX	48	/* an entry's name, "DEV-INO" */
#define SBX_IMG_STALE		0x1	/* sbx_imgevict: gone workspaces too */
#define SBX_IMG_DRY		0x2	/* only say what would go */
#define SBX_IMG_SAY		0x4	/* say each on stdout (sbx-gc -n, -v) */
struct sbx_imgmeta {
	char	 workspace[4096];
	char	 store[SBX_IMG_STORE_MAX + 1];
	long long size, saved, used;	/* bytes; Unix seconds */
	size_t	 nrefs;
	char	 refs[SBX_IMG_REFS_MAX][SBX_IMG_REF_MAX + 1];
};
struct stat;			/* <sys/stat.h>: the workspace's identity */

/* imgcache.c: the cache's root, an entry and its files */
int	 sbx_imgcache_open(const char *, int, char *, size_t);
void	 sbx_imgcache_name(char *, size_t, const struct stat *);
int	 sbx_imgcache_isname(const char *);
int	 sbx_imgcache_entry(int, const char *, int);
int	 sbx_imgcache_file(int, const char *, int);
int	 sbx_imgcache_drop(int, const char *);
int	 sbx_imgcache_lock(int);
int	 sbx_imgcache_same(int, const char *, int);
int	 sbx_imgcache_fresh(int, const char *, char *, size_t);
void	 sbx_imgcache_fillname(char *, size_t, const char *, long);
int	 sbx_imgcache_aside(const char *);
void	 sbx_imgcache_abandon(int, const char *);
int	 sbx_imgcache_commit(int, const char *, const char *);

/* imgmeta.c: an entry's meta; references and image IDs */
int	 sbx_imgmeta_refvalid(const char *, size_t);
int	 sbx_imgmeta_idvalid(const char *, size_t);
int	 sbx_imgmeta_read(int, struct sbx_imgmeta *);
int	 sbx_imgmeta_write(int, const struct sbx_imgmeta *);
int	 sbx_imgmeta_current(const struct sbx_imgmeta *, const char *);

/* imgevict.c: evict the least recently used until the budget holds */
int	 sbx_imgevict(int, long long, const char *, unsigned);
void	 sbx_imgevict_sweep(unsigned);

#endif /* SBXIMG_H */
