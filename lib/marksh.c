/*
 * marksh.c: the two POSIX sh scripts of exec marking (mark.c), run
 * inside the sandbox (and inside a container for an inner docker exec).
 *
 * The prologue runs before the command, as `sh -c PROLOGUE sbx-run ID
 * CMD...`: it records its pid, its start time (field 22 of stat, so a
 * reused pid is told apart) and the boot id under ${HOME:-/tmp}/.sbx-run/PID
 * (one file a pid, so they never pile up past pid_max), then becomes the
 * command with exec.  A record it cannot write costs the mark, never the
 * command.  Nothing in it is in the environment: env -i, a new title or
 * a changed environment leaves the record as it was.
 *
 * The ender, as `sh -c ENDER sbx-run-end ID [INNER PREFIX...]`, finds the
 * record and ends, in the sandbox, the recorded process, its process
 * group, its session and every descendant of them (TERM, two seconds,
 * then STOP and KILL), then looks again and prints one line of what it
 * found: "ended N left K", "none" (nothing was left running), "unmarked"
 * (no record: the command never started) or "rebooted" (the sandbox was
 * stopped since, which ended it).  A pid whose start time differs was
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
#include "sbx-internal.h"

const char sbx_mark_prologue[] =
    "m=$1;shift;d=${HOME:-/tmp}/.sbx-run;"
    "{ mkdir -p \"$d\"&&read -r l </proc/$$/stat&&"
    "read -r b </proc/sys/kernel/random/boot_id&&"
    "r(){ echo \"$m $$ ${20} $b\";}&&r ${l##*) }>\"$d/$$\";} 2>/dev/null;"
    "exec \"$@\"";

const char sbx_mark_ender[] =
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
    "\tread -r k q t c <\"$f\"\n"
    "\tif [ \"$k\" = \"$m\" ]; then p=$q; break; fi\n"
    "done\n"
    "[ -n \"$p\" ] || { echo unmarked; exit 0; }\n"
    "rm -f \"$f\"\n"
    "[ \"$c\" = \"$b\" ] || { echo rebooted; exit 0; }\n"
    "st() { echo \"${20}\"; }\n"
    "if read -r l <\"/proc/$p/stat\"; then\n"
    "\t[ \"$(st ${l##*) })\" = \"$t\" ] || { echo none; exit 0; }\n"
    "fi\n"
    "one() {\n"
    "\t[ \"$1\" != Z ] && { [ \"$4\" = \"$p\" ] || [ \"$3\" = \"$p\" ] ||"
    " [ \"$q\" = \"$p\" ] ||\n"
    "\t    case $S in *\" $2 \"*) ;; *) false ;; esac; }\n"
    "}\n"
    "scan() {\n"
    "\tS=' ' r=0 o=\n"
    "\twhile [ \"$r\" -lt 4 ] && [ \"$o\" != \"$S\" ]; do\n"
    "\t\to=$S r=$((r + 1))\n"
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
    "scan\n"
    "n=$(count)\n"
    "[ \"$n\" -gt 0 ] || { echo none; exit 0; }\n"
    "sig TERM\n"
    "i=0\n"
    "while [ \"$i\" -lt 20 ] && [ \"$S\" != ' ' ]; do\n"
    "\tsleep 0.1\n"
    "\tlive\n"
    "\ti=$((i + 1))\n"
    "done\n"
    "scan\n"
    "if [ \"$S\" != ' ' ]; then\n"
    "\tsig STOP\n"
    "\tscan\n"
    "\tsig STOP\n"
    "\tsig KILL\n"
    "\tsleep 0.2\n"
    "\tscan\n"
    "fi\n"
    "echo \"ended $n left $(count)\"\n";

const char sbx_mark_asker[] =
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
