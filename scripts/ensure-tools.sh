#!/usr/bin/env bash
# Installs what a fresh machine (Node and npm only) lacks, then the workspace itself.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM_VERSION=10.34.9
# pnpm goes where npm puts global commands when that is writable, so `pnpm gw`, `pnpm start` and
# the README's other commands work in any new shell; otherwise under .gateway/tools (then
# ./scripts/gw runs the operator CLI, and the PATH line printed below gives pnpm itself).
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "$PNPM_VERSION" ]; then
  if [ -w "$(npm prefix -g)/bin" ]; then
    npm install --global --silent --no-fund --no-audit "pnpm@$PNPM_VERSION" >/dev/null
    hash -r
  else
    npm install --silent --no-fund --no-audit --prefix .gateway/tools "pnpm@$PNPM_VERSION" >/dev/null
    export PATH="$PWD/.gateway/tools/node_modules/.bin:$PATH"
    echo "ensure-tools: pnpm is in .gateway/tools; in a new shell: export PATH=\"$PWD/.gateway/tools/node_modules/.bin:\$PATH\" (or use ./scripts/gw)" >&2
  fi
fi
# The console's browser tests drive Debian's Chromium through playwright-core (which cannot
# download a browser of its own here); a CJK font lets its zh-CN screenshots show Chinese.
missing=()
[ -n "${CHROMIUM_PATH:-}" ] || command -v chromium >/dev/null 2>&1 || missing+=(chromium)
fc-list :lang=zh 2>/dev/null | grep -q . || missing+=(fonts-wqy-zenhei)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-tools: ${missing[*]} missing and apt-get is unavailable: install them (or set CHROMIUM_PATH)" >&2
    exit 1
  fi
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The services run on Node 24, as in the images (a third to two thirds less CPU per request than
# Node 20 here). Where the machine's Node is older, the npm registry's build of Node 24 goes to
# .gateway/node, and tools/stack starts every service with it (tools and tests keep this Node).
SERVICE_NODE_VERSION=24.21.0
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ] \
  && [ "$(.gateway/node/bin/node --version 2>/dev/null)" != "v$SERVICE_NODE_VERSION" ]; then
  node_package="node-$(node -p 'process.platform')-$(node -p 'process.arch')"
  npm install --silent --no-fund --no-audit --prefix .gateway/node "$node_package@$SERVICE_NODE_VERSION" >/dev/null
  mkdir -p .gateway/node/bin
  ln -sf "../node_modules/$node_package/bin/node" .gateway/node/bin/node
fi
pnpm install --frozen-lockfile --reporter=silent
pnpm build
