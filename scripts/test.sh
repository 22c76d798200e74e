#!/usr/bin/env bash
# Builds everything and runs the whole test suite (unit, integration and process tests).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
./scripts/install-test-deps.sh  # Node test peers: the MCP server, the openai client, puppeteer-core
ctest --test-dir build --output-on-failure -j "$(nproc)"
