#!/usr/bin/env bats
# img_check (sbx-run/imgcheck.c), the host's check of a cached image
# archive, through test/tools/imgcheck: every refusal with its reason, on
# archives test/tools/badtar writes (raw headers where one field is
# broken, Python's tarfile for PAX, GNU, links and devices), and what it
# accepts: plain archives and a real `docker save ID` of the simulator's
# daemon, whose `docker save NAME` twin is refused for its names.

load helper
load sim-setup

setup() {
	common_setup
	C="$TOP/test/tools/imgcheck"
	B="$TOP/test/tools/badtar"
	[ -x "$C" ] || fail "build test/tools/imgcheck first"
	command -v python3 >/dev/null || fail "python3 is needed"
}

teardown() {
	sim_test_teardown
	return 0
}

# refused CASE WORDS: badtar's CASE is refused, for a reason with WORDS
refused() {
	"$B" "$1" "$BATS_TEST_TMPDIR/$1.tar" || fail "badtar $1 failed"
	run "$C" "$BATS_TEST_TMPDIR/$1.tar"
	[ "$status" -eq 1 ] || fail "$1: status $status: $output"
	[[ "$output" == "refused: "*"$2"* ]] || fail "$1: $output"
}

accepted() {
	"$B" "$1" "$BATS_TEST_TMPDIR/$1.tar" || fail "badtar $1 failed"
	run "$C" "$BATS_TEST_TMPDIR/$1.tar"
	[ "$status" -eq 0 ] || fail "$1: status $status: $output"
	[ "$output" = ok ]
}

@test "imgcheck: every case badtar writes has a test here, and no test names a missing case" {
	local c n=0
	for c in $("$B" list); do
		grep -Eq "^@test .*\{ (refused|accepted) $c( |; \})" \
		    "$BATS_TEST_FILENAME" || fail "no test for $c"
		n=$((n + 1))
	done
	[ "$n" -ge 70 ]
	for c in $(sed -nE 's/^@test .*\{ (refused|accepted) ([a-zA-Z0-9-]+).*/\2/p' \
	    "$BATS_TEST_FILENAME"); do
		"$B" list | grep -qx "$c" || fail "badtar has no case $c"
	done
}

@test "imgcheck: the usage line; an unreadable file" {
	run "$C"
	[ "$status" -eq 64 ]
	[ "$output" = "usage: imgcheck [-l limit] file" ]
	run "$C" "$BATS_TEST_TMPDIR/nothing"
	[ "$status" -eq 1 ]
	[[ "$output" == *"No such file"* ]]
}

@test "imgcheck: a directory or a fifo is not a regular file" {
	run "$C" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[ "$output" = "refused: not a regular file" ]
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	exec 7<>"$BATS_TEST_TMPDIR/fifo"
	run "$C" "$BATS_TEST_TMPDIR/fifo"
	exec 7>&-
	[ "$status" -eq 1 ]
	[ "$output" = "refused: not a regular file" ]
}

# ------------------------------------------------------------ accepted

@test "accepted: docker 20.10's shape (layer dir, config, manifest with RepoTags null)" { accepted plain; }
@test "accepted: the GNU magic" { accepted plain-gnu-magic; }
@test "accepted: zero blocks after the end (a record's padding)" { accepted plain-zero-padded; }
@test "accepted: a 100-byte name with no NUL and no prefix" { accepted plain-100-byte-name; }
@test "accepted: RepoTags an empty array" { accepted plain-repotags-empty; }
@test "accepted: an OCI layout whose annotations name nothing" { accepted plain-oci; }
@test "accepted: docker's one link: a shared layer.tar to ../HEX/layer.tar" { accepted plain-shared-layer; }
@test "accepted: tarfile's PAX format with nothing to say in PAX" { accepted plain-tarfile-pax; }

@test "accepted: the size limit is inclusive; one byte less refuses" {
	"$B" plain "$BATS_TEST_TMPDIR/p.tar"
	size=$(wc -c <"$BATS_TEST_TMPDIR/p.tar")
	run -0 "$C" -l "$size" "$BATS_TEST_TMPDIR/p.tar"
	[ "$output" = ok ]
	run -1 "$C" -l "$((size - 1))" "$BATS_TEST_TMPDIR/p.tar"
	[ "$output" = "refused: larger than the cache's budget" ]
	run -1 "$C" -l 0 "$BATS_TEST_TMPDIR/p.tar"
	[ "$output" = "refused: larger than the cache's budget" ]
}

# ------------------------------------------------- names in manifest.json

@test "refused: RepoTags non-empty" { refused repotags 'RepoTags'; }
@test "refused: \"repotags\" (Go matches field names case-insensitively)" { refused repotags-lower 'RepoTags'; }
@test "refused: \"REPOTAGS\"" { refused repotags-upper 'RepoTags'; }
@test "refused: \"Repo\\u0054ags\" (escaped)" { refused repotags-escaped 'RepoTags'; }
@test "refused: \"RepoTag\\u017f\" (long s folds to s in Go)" { refused repotags-long-s 'RepoTags'; }
@test "refused: RepoTag + raw UTF-8 long s" { refused repotags-long-s-raw 'RepoTags'; }
@test "refused: a duplicated key whose last is non-empty" { refused repotags-dup-last 'RepoTags'; }
@test "refused: a duplicated key whose first is non-empty" { refused repotags-dup-first 'RepoTags'; }
@test "refused: RepoTags a string" { refused repotags-string 'RepoTags'; }
@test "refused: RepoTags deep in the tree" { refused repotags-deep 'RepoTags'; }
@test "refused: the repositories member" { refused repositories 'the repositories file'; }
@test "refused: a repositories directory" { refused repositories-dir 'the repositories file'; }
@test "refused: manifest.json not JSON" { refused manifest-not-json '"manifest.json": not JSON'; }
@test "refused: manifest.json with trailing data" { refused manifest-trailing '"manifest.json": not JSON'; }
@test "refused: a key with an escaped NUL" { refused manifest-nul-key '"manifest.json": not JSON'; }
@test "refused: manifest.json past 1 MiB" { refused manifest-big 'larger than 1 MiB'; }
@test "refused: manifest.json a directory" { refused manifest-dir '"manifest.json": not a file'; }

# ---------------------------------------------------- names in index.json

@test "refused: OCI index with io.containerd.image.name" { refused oci-containerd-name '"index.json": it names an image (a name annotation)'; }
@test "refused: OCI index with org.opencontainers.image.ref.name" { refused oci-ref-name '"index.json": it names an image (a name annotation)'; }
@test "refused: OCI index with ref.name escaped" { refused oci-ref-name-escaped 'a name annotation'; }
@test "refused: OCI index with image.name escaped" { refused oci-containerd-name-escaped 'a name annotation'; }
@test "refused: an annotation name as a value" { refused oci-name-as-value 'a name annotation'; }
@test "refused: a name annotation in manifest.json" { refused oci-name-in-manifest '"manifest.json": it names an image (a name annotation)'; }
@test "refused: index.json not JSON" { refused index-not-json '"index.json": not JSON'; }

# ---------------------------------------------------------- member names

@test "refused: ./manifest.json" { refused dot-manifest '"./manifest.json": a . or .. component'; }
@test "refused: a/../manifest.json" { refused dotdot-manifest '"a/../manifest.json": a . or .. component'; }
@test "refused: a member named .." { refused dotdot-only '"..": a . or .. component'; }
@test "refused: an absolute name" { refused absolute '"/etc/passwd": an absolute name'; }
@test "refused: an empty component" { refused empty-component '"abc//x": an empty name component'; }
@test "refused: an empty name" { refused empty-name '"": an empty name'; }
@test "refused: a control byte, shown as ?" { refused control-byte '"abc/a?b": a byte that is not printable ASCII'; }
@test "refused: a byte past ASCII" { refused high-byte 'not printable ASCII'; }
@test "refused: a duplicate member" { refused dup-member '"abc/layer.tar": a name that repeats'; }
@test "refused: manifest.json twice (docker would read the last)" { refused dup-manifest '"manifest.json": a name that repeats'; }
@test "refused: a directory twice, with and without its /" { refused dup-dir-slash '"abc": a name that repeats'; }
@test "refused: a file another name takes as a directory" { refused file-as-dir '"c0ffee.json": a file that another'; }
@test "refused: a type 0 file whose name ends in /" { refused file-trailing-slash 'a file name ending in /'; }
@test "refused: the ustar prefix used" { refused prefix-used '"manifest.json": the ustar name prefix is used'; }
@test "refused: a 100-byte name with a prefix (readers join them differently)" { refused prefix-100-byte-name 'the ustar name prefix is used'; }
@test "refused: a link name on a file" { refused link-name '"f": a link name'; }
@test "refused: a directory with data (Go would read its data as headers)" { refused dir-with-data '"abc": a directory with data'; }
@test "refused: a header without the ustar magic" { refused v7-magic 'not a ustar header'; }

# ----------------------------------------------------------- member types

@test "refused: a hard link" { refused hardlink "\"h\": member type '1'"; }
@test "refused: a symlink" { refused symlink '"s": a symbolic link other than'; }
@test "refused: a character device" { refused chardev "\"c\": member type '3'"; }
@test "refused: a block device" { refused blockdev "\"b\": member type '4'"; }
@test "refused: a fifo" { refused fifo "\"p\": member type '6'"; }
@test "refused: a contiguous file" { refused contiguous "\"k\": member type '7'"; }
@test "refused: a PAX x header" { refused pax-x "member type 'x'"; }
@test "refused: a PAX g header" { refused pax-g "member type 'g'"; }
@test "refused: a GNU L long name" { refused gnu-L "member type 'L'"; }
@test "refused: a GNU K long link" { refused gnu-K "member type 'K'"; }
@test "refused: a GNU sparse file" { refused gnu-sparse "\"sp\": member type 'S'"; }
@test "refused: a GNU volume header" { refused gnu-volume "\"vol\": member type 'V'"; }
@test "refused: a vendor type letter" { refused type-letter "\"A\": member type 'A'"; }

@test "refused: a link out of the archive" { refused link-elsewhere 'a symbolic link other than'; }
@test "refused: a link not named HEX/layer.tar" { refused link-not-layer '/json": a symbolic link other than'; }
@test "refused: a layer.tar link to itself" { refused link-to-self 'a symbolic link other than'; }
@test "refused: a link to a missing layer" { refused link-to-missing 'a link to no layer file'; }
@test "refused: a link to a link" { refused link-to-link 'a link to no layer file'; }
@test "refused: a link to a directory" { refused link-to-dir 'a link to no layer file'; }
@test "refused: a link with data" { refused link-with-data 'a link with data'; }
@test "refused: a member written through a link" { refused link-written-through '/layer.tar": a file that another member'; }

# -------------------------------------------------------------- the frame

@test "refused: a bad header checksum" { refused bad-checksum 'a bad header checksum'; }
@test "refused: a size with a non-octal byte" { refused size-not-octal '"f": a size field that is not octal'; }
@test "refused: a size with the digit 8" { refused size-digit-8 'not octal'; }
@test "refused: a base-256 size" { refused size-base256 'not octal'; }
@test "refused: a size of 12 digits, unterminated" { refused size-unterminated 'not octal'; }
@test "refused: an empty size field" { refused size-empty 'not octal'; }
@test "refused: a huge size" { refused size-huge '"f": its data runs past the end of the file'; }
@test "refused: data running past the file's end" { refused data-past-end '"f": its data runs past the end of the file'; }
@test "refused: no end of archive" { refused no-end 'a missing end of archive'; }
@test "refused: one zero block only" { refused one-zero-block 'a missing end of archive'; }
@test "refused: an empty file" { refused empty-file 'a missing end of archive'; }
@test "refused: an archive of no members" { refused only-end 'no members'; }
@test "refused: a header after the end" { refused trailing-garbage 'trailing data after the end of archive'; }
@test "refused: a header after one zero block" { refused trailing-header-after-one-zero 'trailing data after the end of archive'; }
@test "refused: a file that is not whole blocks" { refused not-whole-blocks 'a size that is not whole blocks'; }

@test "refused: every truncation of a plain archive" {
	local n size
	"$B" plain "$BATS_TEST_TMPDIR/p.tar"
	size=$(wc -c <"$BATS_TEST_TMPDIR/p.tar")
	for n in $(seq 0 512 $((size - 512))) 100 1023 $((size - 1)); do
		head -c "$n" "$BATS_TEST_TMPDIR/p.tar" >"$BATS_TEST_TMPDIR/cut.tar"
		run "$C" "$BATS_TEST_TMPDIR/cut.tar"
		[ "$status" -eq 1 ] || fail "cut at $n: $output"
	done
}

# ------------------------------------------------- the simulator's docker

@test "sim: docker save ID of an image and a child sharing its layer passes; docker save NAME of the same is refused" {
	sim_sandbox ic1 || return
	sbx-run -s "$SIM_SB" run --name ic1c busybox:local \
	    sh -c 'echo layer >/added' >/dev/null
	sbx-run -s "$SIM_SB" commit ic1c ic1:two >/dev/null
	base=$(sbx-run -s "$SIM_SB" image inspect -f '{{.Id}}' busybox:local)
	two=$(sbx-run -s "$SIM_SB" image inspect -f '{{.Id}}' ic1:two)
	[[ "$base" == sha256:* && "$two" == sha256:* ]]
	sbx-run -s "$SIM_SB" save "$base" "$two" >"$BATS_TEST_TMPDIR/ids.tar"
	sbx-run -s "$SIM_SB" save busybox:local ic1:two >"$BATS_TEST_TMPDIR/names.tar"
	sbx-run -s "$SIM_SB" rmi ic1:two >/dev/null
	# what docker wrote: a layer directory per layer, no repositories
	tar -tf "$BATS_TEST_TMPDIR/ids.tar" >"$BATS_TEST_TMPDIR/ids.list"
	grep -qx manifest.json "$BATS_TEST_TMPDIR/ids.list"
	grep -q '/layer.tar$' "$BATS_TEST_TMPDIR/ids.list"
	grep -qx repositories "$BATS_TEST_TMPDIR/ids.list" && fail "names in ids.tar"
	# the two images share busybox's layer: docker links the second copy
	tar -tvf "$BATS_TEST_TMPDIR/ids.tar" | grep -Eq '^l.* [0-9a-f]{64}/layer\.tar -> \.\./[0-9a-f]{64}/layer\.tar$'
	run -0 "$C" "$BATS_TEST_TMPDIR/ids.tar"
	[ "$output" = ok ]
	tar -xOf "$BATS_TEST_TMPDIR/names.tar" manifest.json | grep -q '"RepoTags":\["'
	run -1 "$C" "$BATS_TEST_TMPDIR/names.tar"
	[[ "$output" == "refused: \""*"\": it names "* ]]
	# the archive's own size is the inclusive limit
	size=$(wc -c <"$BATS_TEST_TMPDIR/ids.tar")
	run -0 "$C" -l "$size" "$BATS_TEST_TMPDIR/ids.tar"
	run -1 "$C" -l "$((size - 1))" "$BATS_TEST_TMPDIR/ids.tar"
	[ "$output" = "refused: larger than the cache's budget" ]
}
