# shellcheck shell=bash
# sbx simulator, words: the lines sbx prints of its own, in the profile's
# shape (SBX_SIM_WORDS, SBX_SIM_SEED; README.md "Words"): the prefix and
# case of an error, its hints, the daemon's notices, what comes before
# and after an answer, a missing sandbox under `vary`.

# What sbx puts before its own errors: "[sbx] " for auto-start failures
# under the sbx-prefix fault (README.md, "Profiles").
SAY_PREFIX=

sbx_say() {	# sbx_say message [hint...]: one error in the profile's shape
	local m=$1
	shift
	w_errpre
	printf '%s%s\n' "$(w_prefix)" "$(w_case "$m")" >&2
	w_hints "$m" "$@"
}

sbx_error() {	# sbx_error message [hint...]: the real CLI's error, exit 1
	sbx_say "$@"
	exit 1
}

# SBX_SIM_WORDS=vary (README.md, "Words"): each line sbx prints of its
# own varies within what sbx has printed or plausibly would.  The
# choices are made once per call from SBX_SIM_SEED and the call's number
# in the root, so the same seed and the same calls print the same lines.
WORDS=exact
W_S=0
W_R=0
W_PREFIX=0 W_CASE=0 W_MISS=0 W_HINT=0 W_ERRPRE=0 W_PRE=0 W_PREFD=2
W_POST=0 W_POSTFD=2 W_NOTE=0 W_RESTART=0 W_VERS=0 W_RACEP=0 W_PROMPT=0
W_AUTO=0 W_PID=0
W_SAID=0 W_NOTED=0

w_rand() {	# w_rand N: W_R, the next number of this call's stream, in 0..N-1
	W_S=$((W_S * 6364136223846793005 + 1442695040888963407))
	W_R=$((((W_S >> 33) & 0x7fffffff) % $1))
}

words_init() {	# this call's choices, once the root is known
	local seed=${SBX_SIM_SEED:-0} n i
	case ${SBX_SIM_WORDS:-exact} in
	exact) return 0 ;;
	vary) ;;
	*) die 1 "sbx-sim: SBX_SIM_WORDS must be exact or vary, not $SBX_SIM_WORDS" ;;
	esac
	[[ $seed =~ ^[0-9]{1,18}$ ]] ||
	    die 1 "sbx-sim: SBX_SIM_SEED must be a number of at most 18 digits, not $seed"
	lock "$ROOT/words.lock"
	count_up n "$ROOT/words.n"
	unlock
	WORDS=vary
	W_S=$((10#$seed * 2654435761 + n * 40503 + 12345))
	for i in 1 2 3 4; do w_rand 2; done
	w_rand 8; W_PREFIX=$W_R
	w_rand 3; W_CASE=$W_R
	w_rand 6; W_MISS=$W_R
	w_rand 4; W_HINT=$W_R
	w_rand 4; W_ERRPRE=$W_R
	w_rand 8; W_PRE=$W_R
	w_rand 2; W_PREFD=$((W_R + 1))
	w_rand 6; W_POST=$W_R
	w_rand 2; W_POSTFD=$((W_R + 1))
	w_rand 2; W_NOTE=$W_R
	w_rand 3; W_RESTART=$W_R
	w_rand 3; W_VERS=$W_R
	w_rand 2; W_RACEP=$W_R
	w_rand 2; W_PROMPT=$W_R
	w_rand 2; W_AUTO=$W_R
	w_rand 30000; W_PID=$((W_R + 1000))
}

w_prefix() {	# the prefix of this call's error lines
	local p
	case $WORDS/$W_PREFIX in
	exact/* | vary/7) p="$(err_word): " ;;
	vary/0) p='ERROR: ' ;;
	vary/1) p='error: ' ;;
	vary/2) p='Error: ' ;;
	vary/3) p='[sbx] ERROR: ' ;;
	vary/4) p='[sbx] error: ' ;;
	vary/5) p='[sbx] ' ;;
	vary/6) p='' ;;
	esac
	printf '%s%s' "$SAY_PREFIX" "$p"
}

w_case() {	# w_case text: the first letter as this call writes it
	local t=$1
	case $WORDS/$W_CASE in
	vary/1) printf '%s' "${t^}" ;;
	vary/2) printf '%s' "${t,}" ;;
	*) printf '%s' "$t" ;;
	esac
}

# The daemon's start, as sbx says it when a call starts it: the form
# with its socket (#258, #347, #381: 0.33 to 0.37) or the older one
# (#201, 0.31.3).
w_notices() {	# w_notices fd form: 0 with the socket, 1 the older form
	local h=${HOME:-/root} pid=$((PPID + 2))
	((W_PID)) && pid=$W_PID
	h=$h/.local/state/sandboxes/sandboxes/sandboxd
	W_NOTED=1
	if [ "$2" = 0 ]; then
		printf 'Starting sandboxd daemon...\nDaemon started (PID: %d, socket: %s/sandboxd.sock)\nLogs: %s/daemon.log\n' \
		    "$pid" "$h" "$h" >&"$1"
	else
		printf 'Starting sandboxd daemon...\nDaemon started (PID %d)\nLogs: %s/daemon.log\n' \
		    "$pid" "$h" >&"$1"
	fi
}

# The client's and the daemon's versions, as an interactive restart
# prints them first (#381, 0.37.1), then a blank line.
w_versions() {	# w_versions fd
	local old
	case ${SBX_SIM_PROFILE:-0.55} in
	0.46) old=v0.45.0 ;;
	0.47) old=v0.46.0 ;;
	*) old=v0.54.0 ;;
	esac
	printf 'Client Version:  %s\nServer Version:  %s 9d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e\n\n' \
	    "$SBX_VERSION" "$old" >&"$1"
}

WARN_LINE='WARN: mcp gateway teardown: context deadline exceeded'

# Before the answer: when this call starts sbx's daemon (always the
# first of a root, else as the seed says), its notices; or a blank line.
w_pre() {	# w_pre first: first is 1 when this call starts the daemon
	local fd=$W_PREFD
	[ "$VERB" = exec ] && fd=2
	if [ "$1" = 1 ]; then
		w_notices "$fd" "$W_NOTE"
		return 0
	fi
	case $W_PRE in
	4) w_notices "$fd" 0 ;;
	5) w_notices "$fd" 1 ;;
	6) printf '\n' >&"$fd" ;;
	esac
	return 0
}

# After the answer: a WARN: line (#593), a blank line, or the notices
# (of a daemon that a call with no notice before started meanwhile).
# Never on exec's standard output, which is the command's.
w_post() {	# w_post status
	local fd=$W_POSTFD
	[ "$WORDS" = vary ] && (($1 < 128)) || return 0
	[ "$VERB" = exec ] && fd=2
	case $W_POST in
	3) printf '%s\n' "$WARN_LINE" >&"$fd" ;;
	4) printf '\n' >&"$fd" ;;
	5) ((W_NOTED)) || w_notices "$fd" "$W_NOTE" ;;
	esac
	return 0
}

# What comes before this call's first error line on stderr.
w_errpre() {
	((W_SAID)) && return 0
	W_SAID=1
	case $WORDS/$W_ERRPRE in
	vary/1) w_versions 2 ;;
	vary/2) printf '\n' >&2 ;;
	esac
	return 0
}

w_hints() {	# w_hints msg hint...: the hint lines this call prints
	local m=$1 h
	shift
	if [ "$WORDS" = exact ]; then
		profile_ge 0.47 || return 0
		for h in "$@"; do printf '  try: %s\n' "$h" >&2; done
		return 0
	fi
	case $m in
	unknown\ command* | unknown\ flag* | unknown\ shorthand*)
		((W_HINT % 2)) && printf "Run 'sbx %s--help' for usage.\\n" "${VERB:+$VERB }" >&2
		return 0
		;;
	esac
	case $W_HINT in
	1) for h in "$@"; do printf '  try: %s\n' "$h" >&2; done ;;
	3)
		(($#)) && printf '\n' >&2
		for h in "$@"; do printf '  try: %s\n' "$h" >&2; done
		;;
	esac
	return 0
}

no_such_vary() {	# no_such_vary name: a missing sandbox in this call's words
	local m
	case $W_MISS in
	0) m="sandbox '$1' not found" ;;
	1) m="no sandbox named '$1'" ;;
	2) m="sandbox \"$1\" not found" ;;
	3) m="no sandbox named \"$1\"" ;;
	4) m="sandbox $1 not found" ;;
	*) m="no sandbox named $1" ;;
	esac
	w_errpre
	printf '%s%s\n' "$(w_prefix)" "$(w_case "$m")" >&2
	case $W_HINT in
	1) printf '  try: sbx ls\n' >&2 ;;
	2) printf '\nTo create one:\n  sbx create AGENT WORKSPACE\n' >&2 ;;
	3) printf '\n  try: sbx ls\n' >&2 ;;
	esac
	exit 1
}
