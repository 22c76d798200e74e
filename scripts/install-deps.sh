#!/usr/bin/env bash
# Installs every build and test dependency from Debian packages. Idempotent.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config mold  # mold: the linker (CMakeLists.txt, AMP_USE_MOLD)
  libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libyaml-cpp-dev doctest-dev libcli11-dev libfmt-dev libssl-dev
  libedit-dev tmux ca-certificates ccache
  git dpkg-dev rustc cargo  # modules built from source, the Debian package, the Rust example
  bubblewrap  # tool-bash sandbox (sandbox.enabled)
  libgumbo-dev  # tool-web: the HTML5 parser web_fetch turns pages into text with
  libpq-dev postgresql  # context-postgres (libpq), and the PostgreSQL 15 server its tests start
  json-schema-test-suite  # the official JSON-Schema-Test-Suite's draft 7 files, run by test_json_schema against the validator
  # serve's web page renders answers as Markdown with these, embedded into the binary at build
  # time (host/CMakeLists.txt): marked, DOMPurify, highlight.js.
  libjs-marked node-dompurify libjs-highlight.js
  nginx-light  # the load balancer in front of three serve processes (test_postgres_lb.cpp; the test runs its own, with its own config)
  # The browser test of serve's web page (test_serve_browser, label browser): headless Chromium
  # driven by puppeteer-core. --no-install-recommends leaves out fonts-liberation; DejaVu (also
  # pulled in through fontconfig) renders the page's text.
  chromium fonts-dejavu-core
  clang-15 llvm-15  # the libFuzzer targets (scripts/fuzz.sh); clang-15 brings libclang-common-15-dev, the fuzzer and sanitizer runtimes
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi
