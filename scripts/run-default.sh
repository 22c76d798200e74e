#!/usr/bin/env bash
# Builds everything, then runs the host on its default plan (offline on provider-mock unless a
# vendor key is set). Extra arguments replace the prompt.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
prompt="${*:-hello}"
./build/host/amplifier run "$prompt"
