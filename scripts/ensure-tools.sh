#!/usr/bin/env bash
# Installs what a fresh machine (Node and npm only) lacks, then the workspace itself.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  npm install --silent --no-fund --no-audit --prefix .gateway/tools "pnpm@$PNPM_VERSION" >/dev/null
  export PATH="$PWD/.gateway/tools/node_modules/.bin:$PATH"
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm build
