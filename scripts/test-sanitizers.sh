#!/usr/bin/env bash
# The sanitizer stages of CI (issue 13 §4), each in its own build tree:
#   asan: ASan + UBSan (-fno-sanitize-recover=all) over every ctest suite of the normal build
#         (ctest label asan; AMP_ASAN_EXCLUDE, empty, would name any left out) in build-asan,
#         the process suites included: they run the tree's own amplifier and
#         amplifier-module-host, built with the sanitizers like the modules they load;
#   tsan: TSan, the threaded suites of AMP_TSAN_TESTS (ctest label tsan) in build-tsan.
# The target amp_sanitizer_tests builds a stage's suites and everything they load or start; the
# lists are in tests/AmplifierTest.cmake.
# Usage: scripts/test-sanitizers.sh [asan|tsan]...   (no argument: both)
# Every report of a sanitizer, in a test or in any process it starts (the amplifier binary,
# children), goes to a file under <tree>/sanitizer-reports/, and any such file fails the stage,
# even when the test itself passed (a child's report cannot hide behind an expected exit code).
# Budgets (seconds, for the ctest run of each stage): AMP_ASAN_BUDGET, AMP_TSAN_BUDGET. On a
# cold 2-core machine the asan stage builds in about 12 minutes and runs in about 8
# (install_sdk and test_validate are the longest); tsan in about 4 and 1.5. The budgets leave
# room for a slower machine and stop a hang early.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(asan tsan)
jobs=$(nproc)

./scripts/install-deps.sh
./scripts/install-test-deps.sh

# Reports go to files (log_path) so that a process whose stderr a test swallows still fails the
# stage; halt at the first error; exit code 23 marks a sanitizer's exit.
common="halt_on_error=1:exitcode=23:print_summary=1"
export UBSAN_OPTIONS="$common:print_stacktrace=1:report_error_type=1:suppressions=$root/tests/sanitizers/ubsan.supp"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"

stage_timer() { date +%s; }

check_reports() {
  local dir=$1 name=$2
  if compgen -G "$dir/*" > /dev/null; then
    echo "error: $name: the sanitizers reported errors (files in $dir):" >&2
    for f in "$dir"/*; do
      echo "---- $f" >&2
      head -n 80 "$f" >&2
    done
    return 1
  fi
}

# The sanitizer options of stage $1, reporting into $2, as NAME=value words in STAGE_ENV.
stage_environment() {
  local reports=$2
  case $1 in
    # detect_leaks: LeakSanitizer works here (no ptrace of the tests); detect_odr_violation=0:
    # modules are dlopen'ed RTLD_LOCAL with hidden symbols, and static helpers linked into
    # several of them are separate copies by design, not ODR violations. handle_segv=0 (and
    # bus, fpe): the deliberately crashing test modules (bad-crash-tool, ...) must die of their
    # signal as in a normal build, which is what their tests check; ASan reports invalid
    # accesses before they fault, and an unexpected crash still fails its test.
    # intercept_tls_get_addr=0: GCC 12's sanitizer runtime (as any up to GCC 13 / LLVM 16)
    # takes a dynamic TLS block (a dlopen'ed module's thread_locals) whose address is 16 mod
    # 4096 for one with a glibc 2.19 header and records the two words before it as the block's
    # range: garbage since glibc 2.25 (verbosity=2 shows "glibc >=2.19 suspected;
    # tls={0x200000533 0x800001102}"). LeakSanitizer's tracer then dies scanning it ("Tracer
    # caught signal 11 ... LeakSanitizer has encountered a fatal error", google/sanitizers#1322)
    # in a process that leaked nothing: test_isolation, now and then. Off, dynamic TLS is not
    # scanned for roots; the blocks are ordinary allocations and stay reachable through glibc.
    asan) STAGE_ENV=(
        "ASAN_OPTIONS=$common:log_path=$reports/asan:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:detect_odr_violation=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:intercept_tls_get_addr=0"
        "UBSAN_OPTIONS=$UBSAN_OPTIONS:log_path=$reports/ubsan"
        "LSAN_OPTIONS=$LSAN_OPTIONS:log_path=$reports/lsan") ;;
    tsan) STAGE_ENV=(
        "TSAN_OPTIONS=$common:log_path=$reports/tsan:second_deadlock_stack=1:suppressions=$root/tests/sanitizers/tsan.supp") ;;
  esac
}

# run_stage asan|tsan AMP_SANITIZE BUDGET: builds the stage's suites in build-<stage> and runs
# them (ctest label <stage>) within BUDGET seconds; any report file fails the stage.
run_stage() {
  local stage=$1 sanitize=$2 budget=$3 tree=build-$1 t0 t1 t2 rc=0
  t0=$(stage_timer)
  cmake -S . -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMP_SANITIZE="$sanitize"
  cmake --build "$tree" -j "$jobs" --target amp_sanitizer_tests
  t1=$(stage_timer)
  local reports=$root/$tree/sanitizer-reports
  rm -rf "$reports" && mkdir -p "$reports"
  stage_environment "$stage" "$reports"
  env "${STAGE_ENV[@]}" timeout --kill-after=30 "$budget" \
    ctest --test-dir "$tree" --output-on-failure --no-tests=error -j "$jobs" -L "$stage" || rc=$?
  t2=$(stage_timer)
  check_reports "$reports" "$stage" || rc=1
  echo "$stage stage: build $((t1 - t0)) s, tests $((t2 - t1)) s"
  return $rc
}

for stage in "${stages[@]}"; do
  case $stage in
    asan) run_stage asan address,undefined "${AMP_ASAN_BUDGET:-1200}" ;;
    tsan) run_stage tsan thread "${AMP_TSAN_BUDGET:-1200}" ;;
    *) echo "usage: $0 [asan|tsan]..." >&2; exit 2 ;;
  esac
done
