# shellcheck shell=bash
# sbx simulator, profiles: the sbx release imitated (SBX_SIM_PROFILE,
# README.md "Profiles"): its version, the words of its errors and of a
# missing sandbox, which port verbs it has (SBX_SIM_DIALECT), and `sbx
# version`.  Sourced first: a bad profile ends the call before anything.

# One profile per sbx era (README.md, "Profiles"); the newest by default.
case ${SBX_SIM_PROFILE:-0.55} in
0.46) SBX_VERSION="v0.46.0 5e2b8c0d9a41f37e6b1c2d4e8f90a1b2c3d4e5f6" ;;
0.47) SBX_VERSION="v0.47.0 7c1d3e5f9a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d" ;;
0.55) SBX_VERSION="v0.55.0 3a5c7e9b1d2f4a6c8e0b2d4f6a8c0e1b3d5f7a9c" ;;
*)
	printf 'sbx-sim: SBX_SIM_PROFILE must be 0.46, 0.47 or 0.55, not %s\n' \
	    "$SBX_SIM_PROFILE" >&2
	exit 1
	;;
esac

# profile_ge VER: the simulated sbx is at least VER (0.46, 0.47, 0.55:
# each 0. and two digits, so their digits compare as numbers)
profile_ge() {
	local want=${1//./} have=${SBX_SIM_PROFILE:-0.55}
	have=${have//./}
	((10#$have >= 10#$want))
}

err_word() {	# the word sbx starts an error line with
	if profile_ge 0.47; then printf error; else printf ERROR; fi
}


no_such() {	# no_such name [verb]: sbx's answer for a missing sandbox, exit 1
	# novel-words, a test-only fault with no real source: words no
	# program knows, so sbx-verify -S can be shown to FAIL where they do
	if fault_on novel-words; then
		printf 'error: there is nothing called %s here\n' "$1" >&2
		exit 1
	fi
	[ "$WORDS" = vary ] && no_such_vary "$1"
	profile_ge 0.47 && sbx_error "sandbox '$1' not found" "sbx ls"
	case ${2:-exec} in
	rm | stop) printf "%sError: sandbox '%s' not found\n" "$SAY_PREFIX" "$1" >&2 ;;
	*) printf "%sERROR: no sandbox named '%s'\n\nTo create one:\n  sbx create AGENT WORKSPACE\n" "$SAY_PREFIX" "$1" >&2 ;;
	esac
	exit 1
}

# Which port verbs this sbx has (README "Ports"): up to 0.47 `ports`
# alone (HURA measured it; no source shows the group that early); 0.55
# the `port` group of the newest docs (D-port), with `ports` an alias of
# the group (the default: it defeats a caller that waits for `unknown
# command "ports"`) or gone.  SBX_SIM_DIALECT: alias, gone (or port),
# ports, both.
dialect_has() {	# dialect_has ports|port|alias
	local want=${SBX_SIM_DIALECT:-}
	if [ -z "$want" ]; then
		if profile_ge 0.55; then want='alias'; else want='ports'; fi
	fi
	case $1/$want in
	ports/ports | ports/both | port/both | port/alias | port/gone | port/port) return 0 ;;
	alias/alias) return 0 ;;
	esac
	return 1
}

no_verb() {
	if [ "$WORDS" = vary ]; then
		VERB='' sbx_error "unknown command \"$1\" for \"sbx\""
	fi
	printf '%s: unknown command "%s" for "sbx"\nRun '"'"'sbx --help'"'"' for usage.\n' "$(err_word)" "$1" >&2
	exit 1
}

cmd_version() {
	local a
	for a in "$@"; do
		case $a in
		--json)
			if profile_ge 0.47; then
				printf '{"client":{"version":"%s"},"server":{"state":"running","version":"%s"}}\n' \
				    "${SBX_VERSION%% *}" "${SBX_VERSION%% *}"
			else
				printf '{"version":"%s","commit":"%s"}\n' "${SBX_VERSION%% *}" "${SBX_VERSION#* }"
			fi
			return 0
			;;
		-h | --help) echo "Usage: sbx version [--json]"; return 0 ;;
		*) sbx_error "unknown flag: $a" ;;
		esac
	done
	printf 'sbx version: %s\n' "$SBX_VERSION"
}
