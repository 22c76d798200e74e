#!/usr/bin/env bash
# Installs what the tests need beyond the build: Node.js and the reference MCP server
# (@modelcontextprotocol/server-everything, pinned by tests/mcp/server/package-lock.json) that
# the tool-mcp tests (tests/mcp) run against over stdio and Streamable HTTP. Idempotent: npm ci
# runs again only when the lock file changed. amplifier itself never needs Node.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends nodejs npm
fi
# The server's HTTP mode (the MCP SDK's Streamable HTTP transport, on @hono/node-server) wants
# Node 20 or newer; stdio runs on 18.
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "warning: Node $(node --version) is older than 20; the MCP Streamable HTTP tests may fail" >&2
fi
server=tests/mcp/server
stamp="$server/node_modules/.installed-from-lock"
if ! cmp -s "$server/package-lock.json" "$stamp" 2>/dev/null; then
  (cd "$server" && npm ci --no-audit --no-fund)
  cp "$server/package-lock.json" "$stamp"
fi
