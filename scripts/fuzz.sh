#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang-15, ASan + UBSan) in their own tree and runs each for
# SECONDS_PER_TARGET seconds (default 30, as CI runs them; give 600 or more for a long run).
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Environment: FUZZ_BUILD_DIR (default build-fuzz), FUZZ_JOBS (targets run at once, default 1),
# FUZZ_MAX_LEN (largest input tried, default 8192: longer seeds are cut, which keeps runs fast),
# FUZZ_SEED (libFuzzer's -seed; unset: a new random seed each run; CI sets one so that its run
# is the same exploration every time, a prefix of a longer run with that seed),
# FUZZ_KEEP_CORPUS=1 merges the new inputs each run found back into fuzz/corpus/<target>/.
# Prints executions and findings per target; exits 1 when any target found something (a crash,
# a failed invariant, a leak, a sanitizer report or a timeout). A finding's input is kept as
# $FUZZ_BUILD_DIR/findings/<target>/crash-*; reproduce it with
#   $FUZZ_BUILD_DIR/fuzz/<target> $FUZZ_BUILD_DIR/findings/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
shift || true
build="${FUZZ_BUILD_DIR:-build-fuzz}"
jobs="${FUZZ_JOBS:-1}"

command -v clang++-15 >/dev/null || ./scripts/install-deps.sh
start=$(date +%s)
mkdir -p "$build"
CC=clang-15 CXX=clang++-15 cmake -S . -B "$build" -G Ninja -DAMP_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build/configure.log" 2>&1 || {
  cat "$build/configure.log" >&2
  exit 1
}
cmake --build "$build" --target fuzz_targets -j "$(nproc)"
echo "fuzz build: $(($(date +%s) - start)) s"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd fuzz/targets && ls fuzz_*.cpp | sed 's/\.cpp$//')
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
symbolizer=$(command -v llvm-symbolizer-15 || command -v /usr/lib/llvm-15/bin/llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

run_target() {
  local target=$1 out="$build/fuzz-runs/$1"
  rm -rf "$out" "$build/findings/$target"
  mkdir -p "$out/corpus" "$build/findings/$target"
  # New inputs go to the run's own folder; the repository's corpus is only read.
  local rc=0 seed_option=()
  [ -n "${FUZZ_SEED:-}" ] && seed_option=(-seed="$FUZZ_SEED")
  "$build/fuzz/$target" "${seed_option[@]}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="${FUZZ_MAX_LEN:-8192}" -print_final_stats=1 -artifact_prefix="$build/findings/$target/" \
    "$out/corpus" "fuzz/corpus/$target" >"$out/log" 2>&1 || rc=$?
  local execs
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -1)
  local found
  found=$(find "$build/findings/$target" -type f | wc -l)
  if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
    printf '%-32s %12s execs  FINDING (exit %s): %s\n' "$target" "${execs:-?}" "$rc" \
      "$(find "$build/findings/$target" -type f | head -1)"
    grep -m 20 -E 'ERROR|fuzz invariant|SUMMARY|runtime error|#[0-9]+ 0x' "$out/log" | head -20 | sed 's/^/    /'
    return 1
  fi
  printf '%-32s %12s execs  0 findings\n' "$target" "${execs:-?}"
  if [ "${FUZZ_KEEP_CORPUS:-0}" = 1 ]; then
    "$build/fuzz/$target" -merge=1 "fuzz/corpus/$target" "$out/corpus" >"$out/merge.log" 2>&1
  fi
}

echo "running ${#targets[@]} fuzz targets, ${seconds} s each, ${jobs} at a time"
failed=0
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" -ne 0 ]; then
  echo "fuzzing found problems (logs in $build/fuzz-runs/<target>/log)" >&2
  exit 1
fi
echo "fuzzing: no findings"
