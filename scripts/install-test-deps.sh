#!/usr/bin/env bash
# Installs what the tests need beyond the build: Node.js and, each pinned by its
# package-lock.json, the reference MCP server (@modelcontextprotocol/server-everything) that the
# tool-mcp tests (tests/mcp) run against over stdio and Streamable HTTP, the three
# OpenAI-compatible clients (openai, the Vercel AI SDK, LangChain JS) the `amplifier serve`
# tests (tests/serve) drive its chat completions with, and
# puppeteer-core, which drives the web chat page in Debian's chromium (tests/serve/browser; it
# never downloads a browser of its own). Idempotent: npm ci runs again only when a lock file
# changed. amplifier itself never needs Node.
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
for folder in tests/mcp/server tests/serve/client tests/serve/browser; do
  stamp="$folder/node_modules/.installed-from-lock"
  if ! cmp -s "$folder/package-lock.json" "$stamp" 2>/dev/null; then
    (cd "$folder" && npm ci --no-audit --no-fund)
    cp "$folder/package-lock.json" "$stamp"
  fi
done
