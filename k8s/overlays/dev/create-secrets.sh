#!/bin/sh
# Creates the Secrets the dev overlay references (docs/operations.md lists every one) with
# random values and the in-cluster servers' URLs. Safe to run again: existing Secrets are kept.
set -eu
ns=${NAMESPACE:-gateway}
kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"
random() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
secret() {
  name=$1
  shift
  if kubectl -n "$ns" get secret "$name" >/dev/null 2>&1; then
    echo "secret $name exists; kept"
  else
    kubectl -n "$ns" create secret generic "$name" "$@"
  fi
}
secret gateway-service-token --from-literal=GATEWAY_SERVICE_TOKEN_SECRET="$(random)"
secret gateway-database --from-literal=DATABASE_URL=postgresql://postgres@postgres:5432/gateway
secret gateway-redis --from-literal=REDIS_URL=redis://redis:6379
secret gateway-nats --from-literal=NATS_URL=nats://nats:4222
secret gateway-admin --from-literal=GATEWAY_ADMIN_TOKEN="$(random)"
# Seals the vendor keys the catalogue store holds: keep it, or the stored keys cannot be opened again.
secret gateway-catalogue-key --from-literal=CATALOGUE_ENCRYPTION_KEY="$(random)"
secret gateway-edge --from-literal=FILE_URL_SIGNING_KEY="$(random)"
secret gateway-video \
  --from-literal=VIDEO_URL_SIGNING_KEY="$(random)" \
  --from-literal=VIDEO_CALLBACK_SIGNING_KEY="$(random)"
# The console's address as browsers reach it through the Ingress; add its sign-in clients
# (GITHUB_CLIENT_ID/SECRET or OIDC_ISSUER/CLIENT_ID/SECRET) and payment merchants (docs/console.md).
secret gateway-console --from-literal=CONSOLE_PUBLIC_URL=https://gateway.example.com
# The simulator's in-memory S3 (its default credentials and bucket).
secret gateway-video-s3 \
  --from-literal=VIDEO_S3_ENDPOINT=http://simulator:8090/s3 \
  --from-literal=VIDEO_S3_BUCKET=gateway-videos \
  --from-literal=VIDEO_S3_ACCESS_KEY_ID=simulator-access-key \
  --from-literal=VIDEO_S3_SECRET_ACCESS_KEY=simulator-secret-key
echo "TLS: kubectl -n $ns create secret tls gateway-tls --cert=CERT --key=KEY (any self-signed pair for a laptop)"
