/* sbx-run.h: what the files of sbx-run share. */
#ifndef SBX_RUN_H
#define SBX_RUN_H

struct run {
	const char	*name;		/* the sandbox */
	const char	*workspace;	/* -w, or NULL for the cwd */
	char		 sbx[4096];	/* the sbx CLI, absolute */
	char		**env;		/* for the sbx child */
	int		 timeout;	/* seconds for the exec; 0: none */
	int		 calltimeout;	/* seconds for ls and create; 0: none */
	int		 given;		/* -t or DOCKER_SANDBOX_TIMEOUT was set */
	pid_t		 session;	/* our parent when we started */
	char		 before[4096];	/* NAME.created before the exec, or "" */
	char		 wsmark[4096];	/* the workspace NAME.created names */
	char		 wscall[4096];	/* the one this call would mount */
	char		*ws[3];		/* those of them known; NULL-ended */
	char		 mark[SBX_MARK_LEN + 1];	/* of this run's exec */
	char		**inner;	/* ends it in its container, or NULL */
	const char	*container;	/* that container (or service) */
	int		 prewarm;	/* -P's provisioning: its parent holds the lock */
};

/* What a held exec's stderr was: the command's, or sbx's answer of... */
#define SAID_OWN	0
#define SAID_ABSENT	1	/* ...no such sandbox */
#define SAID_RACE	2	/* ...the daemon start race it lost */

/* Provisioning's answer: run the command again, or return what it said. */
#define PROV_KEEP	0
#define PROV_RETRY	1

/* dockerargs.c */
void	 check_docker_args(char *const *);
int	 long_running(char *const *);
int	 subcommand_in(char *const *, const char *const *);
int	 inner_exec(char *const *, int *, int *, const char **);

/* ending.c */
char	**inner_words(char *const *, int *);
void	 end_inside(const struct run *, const char *);

/* sbx-run.c */
int	 run_exec(const struct run *, char **, int, int *, struct sbx_buf *);

/* race.c */
int	 run_first(struct run *, char **, int, int *, struct sbx_buf *);

/* provision.c */
void	 provision_snapshot(struct run *);
int	 provision(const struct run *);
int	 provision_lock(const struct run *, int, const char *);

/* imgload.c: the image cache's load after a create, and the wait for it */
void	 img_argv(char *const *, int);
void	 img_wait(const struct run *);
void	 img_load(const struct run *, int, const char *);

/* prewarm.c */
int	 prewarm(struct run *, char **, int);
void	 prewarm_await(const struct run *);
void	 prewarm_report(const struct run *, int);

/* orphan.c */
struct stale {			/* NAME.owner before the create, if dead then */
	int	 dead;
	pid_t	 pid;
	unsigned long long start;
};
int	 session_ended(const struct run *);
void	 stale_read(const struct run *, int, struct stale *);
int	 orphaned(const struct run *, int, const struct stale *);
void SBX_DEAD withdraw(const struct run *, int, int);

/* imgcheck.c, imgjson.c */
int	 img_check(int, long long, char *, size_t);
const char *img_names(const char *, size_t);

/* journal.c */
extern unsigned long long journal_bytes;	/* output of the last exec */
extern int journal_timeout;	/* its bound in seconds; 0: none */
void	 journal_begin(void);
void	 journal_add(const char *, char *const *, int, int);
int	 journal_print(const char *, long long);

/* workspace.c */
int	 workspace_check(const struct run *, const char *, char *, char *,
	    size_t);
void	 prime_dir(int, const char *, const char *, int *);
void	 session_workspaces(struct run *);

#endif
