/* sbx-run.h: what the files of sbx-run share. */

struct run {
	const char	*name;		/* the sandbox */
	const char	*workspace;	/* -w, or NULL for the cwd */
	char		 sbx[4096];	/* the sbx CLI, absolute */
	char		**env;		/* for the sbx child */
	int		 timeout;	/* seconds for the exec; 0: none */
};

/* dockerargs.c */
void	 check_docker_args(char *const *);
int	 long_running(char *const *);

/* provision.c */
int	 provision(const struct run *);

/* journal.c */
extern unsigned long long journal_bytes;	/* output of the last exec */
void	 journal_begin(void);
void	 journal_add(const char *, char *const *, int, int);
int	 journal_print(const char *, long long);
