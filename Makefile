# sbx-tools: POSIX make.  See config.mk for the settings.
.POSIX:
.SUFFIXES:
.SUFFIXES: .c .o

include config.mk

# alphabetical: the archive lets the linker find the order
LIBOBJ = lib/capture.o lib/clock.o lib/conf.o lib/confparse.o \
	lib/createargv.o lib/detach.o lib/egress.o lib/egressaddr.o \
	lib/egressapply.o lib/egressrec.o lib/egressrefuse.o lib/env.o \
	lib/guard.o lib/holdargv.o lib/imgcache.o lib/imgevict.o \
	lib/imgmeta.o lib/io.o lib/json.o lib/jsonout.o lib/lock.o \
	lib/marker.o lib/markerio.o lib/mode.o lib/name.o lib/policycli.o \
	lib/policylog.o lib/policylogcert.o lib/policyloghost.o \
	lib/policylogreason.o lib/policyls.o lib/portcli.o lib/portspec.o \
	lib/proc.o lib/record.o lib/regauth.o lib/rfc3339.o lib/sbxcall.o \
	lib/sbxcli.o lib/sbxgone.o lib/sbxline.o lib/sbxls.o lib/sbxsays.o \
	lib/selfpipe.o lib/shown.o lib/sibling.o lib/spawn.o lib/stamp.o \
	lib/stampsh.o lib/state.o lib/statedir.o lib/stream.o lib/strtonum.o \
	lib/supervise.o lib/tripcmp.o lib/tripfile.o lib/triplist.o \
	lib/tripscan.o lib/tripseen.o lib/unplaced.o
BIN = sbx-env/sbx-env sbx-run/sbx-run sbx-watch/sbx-watch sbx-gc/sbx-gc \
	sbx-ports/sbx-ports sbx-verify/sbx-verify
RUNOBJ = sbx-run/sbx-run.o sbx-run/dockerargs.o sbx-run/provision.o \
	sbx-run/journal.o sbx-run/workspace.o sbx-run/ending.o \
	sbx-run/warmstart.o sbx-run/orphan.o sbx-run/race.o \
	sbx-run/check.o sbx-run/exec.o sbx-run/imgload.o sbx-run/imgcheck.o \
	sbx-run/imgtar.o sbx-run/imgjson.o sbx-run/imgwrite.o \
	sbx-run/outward.o sbx-run/events.o sbx-run/sessions.o \
	sbx-run/tripwire.o sbx-run/readable.o
WATCHOBJ = sbx-watch/sbx-watch.o sbx-watch/loop.o sbx-watch/teardown.o \
	sbx-watch/pidwait.o sbx-watch/warmhold.o sbx-watch/imgsave.o \
	sbx-watch/now.o sbx-watch/rules.o
GCOBJ = sbx-gc/sbx-gc.o sbx-gc/markers.o sbx-gc/records.o
PORTSOBJ = sbx-ports/sbx-ports.o sbx-ports/mapping.o sbx-ports/sync.o \
	sbx-ports/hostport.o sbx-ports/bound.o sbx-ports/dockerps.o \
	sbx-ports/portsmarker.o sbx-ports/outbound.o
VERIFYOBJ = sbx-verify/sbx-verify.o sbx-verify/result.o sbx-verify/probe.o \
	sbx-verify/answers.o sbx-verify/checks.o sbx-verify/selfcheck.o \
	sbx-verify/sc.o sbx-verify/scremove.o sbx-verify/scbasic.o \
	sbx-verify/scguest.o sbx-verify/scports.o sbx-verify/scwords.o \
	sbx-verify/scstamp.o sbx-verify/chprobe.o sbx-verify/channels.o \
	sbx-verify/scpolicy.o sbx-verify/rules.o
MAN1 = man/sbx-env.1 man/sbx-run.1 man/sbx-ports.1 man/sbx-verify.1 \
	man/sbx-tools-mcp.1
MAN7 = man/sbx-tools.7
MAN8 = man/sbx-gc.8 man/sbx-watch.8
TESTTOOLS = test/tools/hostile-env test/tools/failalloc.so test/tools/rfc3339 \
	test/tools/selfpipe test/tools/orphan test/tools/imgcheck \
	test/tools/sbxsays test/tools/egress test/tools/policylog \
	test/tools/record test/tools/tripscan

all: $(BIN)

.c.o:
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib -c -o $@ $<

$(LIBOBJ) $(BIN:=.o) $(RUNOBJ) $(WATCHOBJ) $(GCOBJ) $(PORTSOBJ) \
	$(VERIFYOBJ): config.mk
# Each object depends on the headers it includes, directly or through
# another header.  `sh test/depend` writes the lines between the two
# marks from the #include lines; make lint checks that they agree.
# header rules: begin
lib/conf.o lib/confparse.o lib/createargv.o lib/egress.o \
	lib/egressaddr.o lib/egressrefuse.o lib/env.o lib/guard.o \
	lib/imgcache.o lib/jsonout.o lib/name.o lib/policycli.o \
	lib/policylogcert.o lib/policylogreason.o lib/portcli.o \
	lib/portspec.o lib/regauth.o lib/sbxcall.o lib/sbxcli.o \
	lib/sbxline.o lib/sbxsays.o lib/selfpipe.o lib/shown.o \
	lib/sibling.o lib/spawn.o lib/stamp.o lib/stampsh.o lib/stream.o \
	lib/supervise.o lib/tripscan.o: lib/sbx-internal.h
lib/capture.o lib/conf.o lib/confparse.o lib/createargv.o lib/detach.o \
	lib/egress.o lib/egressaddr.o lib/egressapply.o lib/egressrec.o \
	lib/egressrefuse.o lib/env.o lib/guard.o lib/holdargv.o \
	lib/imgcache.o lib/imgmeta.o lib/io.o lib/json.o lib/jsonout.o \
	lib/lock.o lib/marker.o lib/markerio.o lib/mode.o lib/name.o \
	lib/policycli.o lib/policylog.o lib/policylogcert.o \
	lib/policyloghost.o lib/policylogreason.o lib/policyls.o \
	lib/portcli.o lib/portspec.o lib/proc.o lib/record.o \
	lib/regauth.o lib/sbxcall.o lib/sbxcli.o lib/sbxgone.o \
	lib/sbxline.o lib/sbxls.o lib/sbxsays.o lib/selfpipe.o \
	lib/shown.o lib/sibling.o lib/spawn.o lib/stamp.o lib/stampsh.o \
	lib/state.o lib/statedir.o lib/stream.o lib/strtonum.o \
	lib/supervise.o lib/tripfile.o lib/triplist.o lib/tripscan.o \
	lib/tripseen.o lib/unplaced.o sbx-env/sbx-env.o sbx-gc/markers.o \
	sbx-gc/records.o sbx-gc/sbx-gc.o sbx-ports/bound.o \
	sbx-ports/dockerps.o sbx-ports/hostport.o sbx-ports/mapping.o \
	sbx-ports/outbound.o sbx-ports/portsmarker.o \
	sbx-ports/sbx-ports.o sbx-ports/sync.o sbx-run/check.o \
	sbx-run/dockerargs.o sbx-run/ending.o sbx-run/events.o \
	sbx-run/exec.o sbx-run/imgcheck.o sbx-run/imgjson.o \
	sbx-run/imgload.o sbx-run/imgtar.o sbx-run/imgwrite.o \
	sbx-run/journal.o sbx-run/orphan.o sbx-run/outward.o \
	sbx-run/provision.o sbx-run/race.o sbx-run/readable.o \
	sbx-run/sbx-run.o sbx-run/sessions.o sbx-run/tripwire.o \
	sbx-run/warmstart.o sbx-run/workspace.o sbx-verify/answers.o \
	sbx-verify/channels.o sbx-verify/checks.o sbx-verify/chprobe.o \
	sbx-verify/probe.o sbx-verify/result.o sbx-verify/rules.o \
	sbx-verify/sbx-verify.o sbx-verify/sc.o sbx-verify/scbasic.o \
	sbx-verify/scguest.o sbx-verify/scpolicy.o sbx-verify/scports.o \
	sbx-verify/scremove.o sbx-verify/scstamp.o sbx-verify/scwords.o \
	sbx-verify/selfcheck.o sbx-watch/imgsave.o sbx-watch/loop.o \
	sbx-watch/now.o sbx-watch/pidwait.o sbx-watch/rules.o \
	sbx-watch/sbx-watch.o sbx-watch/teardown.o sbx-watch/warmhold.o: lib/sbx.h
lib/capture.o lib/detach.o lib/egressapply.o lib/guard.o lib/policycli.o \
	lib/portcli.o lib/proc.o lib/sbxcall.o lib/sbxgone.o \
	lib/selfpipe.o lib/spawn.o lib/stamp.o lib/stream.o \
	lib/supervise.o lib/unplaced.o sbx-gc/markers.o sbx-gc/sbx-gc.o \
	sbx-ports/outbound.o sbx-ports/sbx-ports.o sbx-ports/sync.o \
	sbx-run/check.o sbx-run/dockerargs.o sbx-run/ending.o \
	sbx-run/events.o sbx-run/exec.o sbx-run/imgcheck.o \
	sbx-run/imgjson.o sbx-run/imgload.o sbx-run/imgtar.o \
	sbx-run/imgwrite.o sbx-run/journal.o sbx-run/orphan.o \
	sbx-run/outward.o sbx-run/provision.o sbx-run/race.o \
	sbx-run/readable.o sbx-run/sbx-run.o sbx-run/sessions.o \
	sbx-run/tripwire.o sbx-run/warmstart.o sbx-run/workspace.o \
	sbx-verify/probe.o sbx-verify/rules.o sbx-verify/sbx-verify.o \
	sbx-verify/sc.o sbx-verify/scbasic.o sbx-verify/scguest.o \
	sbx-verify/scpolicy.o sbx-verify/scports.o sbx-verify/scremove.o \
	sbx-verify/scstamp.o sbx-verify/scwords.o sbx-verify/selfcheck.o \
	sbx-watch/imgsave.o sbx-watch/loop.o sbx-watch/now.o \
	sbx-watch/rules.o sbx-watch/sbx-watch.o sbx-watch/teardown.o: lib/sbxchild.h
lib/createargv.o lib/egressapply.o lib/holdargv.o lib/policycli.o \
	lib/policylogreason.o lib/portcli.o lib/sbxcall.o lib/sbxcli.o \
	lib/sbxgone.o lib/sbxls.o lib/sbxsays.o lib/sibling.o \
	lib/stamp.o lib/unplaced.o sbx-env/sbx-env.o sbx-gc/sbx-gc.o \
	sbx-ports/dockerps.o sbx-ports/outbound.o sbx-ports/sbx-ports.o \
	sbx-ports/sync.o sbx-run/exec.o sbx-run/orphan.o \
	sbx-run/provision.o sbx-run/race.o sbx-run/sbx-run.o \
	sbx-verify/rules.o sbx-verify/sbx-verify.o sbx-verify/sc.o \
	sbx-verify/scbasic.o sbx-verify/scguest.o sbx-verify/scpolicy.o \
	sbx-verify/scports.o sbx-verify/scremove.o \
	sbx-verify/selfcheck.o sbx-watch/imgsave.o sbx-watch/loop.o \
	sbx-watch/now.o sbx-watch/sbx-watch.o sbx-watch/teardown.o: lib/sbxcli.h
lib/conf.o lib/createargv.o lib/imgevict.o lib/statedir.o lib/tripfile.o \
	sbx-env/sbx-env.o sbx-gc/sbx-gc.o sbx-ports/sbx-ports.o \
	sbx-run/imgload.o sbx-run/orphan.o sbx-run/outward.o \
	sbx-run/provision.o sbx-run/sbx-run.o sbx-run/warmstart.o \
	sbx-verify/checks.o sbx-verify/probe.o sbx-verify/rules.o \
	sbx-verify/sbx-verify.o sbx-verify/selfcheck.o \
	sbx-watch/imgsave.o sbx-watch/loop.o sbx-watch/now.o \
	sbx-watch/pidwait.o sbx-watch/rules.o sbx-watch/sbx-watch.o \
	sbx-watch/teardown.o sbx-watch/warmhold.o: lib/sbxconf.h
lib/conf.o lib/confparse.o lib/egress.o lib/egressrefuse.o lib/regauth.o \
	sbx-ports/outbound.o sbx-ports/sbx-ports.o sbx-run/outward.o \
	sbx-verify/rules.o: lib/sbxegress.h
lib/conf.o lib/confparse.o lib/env.o lib/sbxcli.o sbx-env/sbx-env.o \
	sbx-gc/sbx-gc.o sbx-ports/sbx-ports.o sbx-run/sbx-run.o \
	sbx-verify/sbx-verify.o sbx-verify/selfcheck.o \
	sbx-watch/sbx-watch.o: lib/sbxenv.h
lib/imgcache.o lib/imgevict.o lib/imgmeta.o sbx-gc/sbx-gc.o \
	sbx-run/imgload.o sbx-watch/imgsave.o: lib/sbximg.h
lib/json.o lib/jsonout.o lib/policylog.o lib/policyls.o lib/portspec.o \
	lib/record.o lib/sbxls.o lib/tripseen.o sbx-env/sbx-env.o \
	sbx-gc/sbx-gc.o sbx-ports/dockerps.o sbx-ports/outbound.o \
	sbx-ports/sbx-ports.o sbx-run/events.o sbx-run/imgjson.o \
	sbx-run/journal.o sbx-run/readable.o sbx-run/sessions.o \
	sbx-verify/result.o sbx-verify/sc.o sbx-verify/scbasic.o: lib/sbxjson.h
lib/egressrec.o lib/marker.o lib/markerio.o lib/record.o lib/tripfile.o \
	sbx-gc/markers.o sbx-gc/records.o sbx-gc/sbx-gc.o \
	sbx-ports/portsmarker.o sbx-ports/sbx-ports.o sbx-run/imgload.o \
	sbx-run/journal.o sbx-run/orphan.o sbx-run/provision.o \
	sbx-run/readable.o sbx-run/sessions.o sbx-run/tripwire.o \
	sbx-run/warmstart.o sbx-verify/answers.o sbx-verify/channels.o \
	sbx-verify/checks.o sbx-verify/chprobe.o sbx-verify/probe.o \
	sbx-verify/rules.o sbx-verify/sbx-verify.o sbx-watch/imgsave.o \
	sbx-watch/loop.o sbx-watch/now.o sbx-watch/sbx-watch.o \
	sbx-watch/teardown.o sbx-watch/warmhold.o: lib/sbxmarker.h
lib/conf.o lib/confparse.o lib/marker.o lib/name.o sbx-gc/markers.o \
	sbx-gc/sbx-gc.o sbx-run/orphan.o sbx-run/readable.o \
	sbx-run/sbx-run.o sbx-run/sessions.o sbx-verify/selfcheck.o \
	sbx-watch/sbx-watch.o: lib/sbxname.h
lib/egressapply.o lib/egressrec.o lib/policycli.o lib/policylog.o \
	lib/policylogcert.o lib/policyloghost.o lib/policylogreason.o \
	lib/policyls.o sbx-gc/markers.o sbx-ports/outbound.o \
	sbx-run/outward.o sbx-run/sbx-run.o sbx-verify/rules.o \
	sbx-verify/scpolicy.o sbx-watch/rules.o: lib/sbxpolicy.h
lib/portcli.o lib/portspec.o sbx-ports/bound.o sbx-ports/dockerps.o \
	sbx-ports/hostport.o sbx-ports/mapping.o sbx-ports/outbound.o \
	sbx-ports/portsmarker.o sbx-ports/sbx-ports.o sbx-ports/sync.o \
	sbx-verify/answers.o sbx-verify/channels.o sbx-verify/checks.o \
	sbx-verify/chprobe.o sbx-verify/probe.o sbx-verify/rules.o \
	sbx-verify/sbx-verify.o sbx-verify/sc.o sbx-verify/scbasic.o \
	sbx-verify/scguest.o sbx-verify/scpolicy.o sbx-verify/scports.o \
	sbx-verify/scremove.o sbx-verify/scstamp.o sbx-verify/scwords.o \
	sbx-verify/selfcheck.o: lib/sbxports.h
lib/record.o lib/tripseen.o sbx-gc/markers.o sbx-ports/sbx-ports.o \
	sbx-run/check.o sbx-run/dockerargs.o sbx-run/ending.o \
	sbx-run/events.o sbx-run/exec.o sbx-run/imgcheck.o \
	sbx-run/imgjson.o sbx-run/imgload.o sbx-run/imgtar.o \
	sbx-run/imgwrite.o sbx-run/journal.o sbx-run/orphan.o \
	sbx-run/outward.o sbx-run/provision.o sbx-run/race.o \
	sbx-run/readable.o sbx-run/sbx-run.o sbx-run/sessions.o \
	sbx-run/tripwire.o sbx-run/warmstart.o sbx-run/workspace.o \
	sbx-watch/teardown.o: lib/sbxrecord.h
lib/confparse.o lib/regauth.o sbx-run/outward.o: lib/sbxregauth.h
lib/stamp.o sbx-run/check.o sbx-run/dockerargs.o sbx-run/ending.o \
	sbx-run/events.o sbx-run/exec.o sbx-run/imgcheck.o \
	sbx-run/imgjson.o sbx-run/imgload.o sbx-run/imgtar.o \
	sbx-run/imgwrite.o sbx-run/journal.o sbx-run/orphan.o \
	sbx-run/outward.o sbx-run/provision.o sbx-run/race.o \
	sbx-run/readable.o sbx-run/sbx-run.o sbx-run/sessions.o \
	sbx-run/tripwire.o sbx-run/warmstart.o sbx-run/workspace.o \
	sbx-verify/scpolicy.o sbx-verify/scstamp.o: lib/sbxstamp.h
lib/egressrec.o lib/imgcache.o lib/lock.o lib/marker.o lib/markerio.o \
	lib/policycli.o lib/portcli.o lib/record.o lib/sbxcall.o \
	lib/state.o lib/statedir.o lib/tripfile.o lib/tripseen.o \
	lib/unplaced.o sbx-gc/markers.o sbx-gc/records.o sbx-gc/sbx-gc.o \
	sbx-ports/outbound.o sbx-ports/portsmarker.o \
	sbx-ports/sbx-ports.o sbx-run/check.o sbx-run/events.o \
	sbx-run/imgload.o sbx-run/journal.o sbx-run/outward.o \
	sbx-run/provision.o sbx-run/sessions.o sbx-run/tripwire.o \
	sbx-run/warmstart.o sbx-run/workspace.o sbx-verify/checks.o \
	sbx-verify/probe.o sbx-verify/sbx-verify.o sbx-verify/scremove.o \
	sbx-verify/scwords.o sbx-watch/imgsave.o sbx-watch/now.o \
	sbx-watch/sbx-watch.o sbx-watch/teardown.o: lib/sbxstate.h
lib/clock.o lib/lock.o lib/policylog.o lib/rfc3339.o lib/sbxcall.o \
	lib/supervise.o sbx-gc/sbx-gc.o sbx-run/race.o sbx-verify/sc.o \
	sbx-verify/scguest.o sbx-watch/imgsave.o sbx-watch/loop.o \
	sbx-watch/teardown.o: lib/sbxtime.h
lib/conf.o lib/tripcmp.o lib/tripfile.o lib/triplist.o lib/tripscan.o \
	lib/tripseen.o sbx-gc/markers.o sbx-run/provision.o \
	sbx-run/tripwire.o sbx-watch/teardown.o: lib/sbxtrip.h
sbx-gc/markers.o sbx-gc/records.o sbx-gc/sbx-gc.o: sbx-gc/sbx-gc.h
sbx-ports/bound.o sbx-ports/dockerps.o sbx-ports/hostport.o \
	sbx-ports/mapping.o sbx-ports/outbound.o sbx-ports/portsmarker.o \
	sbx-ports/sbx-ports.o sbx-ports/sync.o: sbx-ports/sbx-ports.h
sbx-run/check.o sbx-run/dockerargs.o sbx-run/ending.o sbx-run/events.o \
	sbx-run/exec.o sbx-run/imgcheck.o sbx-run/imgjson.o \
	sbx-run/imgload.o sbx-run/imgtar.o sbx-run/imgwrite.o \
	sbx-run/journal.o sbx-run/orphan.o sbx-run/outward.o \
	sbx-run/provision.o sbx-run/race.o sbx-run/readable.o \
	sbx-run/sbx-run.o sbx-run/sessions.o sbx-run/tripwire.o \
	sbx-run/warmstart.o sbx-run/workspace.o: sbx-run/sbx-run.h
sbx-verify/answers.o sbx-verify/channels.o sbx-verify/checks.o \
	sbx-verify/chprobe.o sbx-verify/probe.o sbx-verify/rules.o \
	sbx-verify/sbx-verify.o: sbx-verify/audit.h
sbx-verify/answers.o sbx-verify/channels.o sbx-verify/checks.o \
	sbx-verify/chprobe.o sbx-verify/probe.o sbx-verify/result.o \
	sbx-verify/rules.o sbx-verify/sbx-verify.o sbx-verify/sc.o \
	sbx-verify/scbasic.o sbx-verify/scguest.o sbx-verify/scpolicy.o \
	sbx-verify/scports.o sbx-verify/scremove.o sbx-verify/scstamp.o \
	sbx-verify/scwords.o sbx-verify/selfcheck.o: sbx-verify/result.h
sbx-verify/sbx-verify.o sbx-verify/sc.o sbx-verify/scbasic.o \
	sbx-verify/scguest.o sbx-verify/scpolicy.o sbx-verify/scports.o \
	sbx-verify/scremove.o sbx-verify/scstamp.o sbx-verify/scwords.o \
	sbx-verify/selfcheck.o: sbx-verify/selfcheck.h
sbx-watch/imgsave.o sbx-watch/loop.o sbx-watch/now.o sbx-watch/pidwait.o \
	sbx-watch/rules.o sbx-watch/sbx-watch.o sbx-watch/teardown.o \
	sbx-watch/warmhold.o: sbx-watch/sbx-watch.h
# header rules: end

lib/libsbx.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

sbx-env/sbx-env: sbx-env/sbx-env.o lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ sbx-env/sbx-env.o lib/libsbx.a

sbx-run/sbx-run: $(RUNOBJ) lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(RUNOBJ) lib/libsbx.a

sbx-watch/sbx-watch: $(WATCHOBJ) lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(WATCHOBJ) lib/libsbx.a

sbx-gc/sbx-gc: $(GCOBJ) lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(GCOBJ) lib/libsbx.a

sbx-ports/sbx-ports: $(PORTSOBJ) lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(PORTSOBJ) lib/libsbx.a

sbx-verify/sbx-verify: $(VERIFYOBJ) lib/libsbx.a
	$(CC) $(LDFLAGS) -o $@ $(VERIFYOBJ) lib/libsbx.a

test/tools/hostile-env: test/tools/hostile-env.c
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ test/tools/hostile-env.c

test/tools/rfc3339: test/tools/rfc3339.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/rfc3339.c \
		lib/libsbx.a

test/tools/selfpipe: test/tools/selfpipe.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/selfpipe.c \
		lib/libsbx.a

test/tools/sbxsays: test/tools/sbxsays.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/sbxsays.c \
		lib/libsbx.a

test/tools/egress: test/tools/egress.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/egress.c \
		lib/libsbx.a

test/tools/policylog: test/tools/policylog.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/policylog.c \
		lib/libsbx.a

test/tools/record: test/tools/record.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/record.c \
		lib/libsbx.a

test/tools/tripscan: test/tools/tripscan.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/tripscan.c \
		lib/libsbx.a

test/tools/orphan: test/tools/orphan.c lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib $(LDFLAGS) -o $@ test/tools/orphan.c \
		lib/libsbx.a

test/tools/imgcheck: test/tools/imgcheck.c sbx-run/imgcheck.o \
	sbx-run/imgtar.o sbx-run/imgjson.o sbx-run/imgwrite.o lib/libsbx.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -Ilib -Isbx-run $(LDFLAGS) -o $@ \
		test/tools/imgcheck.c sbx-run/imgcheck.o sbx-run/imgtar.o \
		sbx-run/imgjson.o sbx-run/imgwrite.o lib/libsbx.a

test/tools/failalloc.so: test/tools/failalloc.c
	$(CC) $(CFLAGS) -shared -fPIC -o $@ test/tools/failalloc.c

# make check: its three parts in turn, each whatever the last found, then
# the one closing line "N passed, N failed" over all three
# the three parts side by side, SBX_TEST_JOBS suites at a time (default 4)
check: all $(TESTTOOLS)
	@MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites

# the bats suites; the same on sanitized binaries (SBX_SANITIZE=0: not);
# the pi extension's node tests
# the suites run make themselves: none of this make's flags (-s) reach them
check-bats: all $(TESTTOOLS)
	MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites bats
check-sanitized: all
	MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites sanitized
check-pi: all
	MAKEFLAGS= MAKELEVEL= MFLAGS= sh test/run-suites pi

lint: all
	sh test/lint

# libFuzzer (clang); FUZZTIME seconds per target
FUZZTIME = 60
fuzz:
	sh test/fuzz/run $(FUZZTIME)

# measurements on this machine into test/bench/REPORT.md
bench: all
	bash test/bench/report test/bench/REPORT.md

# make demo SIM_PROFILE=0.46: against an older sbx (test/sbx-sim/README.md)
SIM_PROFILE = 0.55
demo: all
	SBX_SIM_PROFILE=$(SIM_PROFILE) sh test/demo.sh

# the long soak: SOAKTIME seconds of chaos over SOAKSESSIONS sessions
SOAKTIME = 60
SOAKSESSIONS = 8
soak: all
	bash test/soak.sh $(SOAKTIME) $(SOAKSESSIONS)

install: all
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANPREFIX)/man1 \
		$(DESTDIR)$(MANPREFIX)/man7 $(DESTDIR)$(MANPREFIX)/man8
	for f in $(BIN); do \
		cp -f $$f $(DESTDIR)$(PREFIX)/bin/ && \
		chmod 755 $(DESTDIR)$(PREFIX)/bin/$${f##*/} || exit 1; \
	done
	for f in $(MAN1); do \
		cp -f $$f $(DESTDIR)$(MANPREFIX)/man1/ && \
		chmod 644 $(DESTDIR)$(MANPREFIX)/man1/$${f##*/} || exit 1; \
	done
	for f in $(MAN7); do \
		cp -f $$f $(DESTDIR)$(MANPREFIX)/man7/ && \
		chmod 644 $(DESTDIR)$(MANPREFIX)/man7/$${f##*/} || exit 1; \
	done
	for f in $(MAN8); do \
		cp -f $$f $(DESTDIR)$(MANPREFIX)/man8/ && \
		chmod 644 $(DESTDIR)$(MANPREFIX)/man8/$${f##*/} || exit 1; \
	done

uninstall:
	for f in $(BIN); do rm -f $(DESTDIR)$(PREFIX)/bin/$${f##*/}; done
	for f in $(MAN1); do rm -f $(DESTDIR)$(MANPREFIX)/man1/$${f##*/}; done
	for f in $(MAN7); do rm -f $(DESTDIR)$(MANPREFIX)/man7/$${f##*/}; done
	for f in $(MAN8); do rm -f $(DESTDIR)$(MANPREFIX)/man8/$${f##*/}; done

clean:
	rm -f $(LIBOBJ) lib/libsbx.a $(BIN) $(BIN:=.o) $(RUNOBJ) $(WATCHOBJ) $(PORTSOBJ) \
		$(GCOBJ) $(VERIFYOBJ) $(TESTTOOLS)
	rm -rf test/fuzz/bin test/fuzz/work

.PHONY: all check check-bats check-sanitized check-pi lint fuzz bench demo soak install uninstall clean
