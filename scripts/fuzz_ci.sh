#!/usr/bin/env bash
# CI's bounded fuzz step: each libFuzzer target of the wire, built with clang,
# AddressSanitizer and UBSan in BUILD (default build-fuzz), runs SECONDS
# (default 20) from its committed corpus, with a fixed seed (a run here
# repeats what CI explores in the same time): whole protocol sessions through
# seam-serve's loop (tests/protocol/fuzz_session.c), single requests to a
# session (protocol/fuzz_request.c) and the coupler's proxy facing a server
# that mutates its replies (tests/protocol/fuzz_server.c). New inputs go to
# BUILD/fuzz_ci/TARGET/ (the committed corpora are only read), a finding to
# BUILD/fuzz_ci/findings/; exits 1 on a finding (reproduce: BUILD/PATH FILE,
# then commit FILE into the target's corpus as a seed: the normal suite
# replays every corpus file in a fresh process).
# Usage: scripts/fuzz_ci.sh [SECONDS] [BUILD]
set -euo pipefail
secs=${1:-20}
build=${2:-build-fuzz}
cd "$(dirname "$0")/.."
[[ "$secs" =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || { echo "SECONDS: a whole number above 0, got \"$secs\"" >&2; exit 2; }

scripts/deps.sh fuzz
if [ ! -f "$build/build.ninja" ]; then
    CC=clang meson setup "$build" -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
        -Dc_args=-fsanitize=fuzzer-no-link >/dev/null
fi
# target, its corpus
targets=(tests/protocol/fuzz_session tests/protocol/fuzz_session
         protocol/fuzz_request protocol/fuzz/corpus
         tests/protocol/fuzz_server tests/protocol/fuzz_server)
ninja -C "$build" tests/protocol/fuzz_session protocol/fuzz_request tests/protocol/fuzz_server \
    tests/plugins/piston_solid.so tests/plugins/piston_fluid.so >/dev/null

findings="$build/fuzz_ci/findings"
mkdir -p "$findings"
rc=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
    exe=${targets[i]} seeds=${targets[i + 1]} name=$(basename "${targets[i]}")
    work="$build/fuzz_ci/$name"
    log="$build/fuzz_ci/$name.log"
    mkdir -p "$work"
    dict=()
    [ -f "$seeds.dict" ] && dict=(-dict="$seeds.dict")
    if "$build/$exe" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=4096 "${dict[@]}" \
        -seed=1 -artifact_prefix="$findings/$name-" -print_final_stats=1 "$work" "$seeds" >"$log" 2>&1; then
        runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
        echo "fuzz $name: no finding in $secs s ($runs runs)"
    else
        echo "fuzz $name: a finding; the log is $log, the input in $findings/" >&2
        grep -m3 -E "ERROR|runtime error|fuzz_" "$log" >&2 || true
        rc=1
    fi
done
exit $rc
