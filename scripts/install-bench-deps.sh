#!/usr/bin/env bash
# Installs what the comparison benchmark (bench/peers) runs against amplifier: GNU time, and the
# official Anthropic and OpenAI SDKs and eventsource-parser from npm, pinned by
# bench/peers/package-lock.json.
# Benchmarks only: amplifier itself never needs Node or npm.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v /usr/bin/time >/dev/null || ! command -v node >/dev/null; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends time nodejs npm
fi
(cd bench/peers && npm ci --no-audit --no-fund)
