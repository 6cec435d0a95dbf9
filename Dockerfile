# One Dockerfile for every service: `docker build --target <service> .` with <service> one of
# edge, router, ledger, video, console, simulator (development only). `pnpm images` builds them all;
# the build stage is shared, so it runs once. tools/images/src/dockerfile-rules.ts checks this
# file in the test command (base pinned, USER non-root, tini, deploy output only). The classic
# builder and BuildKit both build it (no `# syntax=` line: BuildKit would pull its frontend).
#
# BASE: node:24-bookworm-slim (Node 24.18.0) pinned by digest. The build machines reach
# no container registry, so the digest was taken from public Dockerfiles that pin this tag
# (cyanxxy/open-ocr-cli-mcp, Dockerfile at commit 9b9df545ba3f, among others); move tag and
# digest together, after checking the digest with `docker buildx imagetools inspect`. Where no
# registry answers, `pnpm images` passes BASE=gateway/base:<hash>, a Debian bookworm root
# filesystem with Node 24, npm, tini and the same `node` user made from Debian's and npm's
# packages (`pnpm images:base`, tools/images/src/base-image.ts).
ARG BASE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d
FROM ${BASE} AS node

FROM node AS build
# EXTRA_CA_CERTS: PEM certificates the build trusts besides Node's own, for a machine that reaches
# the npm registry through a TLS-intercepting proxy (`pnpm images` passes the ones added under
# /usr/local/share/ca-certificates). They stay in this stage: no runtime stage copies them.
ARG EXTRA_CA_CERTS=""
ENV NODE_EXTRA_CA_CERTS=/tmp/build-extra-ca.pem
RUN printf '%s\n' "$EXTRA_CA_CERTS" > "$NODE_EXTRA_CA_CERTS"
# corepack's signature check fails against some registries; npm installs the pinned pnpm.
RUN npm install --global pnpm@10.34.9
WORKDIR /src
# The lockfile alone fills pnpm's store, so this layer survives source changes;
# .pnpmfile.cjs keeps the Prisma CLI out of the deployed services (see there).
COPY pnpm-lock.yaml pnpm-workspace.yaml .pnpmfile.cjs ./
# The lockfile names the patched dependencies; pnpm reads their patch files (pnpm/pnpm#5268).
COPY patches ./patches
RUN pnpm fetch
COPY . .
RUN pnpm install --offline --frozen-lockfile
# Generated code (ts-proto, Prisma clients under src/generated) and the services' own
# projects only: the test projects are not in the build context.
RUN pnpm gen && pnpm exec tsc -b services/edge services/router services/ledger services/video services/console services/simulator
# The console's web app (its own workspace package, when present) builds to services/console/web/dist.
RUN pnpm --filter @gateway/console-web --if-present run build && mkdir -p services/console/web/dist
# `pnpm deploy --prod` copies each service with its workspace packages and production
# dependencies only; nothing else of /src reaches a runtime stage. `--legacy` because the
# workspace links its packages instead of injecting them (pnpm 10 deploys injected ones
# only otherwise), which resolves each service's dependencies again (asking the registry for
# their metadata, so not `--offline`). The six run at once: each spends most of its time
# resolving on one core or waiting for the registry, then copying files. Type declarations, source maps and markdown go: nothing reads them at run time
# (no --enable-source-maps), and they are half the files each image's COPY below handles
# (licence files stay).
# The model catalogue and the NATS usage-stream definition go beside each deployment
# (CATALOGUE_PATH and USAGE_STREAM_DEFINITION below).
RUN services="edge router ledger video console simulator"; pids=""; \
    for service in $services; do \
      pnpm --filter "@gateway/$service" deploy --legacy --prod "/deploy/$service" >"/tmp/deploy-$service.log" 2>&1 & \
      pids="$pids $!"; \
    done; \
    failed=""; for pid in $pids; do wait "$pid" || failed=yes; done; \
    if [ -n "$failed" ]; then tail -n 30 /tmp/deploy-*.log; exit 1; fi; \
    for service in $services; do cp -r infra "/deploy/$service/infra" || exit 1; done; \
    rm -rf /deploy/console/web && cp -r services/console/web/dist /deploy/console/web \
    && find /deploy -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' -o -name '*.md' \) \
      ! -iname 'licen[cs]e*' ! -iname 'notice*' ! -iname 'copying*' -delete

FROM node AS runtime
# tini as PID 1 forwards SIGTERM to node and reaps children (Node as PID 1 ignores default signal dispositions).
# (The local base has it already.)
RUN command -v tini >/dev/null || { apt-get update \
    && apt-get install --yes --no-install-recommends tini \
    && rm -rf /var/lib/apt/lists/*; }
# The only paths a service writes: mount each as an emptyDir (or a persistent volume, see
# docs/operations.md "Images") so the root filesystem can be read-only.
#   /var/lib/gateway/spool   router, video: usage events NATS has not taken yet
#   /var/lib/gateway/files   router writes, edge serves: generated images (shared volume)
#   /var/lib/gateway/videos  video: finished videos when VIDEO_STORAGE=filesystem
#   /tmp                     any: Node and libraries' scratch files
RUN mkdir -p /var/lib/gateway/spool /var/lib/gateway/files /var/lib/gateway/videos \
    && chown -R 1000:1000 /var/lib/gateway
ENV NODE_ENV=production \
    USAGE_SPOOL_DIR=/var/lib/gateway/spool \
    GATEWAY_FILES_DIR=/var/lib/gateway/files \
    VIDEO_STORAGE_DIR=/var/lib/gateway/videos \
    CATALOGUE_PATH=/app/infra/catalogue/models.yaml \
    USAGE_STREAM_DEFINITION=/app/infra/nats/usage.json \
    EDGE_HOST=0.0.0.0 \
    ROUTER_HOST=0.0.0.0 \
    LEDGER_HOST=0.0.0.0 \
    VIDEO_HOST=0.0.0.0 \
    CONSOLE_HOST=0.0.0.0 \
    SIMULATOR_HOST=0.0.0.0
WORKDIR /app
# The base image's `node` user; Kubernetes' runAsNonRoot needs the numeric id to verify it.
USER 1000:1000
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/main.js"]

# Edge, ledger and the console answer GET /healthz over HTTP on HEALTHZ_PORT (their own port variable's
# value: override both together); the timeout covers starting Node for each check too, which alone can
# take 3 s on a busy machine. Router and video serve gRPC only and get no HEALTHCHECK: Kubernetes
# probes them with the gRPC health checking protocol.
FROM runtime AS http-health
HEALTHCHECK --interval=10s --timeout=10s --start-period=10s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HEALTHZ_PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

FROM http-health AS edge
COPY --from=build /deploy/edge /app
# A young generation of at most 3 x 4 MB (Node 24 grows it to 3 x 32 MB or more): ~120 MB less
# peak RSS under load than by default, for ~4 % more time in GC (router keeps 8: 4 saved it only
# ~12 MB for ~5 % more CPU). An old generation capped below the pod's
# memory limit (k8s/base), which also makes V8 grow the heap by ~1.35x its live size between
# full collections instead of up to 4x (docs/perf/hot-path.md). tools/stack sets the same flags.
ENV HEALTHZ_PORT=8080 \
    NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=320"
EXPOSE 8080

FROM runtime AS router
COPY --from=build /deploy/router /app
# As edge's (above), under a 640 MiB limit.
ENV NODE_OPTIONS="--max-semi-space-size=8 --max-old-space-size=448"
EXPOSE 50051

# Also the migration Job's image: `node dist/migrate-main.js` applies the ledger schema.
FROM http-health AS ledger
COPY --from=build /deploy/ledger /app
# As edge's (above), under a 640 MiB limit.
ENV HEALTHZ_PORT=8082 \
    NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=448"
EXPOSE 50052 8082

# Also the migration Job's image: `node dist/migrate-main.js` applies the video schema.
FROM runtime AS video
COPY --from=build /deploy/video /app
# As edge's (above), under a 640 MiB limit.
ENV NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=448"
EXPOSE 50053

# The console: its server and the built web app (CONSOLE_WEB_DIR).
FROM http-health AS console
COPY --from=build /deploy/console /app
# As edge's (above), under a 384 MiB limit: by default its heap grew to 235 MB of RSS under load.
ENV HEALTHZ_PORT=8081 \
    CONSOLE_WEB_DIR=/app/web \
    NODE_OPTIONS="--max-semi-space-size=4 --max-old-space-size=224"
EXPOSE 8081

# Development only (the dev overlay's vendor stand-in); production runs without it.
FROM runtime AS simulator
COPY --from=build /deploy/simulator /app
EXPOSE 8090
