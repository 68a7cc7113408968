#!/usr/bin/env bash
# The README's main job (the oracle over three Triton tasks, local backend, CPU) with every process's
# CPU time counted: it runs in a cgroup of its own, because `/usr/bin/time` misses what the sandboxed
# kernel runners use (bwrap reaps them, not the judge). Prints user/sys CPU seconds, wall seconds and
# the load average before and after; the judge's per-phase seconds go to OUT.trace (one line per
# task, "phases_s"). Needs root (a writable cgroup, v1 cpuacct or v2).
#
#   bash bench/cpu_main_job.sh OUT_DIR            (OUT_DIR must not exist)
#   bash bench/cpu_main_job.sh OUT_DIR cmd...     (any other command, measured the same way)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; shift
if [ $# -eq 0 ]; then
    set -- "${GAUNTLET_VENV:-.venv}/bin/gauntlet" run --agent oracle --tasks triton2triton/softmax \
        --tasks torch2triton/rmsnorm --tasks torch2triton/gelu --out "$out"
fi
if [ -d /sys/fs/cgroup/cpuacct ]; then group=/sys/fs/cgroup/cpuacct/gauntlet-bench-$$; v=1
else group=/sys/fs/cgroup/gauntlet-bench-$$; v=2; fi
mkdir "$group"
trap 'rmdir "$group" 2>/dev/null || true' EXIT
load0=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s.%N)
rc=0
GAUNTLET_JUDGE_TRACE="$out.trace" bash -c 'echo $$ > "$0/cgroup.procs"; shift; exec "$@"' "$group" _ "$@" || rc=$?
t1=$(date +%s.%N)
if [ $v = 1 ]; then
    hz=$(getconf CLK_TCK)
    user=$(awk -v hz="$hz" '/^user/{printf "%.1f", $2 / hz}' "$group/cpuacct.stat")
    sys=$(awk -v hz="$hz" '/^system/{printf "%.1f", $2 / hz}' "$group/cpuacct.stat")
else
    user=$(awk '/^user_usec/{printf "%.1f", $2 / 1e6}' "$group/cpu.stat")
    sys=$(awk '/^system_usec/{printf "%.1f", $2 / 1e6}' "$group/cpu.stat")
fi
echo "user ${user} s  sys ${sys} s  wall $(echo "$t1 - $t0" | bc) s  load before ${load0}  after $(cut -d' ' -f1-3 /proc/loadavg)  exit ${rc}"
for _ in 1 2 3 4 5; do [ -z "$(cat "$group/cgroup.procs")" ] && break; sleep 1; done
exit $rc
