#!/usr/bin/env bash
# scripts/docker-engine.sh [start|stop]
# start (the default): makes a Docker engine answer on /run/gateway-docker/docker.sock for
# `pnpm images` and `pnpm test:images`, and prints `GATEWAY_DOCKER_HOST=unix://…` for them.
# Installs Debian's docker.io, docker-compose and mmdebstrap where apt-get runs as root, and
# starts dockerd without bridge or iptables (containers use the host's network).
# Exits 2 (saying why) where no engine can be had at all (not root, no apt-get), 1 when getting
# one failed (an install, a daemon that does not answer).
# stop: stops the daemon `start` started (and its containerd), leaving no process or mount behind.
# Not on the default socket: the test suite's testcontainers would start its datastores in it.
set -euo pipefail
socket=/run/gateway-docker/docker.sock
pidfile=/run/gateway-docker/docker.pid
export DOCKER_HOST="unix://$socket"

if [ "${1:-start}" = stop ]; then
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
    # dockerd stops its containers, unmounts and ends containerd before it exits.
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "docker-engine: dockerd $pid still runs after 60 s (see /var/log/gateway-dockerd.log)" >&2
      exit 1
    fi
  fi
  # What the daemon leaves mounted (its network namespace's bind mount), deepest first.
  awk '$2 ~ "^/run/gateway-docker/" { print $2 }' /proc/mounts | sort -r | while read -r mount; do
    umount "$mount"
  done
  rm -rf /run/gateway-docker
  echo "docker-engine: stopped"
  exit 0
fi

if docker info >/dev/null 2>&1; then
  echo "GATEWAY_DOCKER_HOST=$DOCKER_HOST"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "docker-engine: not root, so no daemon can be started here" >&2
  exit 2
fi
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "docker-engine: ${missing[*]} missing and apt-get is unavailable" >&2
    exit 2
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
  --pidfile "$pidfile" >/var/log/gateway-dockerd.log 2>&1 &
for _ in $(seq 1 60); do
  if docker info >/dev/null 2>&1; then
    echo "GATEWAY_DOCKER_HOST=$DOCKER_HOST"
    exit 0
  fi
  sleep 1
done
echo "docker-engine: dockerd did not answer within 60 s (see /var/log/gateway-dockerd.log)" >&2
exit 1
