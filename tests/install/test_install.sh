#!/usr/bin/env bash
# Usage: test_install.sh BUILD_DIR SOURCE_DIR (see CMakeLists.txt). Exits non-zero on the first
# failed step, saying which.
set -euo pipefail
build=$(realpath "$1")
source_dir=$(realpath "$2")
work=$(mktemp -d /tmp/amp-install-test-XXXXXX)
trap 'rm -rf "$work"' EXIT
# The user's folders point into the scratch folder. HOME stays: a rustup cargo finds its
# toolchain through it.
export XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
unset AMPLIFIER_MODULE_PATH ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY GOOGLE_API_KEY \
  AZURE_OPENAI_ENDPOINT

step() { echo "== $*"; }
fail() { echo "FAILED: $*" >&2; exit 1; }
expect_in() {  # expect_in TEXT NEEDLE WHAT
  grep -qF -- "$2" <<<"$1" || fail "$3: '$2' not in output:"$'\n'"$1"
}

prefix="$work/prefix"
step "cmake --install to a temporary prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/amplifier include/amplifier/amplifier_plugin.h include/amplifier/amplifier_sdk.hpp \
    include/amplifier/amplifier_sdk_json.hpp lib/cmake/Amplifier/AmplifierConfig.cmake \
    lib/cmake/Amplifier/AmplifierConfigVersion.cmake lib/pkgconfig/amplifier-plugin.pc \
    lib/amplifier/modules/provider-mock.so lib/amplifier/amplifier-module-host; do
  [ -e "$prefix/$f" ] || fail "the install has no $f"
done
amp="$prefix/bin/amplifier"

step "the installed host finds its own modules, never the build tree's"
listing=$("$amp" module list)
expect_in "$listing" "$prefix/lib/amplifier/modules/provider-mock.so" "module list"
if grep -qF "$build" <<<"$listing"; then fail "the installed host lists build-tree modules"; fi

step "the installed host runs modules in their own process, with its own helper"
sed 's/^session:/session:\n  isolation: process/' "$source_dir/mount-plans/offline.yaml" >"$work/isolated.yaml"
out=$(env -u AMPLIFIER_MODULE_HOST "$amp" run --format jsonl --plan "$work/isolated.yaml" "hi")
expect_in "$out" '"event":"tool:post"' "isolated offline plan"
if grep -qF '"module:crashed"' <<<"$out"; then fail "a module process crashed on the offline plan"; fi

# The examples are copied: a third party's checkout, nothing of this tree beside it.
cp -r "$source_dir/examples" "$work/examples"
ex="$work/examples"

step "tool-c-wordcount: plain C, built with make and pkg-config (no CMake)"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -s -C "$ex/tool-c-wordcount"

step "provider-cpp-echo: C++ with find_package(Amplifier 1.2) and amplifier_add_module"
cmake -S "$ex/provider-cpp-echo" -B "$work/echo-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/echo-build" >/dev/null

step "hook-rust-audit: Rust with cargo, offline, no crates"
(cd "$ex/hook-rust-audit" && CARGO_TARGET_DIR="$work/cargo" cargo build -q --release --offline)
cp "$work/cargo/release/libhook_rust_audit.so" "$ex/hook-rust-audit/hook-rust-audit.so"

for so in "$ex/tool-c-wordcount/tool-c-wordcount.so" "$work/echo-build/provider-cpp-echo.so" \
    "$ex/hook-rust-audit/hook-rust-audit.so"; do
  exports=$(nm -D --defined-only "$so" | awk '{print $3}')
  [ "$exports" = "amplifier_module_entry" ] || fail "$so exports: $exports"
done

step "a plan mounts all three through source: (paths relative to the plan) and runs turns"
mkdir -p "$work/plans"
cat >"$work/plans/plan.yaml" <<PLAN
session:
  orchestrator: loop-streaming
  context: context-simple
providers:
  - {module: provider-cpp-echo, source: ../echo-build, config: {prefix: "you said: "}}
tools:
  - {module: tool-c-wordcount, source: ../examples/tool-c-wordcount/tool-c-wordcount.so}
hooks:
  - module: hook-rust-audit
    source: "file://$ex/hook-rust-audit/hook-rust-audit.so"
    config: {path: $work/audit.jsonl}
PLAN
out=$("$amp" run --plan "$work/plans/plan.yaml" "/tool wordcount one two three")
expect_in "$out" '"words":3' "a turn calling the C tool from the C++ provider"
out=$("$amp" run --plan "$work/plans/plan.yaml" "hello there")
expect_in "$out" "you said: hello there" "a plain turn"
expect_in "$(cat "$work/audit.jsonl")" '{"event":"tool:post","data":{' "the Rust hook's audit file"
expect_in "$(cat "$work/audit.jsonl")" '"event":"session:end"' "the Rust hook's audit file"

step "each passes module validate --behavioral"
validate() {  # validate FILE [--config JSON]
  "$amp" module validate "$@" --behavioral >"$work/validate.txt" 2>&1 ||
    fail "module validate $*:"$'\n'"$(cat "$work/validate.txt")"
}
validate "$ex/tool-c-wordcount/tool-c-wordcount.so"
validate "$work/echo-build/provider-cpp-echo.so"
validate "$ex/hook-rust-audit/hook-rust-audit.so" --config "{\"path\": \"$work/validate-audit.jsonl\"}"

step "module install from a git source, built by the installed host with its own SDK"
git -C "$ex" init -q -b main
git -C "$ex" add -A
git -C "$ex" -c user.name=test -c user.email=test@localhost commit -qm examples
"$amp" module install "git+file://$ex@main#subdirectory=provider-cpp-echo" >"$work/install.txt"
expect_in "$(cat "$work/install.txt")" "installed provider-cpp-echo" "module install"
shown=$("$amp" module show provider-cpp-echo)
expect_in "$shown" "found in:    user folder" "module show"
expect_in "$shown" "git+file://$ex@main#subdirectory=provider-cpp-echo (commit " "module show"
expect_in "$shown" "prefix" "module show: config fields"
out=$("$amp" run --plan "$work/plans/plan.yaml" "again")  # plan source still wins
expect_in "$out" "you said: again" "plan source over the user folder"
[ -n "$(ls "$XDG_CACHE_HOME/amplifier/modules")" ] || fail "no build cached by commit"

step "cpack -G DEB makes a package whose tree runs"
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" >/dev/null)
deb=$(ls "$work"/deb/amplifier_*.deb)
info=$(dpkg-deb -I "$deb")
expect_in "$info" "Package: amplifier" "dpkg-deb -I"
expect_in "$info" "libboost-json" "dpkg-deb -I (Depends from dpkg-shlibdeps)"
dpkg-deb -x "$deb" "$work/root"
[ -e "$work/root/usr/lib/cmake/Amplifier/AmplifierConfig.cmake" ] || fail "deb lacks the SDK"
[ -x "$work/root/usr/lib/amplifier/amplifier-module-host" ] || fail "deb lacks amplifier-module-host"
listing=$("$work/root/usr/bin/amplifier" module list)
expect_in "$listing" "$work/root/usr/lib/amplifier/modules/provider-mock.so" "packaged host"
out=$("$work/root/usr/bin/amplifier" run --plan "$source_dir/mount-plans/offline.yaml" "hi")
[ -n "$out" ] || fail "the packaged host gave no answer on the offline plan"
echo "install_sdk: all steps passed"
