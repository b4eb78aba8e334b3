/*
 * sbximg.h: the image cache, a project's pulled images saved by sbx-watch
 * at teardown, loaded into the project's next sandbox by sbx-run, evicted
 * by sbx-gc.  imgcache.c: the root and its entries; imgmeta.c: an entry's
 * meta and the references it may hold; imglru.c: the budget.  The lock of
 * a load is the state directory's (SBX_IMGLOAD_LOCK, sbxstate.h).
 */
#ifndef SBXIMG_H
#define SBXIMG_H

#include <stddef.h>

#define SBX_IMG_REFS_MAX	64	/* references per entry */
#define SBX_IMG_REF_MAX		255	/* bytes of one */
#define SBX_IMG_STORE_MAX	64	/* bytes of a store driver's name */
#define SBX_IMG_NAME_MAX	48	/* an entry's name, "DEV-INO" */
#define SBX_IMG_STALE		0x1	/* sbx_img_evict: gone workspaces too */
#define SBX_IMG_DRY		0x2	/* only say what would go */
struct sbx_imgmeta {
	char	 workspace[4096];
	char	 store[SBX_IMG_STORE_MAX + 1];
	long long size, saved, used;	/* bytes; Unix seconds */
	size_t	 nrefs;
	char	 refs[SBX_IMG_REFS_MAX][SBX_IMG_REF_MAX + 1];
};
struct stat;			/* <sys/stat.h>: the workspace's identity */

/* imgcache.c: the cache's root, an entry and its files */
int	 sbx_img_open(const char *, int, char *, size_t);
void	 sbx_img_name(char *, size_t, const struct stat *);
int	 sbx_img_entry(int, const char *, int);
int	 sbx_img_file(int, const char *, int);
int	 sbx_img_drop(int, const char *);
int	 sbx_img_lock(int);
int	 sbx_img_same(int, const char *, int);
int	 sbx_img_fresh(int, const char *, char *, size_t);
void	 sbx_img_fillname(char *, size_t, const char *, long);
int	 sbx_img_aside(const char *);
void	 sbx_img_abandon(int, const char *);
int	 sbx_img_commit(int, const char *, const char *);

/* imgmeta.c: an entry's meta; references and image IDs */
int	 sbx_img_ref_valid(const char *, size_t);
int	 sbx_img_id_valid(const char *, size_t);
int	 sbx_img_meta_read(int, struct sbx_imgmeta *);
int	 sbx_img_meta_write(int, const struct sbx_imgmeta *);
int	 sbx_img_current(const struct sbx_imgmeta *, const char *);

/* imglru.c: evict the least recently used until the budget holds */
int	 sbx_img_evict(int, long long, const char *, unsigned,
	    void (*)(const char *, long long, const char *));

#endif /* SBXIMG_H */
