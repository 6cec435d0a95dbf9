#!/usr/bin/env bash
# Second command: every check CI runs (generate, type-check, lint, unit and integration tests,
# then the images built and their smoke suite run against the stack compose.yaml starts).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
pnpm lint
pnpm vitest run
bash scripts/test-images.sh
