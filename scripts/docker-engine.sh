#!/usr/bin/env bash
# Makes a Docker engine answer on /run/gateway-docker/docker.sock for `pnpm images` and
# `pnpm test:images`, and prints `GATEWAY_DOCKER_HOST=unix://…` for them; exits 1 (saying why)
# when none can. Installs Debian's docker.io, docker-compose and mmdebstrap where apt-get runs
# as root, and starts dockerd without bridge or iptables (containers use the host's network).
# Not on the default socket: the test suite's testcontainers would start its datastores in it.
set -euo pipefail
socket=/run/gateway-docker/docker.sock
export DOCKER_HOST="unix://$socket"
if docker info >/dev/null 2>&1; then
  echo "GATEWAY_DOCKER_HOST=$DOCKER_HOST"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "docker-engine: not root, so no daemon can be started here" >&2
  exit 1
fi
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "docker-engine: ${missing[*]} missing and apt-get is unavailable" >&2
    exit 1
  fi
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    apt-get update -qq >/dev/null 2>&1 || true
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
      echo "docker-engine: installing ${missing[*]} failed" >&2
      exit 1
    fi
  fi
fi
mkdir -p /run/gateway-docker /var/lib/gateway-docker
nohup dockerd --host "$DOCKER_HOST" --bridge=none --iptables=false --ip6tables=false \
  --data-root /var/lib/gateway-docker --exec-root /run/gateway-docker/exec \
  --pidfile /run/gateway-docker/docker.pid >/var/log/gateway-dockerd.log 2>&1 &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "GATEWAY_DOCKER_HOST=$DOCKER_HOST"
    exit 0
  fi
  sleep 1
done
echo "docker-engine: dockerd did not answer within 60 s (see /var/log/gateway-dockerd.log)" >&2
exit 1
