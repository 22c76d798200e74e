#!/usr/bin/env bash
# Installs the dependencies (Debian packages) and builds into ./build: everything, or only the
# targets given (scripts/run-default.sh asks for `runtime`: the host and its modules).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}"
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
