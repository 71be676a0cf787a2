#!/usr/bin/env bash
# Coverage-guided fuzzing with AFL++ through cargo-afl, on the stable toolchain:
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# builds the instrumented targets of fuzz/ (cargo afl build --profile fuzz --features afl), runs
# each target (all of them by default) for SECONDS (default 60) from its seed corpus
# (fuzz/corpus/<target>/), then prints per target the executions, the coverage (edges found
# and the share of AFL's bitmap), and the crashes and hangs found. Crashing and hanging inputs
# are copied to fuzz/artifacts/<target>/ (not committed: a fixed crash's input belongs in
# fuzz/regressions/<target>/, which `cargo test` in fuzz/ replays). Exits non-zero when any
# target found a crash. Runs under `nice` so other builds on the machine keep priority.
#
# Needs cargo-afl (`cargo install cargo-afl`; it builds AFL++ from source the first time).
# FUZZ_TIMEOUT_MS (default 3000) is the time after which an execution counts as a hang.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

SECONDS_EACH=${1:-60}
shift || true
ALL_TARGETS=(game_params action_strings bot_specs serialized_states view_requests grpc_requests)
if [ "$#" -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi
TIMEOUT_MS=${FUZZ_TIMEOUT_MS:-3000}

if ! cargo afl --version >/dev/null 2>&1; then
  nice -n 15 cargo install cargo-afl --locked
fi
export CARGO_TARGET_DIR="$PWD/target/afl"
# The engine's targets build without the gRPC services and their dependencies.
FEATURES=(--no-default-features --features afl)
if printf '%s\n' "${TARGETS[@]}" | grep -qx grpc_requests; then FEATURES=(--features afl,grpc); fi
nice -n 15 cargo afl build --profile fuzz -p checkraise-fuzz --locked "${FEATURES[@]}"

# AFL++ in a container: no CPU governor to check, crashes are caught by the fork server.
export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1
export AFL_NO_AFFINITY=1

stat_of() { sed -n "s/^$2 *: *//p" "$1" | head -n 1; }

found_crash=0
rows=()
for target in "${TARGETS[@]}"; do
  out="out/$target"
  rm -rf "$out"
  mkdir -p "$out"
  echo "==> $target for ${SECONDS_EACH}s"
  nice -n 15 cargo afl fuzz -V "$SECONDS_EACH" -t "$TIMEOUT_MS" -i "corpus/$target" -o "$out" \
    -- "$CARGO_TARGET_DIR/fuzz/$target" >"$out/afl.log" 2>&1 || {
      echo "afl-fuzz failed for $target; the end of its log:" >&2
      tail -n 30 "$out/afl.log" >&2
      exit 2
    }
  stats="$out/default/fuzzer_stats"
  crashes=$(stat_of "$stats" saved_crashes)
  hangs=$(stat_of "$stats" saved_hangs)
  for kind in crashes hangs; do
    if compgen -G "$out/default/$kind/id*" >/dev/null; then
      mkdir -p "artifacts/$target/$kind"
      cp "$out/default/$kind"/id* "artifacts/$target/$kind/"
    fi
  done
  [ "${crashes:-0}" -gt 0 ] && found_crash=1
  rows+=("$(printf '%-18s %6s %12s %9s %14s %8s %7s %5s' "$target" \
    "$(stat_of "$stats" run_time)" "$(stat_of "$stats" execs_done)" \
    "$(stat_of "$stats" execs_per_sec)" \
    "$(stat_of "$stats" edges_found)/$(stat_of "$stats" total_edges)" \
    "$(stat_of "$stats" bitmap_cvg)" "$crashes" "$hangs")")
done

echo
printf '%-18s %6s %12s %9s %14s %8s %7s %5s\n' target secs executions execs/s edges bitmap crashes hangs
printf '%s\n' "${rows[@]}"
if [ "$found_crash" -ne 0 ]; then
  echo "crashes found: inputs in fuzz/artifacts/<target>/crashes/" >&2
  exit 1
fi
