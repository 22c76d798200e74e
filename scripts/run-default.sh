#!/usr/bin/env bash
# Builds the host and its modules (the `runtime` target: no tests), then runs the host on its
# default plan (offline on provider-mock unless a vendor key is set). Extra arguments replace
# the prompt. scripts/test.sh builds the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh runtime
prompt="${*:-hello}"
./build/host/amplifier run "$prompt"
