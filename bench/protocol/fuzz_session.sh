#!/usr/bin/env bash
# Fuzz whole protocol sessions through seam-serve's loop for SECONDS
# (tests/protocol/fuzz_session.c): installs clang (scripts/deps.sh fuzz),
# builds the libFuzzer target with AddressSanitizer and UBSan in BUILD
# (default build-fuzz), and runs it from the committed seeds. New inputs
# go to BUILD/fuzz_session_corpus, findings to BUILD/fuzz_session_findings/.
# Prints runs, executions per second, coverage and corpus size; exits 1 on a
# finding (reproduce: BUILD/tests/protocol/fuzz_session FILE).
# Usage: bench/protocol/fuzz_session.sh SECONDS [BUILD]
SEAM_BENCH=fuzz_session . "$(dirname "$0")/../rows.sh"   # figures to bench/data/fuzz_session.jsonl
set -euo pipefail
secs=${1:?usage: bench/protocol/fuzz_session.sh SECONDS [BUILD]}
build=${2:-build-fuzz}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
[[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "SECONDS: a whole number above 0, got \"$secs\"" >&2; exit 2; }

scripts/deps.sh fuzz
if [ ! -f "$build/build.ninja" ]; then
    # everything instrumented for libFuzzer's coverage and checked by the sanitizers
    CC=clang meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
ninja -C "$build" tests/protocol/fuzz_session tests/plugins/piston_solid.so tests/plugins/piston_fluid.so >/dev/null

corpus="$build/fuzz_session_corpus"
findings="$build/fuzz_session_findings"
log="$build/fuzz_session.log"
mkdir -p "$corpus" "$findings"
rc=0
"$build/tests/protocol/fuzz_session" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=4096 \
    -dict=tests/protocol/fuzz_session.dict -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" tests/protocol/fuzz_session >"$log" 2>&1 || rc=$?
python3 - "$log" "$secs" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
stat = dict(re.findall(r"stat::(\w+):\s+(\d+)", text))
last = [l for l in text.splitlines() if re.match(r"#\d+\s", l)]
cov = re.search(r"cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", last[-1]) if last else None
print("fuzz_session: %s runs in %s s (%s/s), coverage %s edges, %s features, corpus %s inputs (%s), peak rss %s MB" % (
    stat.get("number_of_executed_units", "?"), sys.argv[2] if "DONE" in text else "fewer than " + sys.argv[2], stat.get("average_exec_per_sec", "?"),
    cov.group(1) if cov else "?", cov.group(2) if cov else "?", cov.group(3) if cov else "?",
    cov.group(4) if cov else "?", stat.get("peak_rss_mb", "?")))
print("@row seconds=%s runs=%s exec_s=%s edges=%s features=%s corpus=%s peak_rss_MB=%s" % (
    sys.argv[2], stat.get("number_of_executed_units", "?"), stat.get("average_exec_per_sec", "?"),
    cov.group(1) if cov else "?", cov.group(2) if cov else "?", cov.group(3) if cov else "?", stat.get("peak_rss_mb", "?")))
PY
if [ "$rc" -ne 0 ]; then
    echo "fuzz_session: a finding (exit $rc); the log is $log, the input in $findings/" >&2
    grep -m1 -E "ERROR|fuzz_session:|runtime error" "$log" >&2 || true
    exit 1
fi
echo "fuzz_session: no finding"
