#!/usr/bin/env bats
# img_check (sbx-run/imgcheck.c), the host's check of a cached image
# archive, through test/tools/imgcheck: every refusal with its reason, on
# archives test/tools/badtar writes (raw headers where one field is
# broken, Python's tarfile for PAX, GNU, links and devices), and what it
# accepts: plain archives and a real `docker save ID` of the simulator's
# daemon, whose `docker save NAME` twin is refused for its names; and
# img_write (sbx-run/imgwrite.c), the archive docker loads instead,
# through imgcheck -w.

load ../helpers/helper
load ../helpers/sim-setup

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
	[ "$output" = "usage: imgcheck [-w] [-x command] [-l limit] file" ]
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
@test "refused: a control byte, shown escaped" { refused control-byte '"abc/a\nb": a byte that is not printable ASCII'; }
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

# ------------------------- two readers, two archives: compression magic

@test "refused: two readers, two archives: a first member named BZh91AY&SY (docker would read a bzip2 stream)" { refused magic-bzip2-first-name '"BZh91AY&SY": the archive begins with bzip2'"'"'s magic'; }
@test "refused: a first directory named BZh91AY&SY/" { refused magic-bzip2-first-dir 'the archive begins with bzip2'; }
@test "refused: a first member named by gzip's magic" { refused magic-gzip-first-name 'not printable ASCII'; }
@test "refused: a first member named by xz's magic" { refused magic-xz-first-name 'not printable ASCII'; }
@test "refused: a first member named by zstd's magic" { refused magic-zstd-first-name 'not printable ASCII'; }
@test "refused: a first member named by a zstd skippable frame" { refused magic-zstd-skippable-first-name 'not printable ASCII'; }
@test "refused: the archive bzip2-compressed, padded to blocks" { refused magic-bzip2-prefix 'a bad header checksum'; }
@test "refused: the archive gzip-compressed" { refused magic-gzip-prefix 'a bad header checksum'; }
@test "refused: the archive xz-compressed" { refused magic-xz-prefix 'a bad header checksum'; }
@test "refused: the archive behind zstd's magic" { refused magic-zstd-prefix 'a bad header checksum'; }
@test "refused: the archive behind a zstd skippable frame" { refused magic-zstd-skippable-prefix 'a bad header checksum'; }
@test "refused: a bzip2 archive after the end" { refused magic-bzip2-trailer 'trailing data after the end of archive'; }
@test "refused: a gzip archive after the end" { refused magic-gzip-trailer 'trailing data after the end of archive'; }
@test "refused: an xz archive after the end" { refused magic-xz-trailer 'trailing data after the end of archive'; }
@test "refused: a zstd frame after the end" { refused magic-zstd-trailer 'trailing data after the end of archive'; }
@test "refused: a zstd skippable frame after the end" { refused magic-zstd-skippable-trailer 'trailing data after the end of archive'; }
@test "accepted: a later member named BZh91AY&SY (docker sniffs byte 0 only, and the host writes that)" { accepted plain-bzip2-name-later; }

# ----------------- a load bounded whatever the archive holds: compression

@test "refused: a load bounded whatever the archive holds: a bzip2 layer" { refused magic-bzip2-layer '"abc/layer.tar": compressed data'; }
@test "refused: a gzip layer (a gzip bomb expands 1000-fold)" { refused magic-gzip-layer '"abc/layer.tar": compressed data'; }
@test "refused: an xz layer" { refused magic-xz-layer '"abc/layer.tar": compressed data'; }
@test "refused: a zstd layer" { refused magic-zstd-layer '"abc/layer.tar": compressed data'; }
@test "refused: a layer behind a zstd skippable frame" { refused magic-zstd-skippable-layer '"abc/layer.tar": compressed data'; }
@test "refused: a compressed config (any member docker might sniff)" { refused magic-gzip-config '"c0ffee.json": compressed data'; }
@test "accepted: a plain tar layer" { accepted plain-layer-is-a-tar; }

# ---------------------- the archive docker loads is the one the host writes

# written CASE: imgcheck -w on badtar's CASE into $BATS_TEST_TMPDIR/CASE.out
written() {
	"$B" "$1" "$BATS_TEST_TMPDIR/$1.tar" || fail "badtar $1 failed"
	"$C" -w "$BATS_TEST_TMPDIR/$1.tar" >"$BATS_TEST_TMPDIR/$1.out" ||
	    fail "$1: imgcheck -w: $(head -c 200 "$BATS_TEST_TMPDIR/$1.out")"
}

# same CASE: the written archive is a plain ustar archive of the checked
# members (names, types, link targets, contents) in their order, with
# host-made headers, no byte before its first header, none after its two
# zero blocks, and no compression magic at byte 0
same() {
	python3 - "$BATS_TEST_TMPDIR/$1.tar" "$BATS_TEST_TMPDIR/$1.out" <<-'EOF'
	import sys, tarfile
	src, out = sys.argv[1:3]
	b = open(out, "rb").read()
	magic = [b"BZh", b"\x1f\x8b\x08", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd"]
	assert not any(b.startswith(m) for m in magic), "magic at byte 0"
	assert not (b[0] & 0xf0 == 0x50 and b[1:4] == b"\x2a\x4d\x18"), "skippable"
	got, off = [], 0
	while True:
	    h = b[off:off + 512]
	    assert len(h) == 512, "no end of archive"
	    if h == bytes(512):
	        assert b[off + 512:] == bytes(512), "after the end: %d bytes" % (len(b) - off - 1024)
	        break
	    assert h[257:265] == b"ustar\x0000", "magic"
	    s = sum(h[:148]) + 8 * 32 + sum(h[156:])
	    assert int(h[148:154], 8) == s and h[154:156] == b"\x00 ", "checksum"
	    assert h[108:124] == b"0000000\x00" * 2 and h[136:148] == b"00000000000\x00", "owner or time"
	    assert h[265:512] == bytes(247), "uname, gname, devices, prefix"
	    name = h[:100].split(b"\0")[0].decode()
	    size = int(h[124:135], 8)
	    got.append((name.rstrip("/"), h[156:157], h[157:257].split(b"\0")[0], b[off + 512:off + 512 + size]))
	    off += 512 + -(-size // 512) * 512
	want = []
	with tarfile.open(src) as t:
	    for m in t.getmembers():
	        typ = b"5" if m.isdir() else b"2" if m.issym() else b"0"
	        data = t.extractfile(m).read() if m.isfile() else b""
	        want.append((m.name.rstrip("/"), typ, m.linkname.encode(), data))
	assert got == want, "members differ:\n%r\n%r" % (got, want)
	EOF
}

@test "imgwrite: each accepted archive is written anew with exactly its checked members and contents, nothing before or after" {
	local c n=0
	for c in $(sed -nE 's/^@test .*\{ accepted ([a-zA-Z0-9-]+).*/\1/p' \
	    "$BATS_TEST_FILENAME"); do
		written "$c"
		run same "$c"
		[ "$status" -eq 0 ] || fail "$c: $output"
		n=$((n + 1))
	done
	[ "$n" -ge 10 ]
	# a record's zero padding after the end does not reach docker
	[ "$(wc -c <"$BATS_TEST_TMPDIR/plain-zero-padded.out")" -eq \
	    "$(($(wc -c <"$BATS_TEST_TMPDIR/plain-zero-padded.tar") - 8192))" ]
	# what tarfile wrote (PAX, its own fields) comes out in the host's shape
	cmp -s "$BATS_TEST_TMPDIR/plain-tarfile-pax.tar" \
	    "$BATS_TEST_TMPDIR/plain-tarfile-pax.out" && fail "written as it was"
	return 0
}

@test "imgwrite: no compression magic, prefix or trailer reaches docker load: every case is refused or written plain" {
	local c
	for c in $("$B" list); do
		"$B" "$c" "$BATS_TEST_TMPDIR/$c.tar"
		if "$C" -w "$BATS_TEST_TMPDIR/$c.tar" >"$BATS_TEST_TMPDIR/$c.out"; then
			run same "$c"
			[ "$status" -eq 0 ] || fail "$c: $output"
		else
			grep -q '^refused: ' "$BATS_TEST_TMPDIR/$c.out" || fail "$c: $(cat "$BATS_TEST_TMPDIR/$c.out")"
			[ "$(wc -l <"$BATS_TEST_TMPDIR/$c.out")" -eq 1 ] || fail "$c: bytes written after a refusal"
		fi
	done
}

@test "imgwrite: an archive changed between the check and the write: a manifest that now names an image is never written" {
	"$B" plain "$BATS_TEST_TMPDIR/p.tar"
	f=$BATS_TEST_TMPDIR/p.tar
	# in place, as the file descriptor the check read sees it
	cat >"$BATS_TEST_TMPDIR/patch.py" <<-'EOF'
	import sys
	b = open(sys.argv[1], "rb").read()
	assert b.count(b'"RepoTags":null') == 1
	open(sys.argv[1], "r+b").write(b.replace(b'"RepoTags":null', b'"RepoTags":[""]'))
	EOF
	"$C" -w -x "python3 '$BATS_TEST_TMPDIR/patch.py' '$f'" "$f" >"$BATS_TEST_TMPDIR/p.out" 2>"$BATS_TEST_TMPDIR/p.err" &&
	    fail "the write went on"
	grep -q 'img_write' "$BATS_TEST_TMPDIR/p.err" || fail "$(cat "$BATS_TEST_TMPDIR/p.err")"
	grep -q 'RepoTags":\[""\]' "$f" || fail "the file was not changed"
	! grep -qa 'RepoTags' "$BATS_TEST_TMPDIR/p.out" || fail "the changed manifest was written"
	! grep -qa 'manifest.json' "$BATS_TEST_TMPDIR/p.out" || fail "its header was written"
	# what was written ends in a block of 0xff: no header, no end of archive
	[ "$(tail -c 512 "$BATS_TEST_TMPDIR/p.out" | od -An -v -tx1 | tr -d ' \n' | tr -d f)" = "" ]
}

@test "imgwrite: an archive changed between the check and the write: a layer that is now gzip is not written whole" {
	"$B" plain "$BATS_TEST_TMPDIR/p.tar"
	f=$BATS_TEST_TMPDIR/p.tar
	# the layer's first bytes become gzip's magic
	"$C" -w -x "printf '\\037\\213\\010' | dd of='$f' bs=1 seek=1024 conv=notrunc 2>/dev/null" "$f" \
	    >"$BATS_TEST_TMPDIR/p.out" 2>"$BATS_TEST_TMPDIR/p.err" && fail "the write went on"
	[ "$(dd if="$f" bs=1 skip=1024 count=3 2>/dev/null | od -An -tx1 | tr -d ' ')" = 1f8b08 ] || fail "the file was not changed"
	! grep -qa 'manifest.json' "$BATS_TEST_TMPDIR/p.out" || fail "the write went on past the layer"
	[ "$(tail -c 512 "$BATS_TEST_TMPDIR/p.out" | od -An -v -tx1 | tr -d ' \n' | tr -d f)" = "" ]
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
