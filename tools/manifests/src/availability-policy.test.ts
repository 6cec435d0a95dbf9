import { describe, expect, it } from "vitest";
import { availabilityProblems, minimumReplicas } from "./availability-policy.js";
import type { KubernetesObject } from "./kubernetes-object.js";

const labels = (name: string) => ({ "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "gateway" });
const spread = (name: string) =>
  ["topology.kubernetes.io/zone", "kubernetes.io/hostname"].map((topologyKey) => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: "ScheduleAnyway",
    labelSelector: { matchLabels: { "app.kubernetes.io/name": name } },
  }));

function deployment(name: string, env: Array<{ name: string; value: string }>, spec: object = {}): KubernetesObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "ns" },
    spec: {
      replicas: 2,
      minReadySeconds: 10,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      selector: { matchLabels: labels(name) },
      template: {
        metadata: { labels: labels(name) },
        spec: {
          terminationGracePeriodSeconds: 60,
          topologySpreadConstraints: spread(name),
          containers: [
            {
              name,
              env: [
                { name: "SHUTDOWN_GRACE_MS", value: "50000" },
                { name: "SHUTDOWN_READINESS_DELAY_MS", value: "5000" },
                ...env,
              ],
              readinessProbe: { grpc: { port: 50051 }, periodSeconds: 2, failureThreshold: 2 },
            },
          ],
        },
      },
      ...spec,
    },
  };
}
const budget = (name: string, spec: object = { maxUnavailable: 1 }): KubernetesObject => ({
  apiVersion: "policy/v1",
  kind: "PodDisruptionBudget",
  metadata: { name, namespace: "ns" },
  spec: { selector: { matchLabels: { "app.kubernetes.io/name": name } }, ...spec },
});
const service = (name: string, app: string, spec: object = { clusterIP: "None" }): KubernetesObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "ns" },
  spec: { selector: { "app.kubernetes.io/name": app }, ports: [{ name: "grpc", port: 50051 }], ...spec },
});

function compliant(routerUrl = "dns:///router-grpc:50051"): KubernetesObject[] {
  return [
    deployment("edge", [{ name: "ROUTER_URL", value: routerUrl }]),
    budget("edge"),
    deployment("router", []),
    budget("router"),
    service("router-grpc", "router"),
  ];
}

describe("the availability policy", () => {
  it("passes replicated Deployments reached through a headless Service, budgeted, spread and drained in time", () => {
    expect(availabilityProblems(compliant())).toEqual([]);
    expect(availabilityProblems(compliant("dns:///router-grpc.ns.svc.cluster.local:50051"))).toEqual([]);
  });

  it("refuses a gRPC client pointed at a ClusterIP Service, a fixed address list or a Service that is not there", () => {
    const clusterIp = [...compliant("dns:///router:50051"), service("router", "router", { clusterIP: undefined })];
    expect(availabilityProblems(clusterIp)).toEqual([
      "Deployment/edge ROUTER_URL=dns:///router:50051: Service router is not headless, so one connection would pin one pod",
    ]);
    expect(availabilityProblems(compliant("router:50051"))).toEqual([
      "Deployment/edge ROUTER_URL=router:50051: not a dns:///<headless Service>:<port> target, so it would not follow the pods",
    ]);
    expect(availabilityProblems(compliant("dns:///routers:50051"))).toEqual([
      "Deployment/edge ROUTER_URL=dns:///routers:50051: no Service routers is rendered",
    ]);
    expect(availabilityProblems(compliant("dns:///router-grpc:50052"))).toEqual([
      "Deployment/edge ROUTER_URL=dns:///router-grpc:50052: Service router-grpc has no port 50052",
    ]);
    expect(availabilityProblems(compliant("dns:///router-grpc.elsewhere:50051"))).toEqual([
      "Deployment/edge ROUTER_URL=dns:///router-grpc.elsewhere:50051: names a Service outside the namespace ns",
    ]);
  });

  it("refuses a replicated Deployment without a budget that keeps one up, spread, or a surge-first rollout", () => {
    const [edge] = compliant();
    const bare = deployment("router", [], {
      minReadySeconds: 0,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%" } },
      template: { metadata: { labels: labels("router") }, spec: { terminationGracePeriodSeconds: 60, containers: [] } },
    });
    expect(
      availabilityProblems([edge as KubernetesObject, budget("edge"), bare, service("router-grpc", "router")]),
    ).toEqual([
      "Deployment/router (2 replicas at least): no PodDisruptionBudget keeps one replica up",
      "Deployment/router (2 replicas at least): its pods are not spread over topology.kubernetes.io/zone",
      "Deployment/router (2 replicas at least): its pods are not spread over kubernetes.io/hostname",
      "Deployment/router (2 replicas at least): a rollout may take a replica away before its successor is ready (maxUnavailable is not 0)",
      "Deployment/router (2 replicas at least): minReadySeconds is below 5, so the next old pod drains before clients can resolve the new one",
    ]);
    const allOut = [
      ...compliant().filter((object) => object.metadata.name !== "router" || object.kind !== "PodDisruptionBudget"),
      budget("router", { minAvailable: 0 }),
    ];
    expect(availabilityProblems(allOut)).toEqual([
      "Deployment/router (2 replicas at least): no PodDisruptionBudget keeps one replica up",
    ]);
  });

  it("counts an autoscaled Deployment's floor, not its manifest's replicas, and leaves single replicas alone", () => {
    const single = deployment("router", [], { replicas: 1, strategy: undefined, minReadySeconds: undefined });
    const autoscaler: KubernetesObject = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "router", namespace: "ns" },
      spec: {
        scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "router" },
        minReplicas: 3,
        maxReplicas: 9,
      },
    };
    expect(minimumReplicas([single], single)).toBe(1);
    expect(availabilityProblems([single])).toEqual([]);
    expect(minimumReplicas([single, autoscaler], single)).toBe(3);
    expect(availabilityProblems([single, autoscaler])).toContain(
      "Deployment/router (3 replicas at least): no PodDisruptionBudget keeps one replica up",
    );
  });

  it("refuses a drain that refuses calls before the pod is dropped, or that the kubelet cuts before usage is flushed", () => {
    const timed = (
      env: Array<{ name: string; value: string }>,
      probe: object,
      terminationGracePeriodSeconds: number,
    ) => {
      const router = deployment("router", []);
      const pod = router.spec.template.spec;
      pod.terminationGracePeriodSeconds = terminationGracePeriodSeconds;
      pod.containers[0].env = env;
      pod.containers[0].readinessProbe = probe;
      return availabilityProblems([router, budget("router")]);
    };
    expect(timed([{ name: "SHUTDOWN_GRACE_MS", value: "50000" }], {}, 60)).toEqual([
      "Deployment/router container router: SHUTDOWN_READINESS_DELAY_MS is not set (its default depends on GATEWAY_ENV)",
    ]);
    expect(
      timed(
        [
          { name: "SHUTDOWN_GRACE_MS", value: "58000" },
          { name: "SHUTDOWN_READINESS_DELAY_MS", value: "1000" },
        ],
        { periodSeconds: 5, failureThreshold: 2 },
        60,
      ),
    ).toEqual([
      "Deployment/router container router: refuses new calls 1000 ms after SIGTERM, before DNS answers naming it expire",
      "Deployment/router container router: the readiness probe marks a draining pod unready only after 10000 ms, past the readiness delay",
      "Deployment/router container router: terminationGracePeriodSeconds leaves under 5000 ms to flush usage after SHUTDOWN_GRACE_MS",
    ]);
  });
});
