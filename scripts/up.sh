#!/usr/bin/env bash
# First command on a fresh machine: install, generate, build, migrate, seed and start the stack.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-tools.sh
exec node tools/stack/dist/start.js
