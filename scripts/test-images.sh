#!/usr/bin/env bash
# pnpm test:images: builds every image (pnpm images) and runs the smoke suite against the stack
# compose.yaml starts from them (tools/images/test). Where no Docker engine can be had
# (scripts/docker-engine.sh says why), it says so and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! engine=$(bash scripts/docker-engine.sh); then
  echo "test:images: skipped, no Docker engine (see above)"
  exit 0
fi
export "${engine?}"
started=$SECONDS
node tools/images/dist/main.js
echo "test:images: images built and checked in $((SECONDS - started)) s"
started=$SECONDS
pnpm exec vitest run --config vitest.images.config.ts
echo "test:images: smoke suite passed in $((SECONDS - started)) s"
