#!/usr/bin/env bash
# Second command: every check CI runs (generate, type-check, lint, unit and integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
pnpm lint
pnpm vitest run
