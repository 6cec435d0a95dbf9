import { describe, expect, it } from "vitest";
import type { KubernetesObject } from "./kubernetes-object.js";
import { policyProblems, referencedSecrets } from "./manifest-policy.js";

const lockedDown = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  runAsUser: 10001,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
};
const probe = { httpGet: { path: "/healthz", port: 8080 } };
const container = {
  name: "app",
  image: "gateway/app",
  resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "1", memory: "128Mi" } },
  securityContext: lockedDown,
  startupProbe: probe,
  readinessProbe: probe,
  livenessProbe: probe,
  envFrom: [{ secretRef: { name: "app-secret" } }],
};
const labels = { "app.kubernetes.io/name": "app" };

function compliant(overrides: { container?: object; pod?: object } = {}): KubernetesObject[] {
  return [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "app", namespace: "ns" },
      spec: {
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: "app",
            automountServiceAccountToken: false,
            containers: [{ ...container, ...overrides.container }],
            ...overrides.pod,
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: "app", namespace: "ns" },
      automountServiceAccountToken: false,
    },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "app", namespace: "ns" },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "default-deny", namespace: "ns" },
      spec: { podSelector: {}, policyTypes: ["Ingress", "Egress"] },
    },
  ];
}

describe("the manifest policy", () => {
  it("passes a bounded, probed, locked-down Deployment with its PDB, account and default deny", () => {
    expect(policyProblems(compliant())).toEqual([]);
    expect([...referencedSecrets(compliant())]).toEqual(["app-secret"]);
  });

  it("names each container that lacks limits, a probe or a piece of the security context", () => {
    const { limits: _limits, ...requestsOnly } = container.resources;
    const problems = policyProblems(
      compliant({
        container: {
          resources: requestsOnly,
          livenessProbe: undefined,
          securityContext: { ...lockedDown, readOnlyRootFilesystem: false, runAsUser: "app", capabilities: {} },
        },
      }),
    );
    expect(problems).toEqual([
      "Deployment/app container app: no cpu limits",
      "Deployment/app container app: no memory limits",
      "Deployment/app container app: readOnlyRootFilesystem is not true",
      "Deployment/app container app: capabilities do not drop ALL",
      "Deployment/app container app: runAsUser is not a numeric non-root user",
      "Deployment/app container app: no livenessProbe",
    ]);
  });

  it("refuses a Deployment without a PDB, an account that mounts its token, a namespace without default deny and inlined Secrets", () => {
    const [deployment, account] = compliant();
    const problems = policyProblems([
      deployment as KubernetesObject,
      { ...(account as KubernetesObject), automountServiceAccountToken: true },
      { apiVersion: "v1", kind: "Secret", metadata: { name: "inline", namespace: "ns" } },
    ]);
    expect(problems).toEqual([
      "Secret/inline: Secrets are referenced by name, never inlined",
      "Deployment/app: no PodDisruptionBudget selects its pods",
      "Deployment/app: ServiceAccount app automounts its token",
      "namespace ns: no default-deny NetworkPolicy",
    ]);
  });

  it("refuses an Ingress whose backend is not a rendered Service", () => {
    const ingress: KubernetesObject = {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "gateway", namespace: "ns" },
      spec: {
        rules: [
          {
            http: {
              paths: [
                { path: "/", pathType: "Prefix", backend: { service: { name: "console", port: { name: "http" } } } },
              ],
            },
          },
        ],
      },
    };
    expect(policyProblems([...compliant(), ingress])).toEqual([
      "Ingress/gateway: / goes to console, which is not a rendered Service port",
    ]);
  });
});
