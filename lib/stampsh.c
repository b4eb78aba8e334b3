/*
 * stampsh.c: the POSIX sh scripts of exec stamping (stamp.c), run inside
 * the sandbox (and in a container for an inner docker exec): the
 * prologue, the ender and the asker, described below.
 */
#include "sbx-internal.h"

/*
 * The prologue runs before the command, as `sh -c PROLOGUE sbx-run ID
 * CMD...`: where its cgroup is in a cgroup2 hierarchy it may write to, it
 * makes a cgroup sbx-run-ID below it and moves itself in, so that all the
 * command starts stays there whatever it does to its ancestry (a daemon,
 * a double fork), and removes the empty ones earlier execs left (a
 * minute old: a newer one may be another exec's, not yet moved in).  It
 * records its pid, its start time (field 22 of stat, so a reused pid is
 * told apart), the boot id and that cgroup under ${HOME:-/tmp}/.sbx-run/PID
 * (one file a pid, so they never pile up past pid_max), then becomes the
 * command with exec.  A record or a cgroup it cannot make costs the stamp
 * or the cgroup, never the command.  Nothing in it is in the
 * environment: env -i, a new title or a changed environment leaves the
 * record as it was.
 *
 * The ender, as `sh -c ENDER sbx-run-end ID [INNER PREFIX...]`, finds the
 * record and ends, in the sandbox, the recorded process, its process
 * group, its session, every descendant of them and every process of its
 * cgroup (TERM, two seconds, then STOP, the cgroup's kill and KILL), then
 * looks again, removes the cgroup and prints one line of what it found:
 * "ended N left K", "none" (nothing was left running), each followed by
 * " cg" when a cgroup was searched and " nocg" when there was none (then
 * what left the process tree was not looked for), "unmarked" (no record:
 * the command never started) or "rebooted" (the sandbox was stopped
 * since, which ended it).  A recorded cgroup is used only under
 * /sys/fs/cgroup and named for the stamp.  A pid whose start time differs was
 * reused: the old group and session are empty then, as the kernel frees a
 * pid number only when no process has it as its group or session.  With
 * INNER and a PREFIX (`docker ... exec -u 0 CONTAINER`) it first runs
 * INNER, the same ender, in the container, and prints its line after
 * "inner ".
 *
 * The asker, as `sh -c ASKER sbx-run-ask ID`, ends nothing: it prints
 * "began" if a record names ID, "unbegun" if none does and a record could
 * be written now (so the prologue's would have been), else "unknown".
 */

const char sbx_stamp_prologue[] =
    "m=$1;shift;d=${HOME:-/tmp}/.sbx-run;k=;"
    "{ for r in /sys/fs/cgroup/unified /sys/fs/cgroup '';do "
    "[ -f \"$r/cgroup.controllers\" ]&&break;done;"
    "[ -n \"$r\" ]&&[ -r /proc/$$/cgroup ]&&while read -r l;do "
    "case $l in 0::/*)k=$r${l#0::};;esac;done </proc/$$/cgroup;"
    "[ -n \"$k\" ]&&{ find \"$k\" -maxdepth 1 -name 'sbx-run-*' "
    "-mmin +1 -exec rmdir {} +;k=${k%/}/sbx-run-$m;"
    "mkdir \"$k\"&&echo $$ >\"$k/cgroup.procs\"||"
    "{ mkdir \"$k\";echo $$ >\"$k/cgroup.procs\";}||{ rmdir \"$k\";k=;};};"
    "mkdir -p \"$d\"&&read -r l </proc/$$/stat&&"
    "read -r b </proc/sys/kernel/random/boot_id&&"
    "r(){ echo \"$m $$ ${20} $b $k\";}&&r ${l##*) }>\"$d/$$\";} 2>/dev/null;"
    "exec \"$@\"";

const char sbx_stamp_ender[] =
    "exec 2>/dev/null\n"
    "m=$1 d=${HOME:-/tmp}/.sbx-run b= p=\n"
    "shift\n"
    "if [ $# -gt 1 ]; then\n"
    "\te=$1\n"
    "\tshift\n"
    "\tr=$(\"$@\" sh -c \"$e\" sbx-run-end \"$m\" </dev/null | tail -n 1)\n"
    "\techo \"inner ${r:-unreached}\"\n"
    "fi\n"
    "read -r b </proc/sys/kernel/random/boot_id\n"
    "for f in \"$d\"/*; do\n"
    "\tk=\n"
    "\tread -r k q t c g <\"$f\"\n"
    "\tif [ \"$k\" = \"$m\" ]; then p=$q; break; fi\n"
    "done\n"
    "[ -n \"$p\" ] || { echo unmarked; exit 0; }\n"
    "rm -f \"$f\"\n"
    "[ \"$c\" = \"$b\" ] || { echo rebooted; exit 0; }\n"
    "case $g in\n"
    "/sys/fs/cgroup/sbx-run-\"$m\" | /sys/fs/cgroup/*/sbx-run-\"$m\") W=' cg' ;;\n"
    "*) g= W=' nocg' ;;\n"
    "esac\n"
    "case $g in *..*) g= W=' nocg' ;; esac\n"
    "st() { echo \"${20}\"; }\n"
    "if read -r l <\"/proc/$p/stat\"; then\n"
    "\t[ \"$(st ${l##*) })\" = \"$t\" ] || p=-\n"
    "fi\n"
    "pop() { [ -n \"$g\" ] && grep -q '^populated 1' \"$g/cgroup.events\"; }\n"
    "one() {\n"
    "\t[ \"$1\" != Z ] && { [ \"$4\" = \"$p\" ] || [ \"$3\" = \"$p\" ] ||"
    " [ \"$q\" = \"$p\" ] ||\n"
    "\t    case $S in *\" $2 \"*) ;; *) false ;; esac; }\n"
    "}\n"
    "mem() {\n"
    "\t[ -n \"$g\" ] && [ -r \"$g/cgroup.procs\" ] || return 0\n"
    "\twhile read -r q; do\n"
    "\t\tcase $S in *\" $q \"*) continue ;; esac\n"
    "\t\tread -r l <\"/proc/$q/stat\" && set -- ${l##*) } &&"
    " [ \"$1\" != Z ] && S=\"$S$q \"\n"
    "\tdone <\"$g/cgroup.procs\"\n"
    "}\n"
    "scan() {\n"
    "\tS=' ' r=0 o=\n"
    "\twhile [ \"$r\" -lt 4 ] && [ \"$o\" != \"$S\" ]; do\n"
    "\t\to=$S r=$((r + 1))\n"
    "\t\tmem\n"
    "\t\tfor q in /proc/[0-9]*; do\n"
    "\t\t\tq=${q#/proc/}\n"
    "\t\t\tcase $S in *\" $q \"*) continue ;; esac\n"
    "\t\t\t[ \"$q\" != $$ ] && read -r l <\"/proc/$q/stat\" &&"
    " one ${l##*) } && S=\"$S$q \"\n"
    "\t\tdone\n"
    "\tdone\n"
    "}\n"
    "live() {\n"
    "\to=$S S=' '\n"
    "\tfor q in $o; do\n"
    "\t\tread -r l <\"/proc/$q/stat\" && set -- ${l##*) } &&"
    " [ \"$1\" != Z ] && S=\"$S$q \"\n"
    "\tdone\n"
    "}\n"
    "sig() { for q in $S; do kill -\"$1\" \"$q\"; done; }\n"
    "count() { set -- $S; echo $#; }\n"
    "gone() {\n"
    "\tpop && [ -w \"$g/cgroup.kill\" ] && echo 1 >\"$g/cgroup.kill\"\n"
    "\ti=0\n"
    "\twhile [ \"$i\" -lt 10 ] && pop; do sleep 0.1; i=$((i + 1)); done\n"
    "}\n"
    "scan\n"
    "n=$(count)\n"
    "if [ \"$n\" -eq 0 ] && pop; then n=1; fi\n"
    "[ \"$n\" -gt 0 ] || { [ -z \"$g\" ] || rmdir \"$g\"; echo \"none$W\"; exit 0; }\n"
    "sig TERM\n"
    "i=0\n"
    "while [ \"$i\" -lt 20 ] && { [ \"$S\" != ' ' ] || pop; }; do\n"
    "\tsleep 0.1\n"
    "\tlive\n"
    "\ti=$((i + 1))\n"
    "done\n"
    "scan\n"
    "if [ \"$S\" != ' ' ] || pop; then\n"
    "\tsig STOP\n"
    "\tscan\n"
    "\tsig STOP\n"
    "\tgone\n"
    "\tsig KILL\n"
    "\tsleep 0.2\n"
    "\tscan\n"
    "fi\n"
    "k=$(count)\n"
    "if [ \"$k\" -eq 0 ] && pop; then k=1; fi\n"
    "[ -z \"$g\" ] || rmdir \"$g\"\n"
    "echo \"ended $n left $k$W\"\n";

const char sbx_stamp_asker[] =
    "exec 2>/dev/null\n"
    "m=$1 d=${HOME:-/tmp}/.sbx-run\n"
    "for f in \"$d\"/*; do\n"
    "\tk=\n"
    "\tread -r k q <\"$f\"\n"
    "\t[ \"$k\" = \"$m\" ] && { echo began; exit 0; }\n"
    "done\n"
    "mkdir -p \"$d\" && read -r l </proc/$$/stat &&"
    " read -r b </proc/sys/kernel/random/boot_id &&"
    " : >\"$d/$$\" && rm -f \"$d/$$\" && { echo unbegun; exit 0; }\n"
    "echo unknown\n";
