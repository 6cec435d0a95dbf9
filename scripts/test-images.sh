#!/usr/bin/env bash
# pnpm test:images (and scripts/test.sh after the rest): builds every image (pnpm images) and runs
# the smoke suite against the stack compose.yaml starts from them (tools/images/test). Where no
# Docker engine can be had at all (scripts/docker-engine.sh says why) it says so and exits 0; an
# engine that should start but does not fails it.
#
# Several checkouts share one machine (CI runs beside development): each builds its images under
# a tag of its own, test-<hash of the checkout's path> (GATEWAY_IMAGE_TAG overrides it), so no run
# tests another's images; and the engine this script starts is stopped by the last run using it
# (a lock held shared while in use), which leaves one that something else started running.
set -euo pipefail
cd "$(dirname "$0")/.."
marker=/run/gateway-docker/started-by-test-images
# fd 9: held while a run starts or stops the engine; fd 8: held shared while a run uses it.
exec 9>>/tmp/gateway-docker-start.lock 8>>/tmp/gateway-docker.lock
flock -x 9
flock -s 8
already=no
DOCKER_HOST=unix:///run/gateway-docker/docker.sock docker info >/dev/null 2>&1 && already=yes
status=0
engine=$(bash scripts/docker-engine.sh) || status=$?
if [ "$status" -eq 2 ]; then
  echo "test:images: SKIPPED: no Docker engine can be had on this machine (above); the images were not built or tested"
  exit 0
fi
if [ "$status" -ne 0 ]; then
  echo "test:images: no Docker engine although this machine should run one (above)" >&2
  exit 1
fi
[ "$already" = yes ] || touch "$marker"
flock -u 9
export "${engine?}"
stop_engine() {
  # Only the last run still using it stops it, and only if one of these runs started it.
  flock -x 9
  if flock -x -n 8 && [ -e "$marker" ]; then bash scripts/docker-engine.sh stop; fi
}
trap stop_engine EXIT
# A stopped CI job still stops the engine (bash runs the EXIT trap on exit, not on a signal's death).
trap 'exit 130' INT TERM

export GATEWAY_IMAGE_TAG="${GATEWAY_IMAGE_TAG:-test-$(printf %s "$PWD" | sha256sum | cut -c1-8)}"
started=$SECONDS
node tools/images/dist/main.js --tag "$GATEWAY_IMAGE_TAG"
echo "test:images: images built and checked in $((SECONDS - started)) s"
started=$SECONDS
pnpm exec vitest run --config vitest.images.config.ts
echo "test:images: smoke suite passed in $((SECONDS - started)) s"
# Earlier builds' stages no tag holds any longer (this run's are kept, as the next one's cache).
DOCKER_HOST="${GATEWAY_DOCKER_HOST}" docker image prune --force --filter until=24h >/dev/null
