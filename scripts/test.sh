#!/usr/bin/env bash
# Second command: every check CI runs (generate, type-check, lint, unit and integration tests),
# then the images: built and smoke-tested against their containers where a Docker engine runs or
# can be installed (scripts/test-images.sh; it says so when none can, and stops the engine it started).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
pnpm lint
pnpm vitest run
bash scripts/test-images.sh
