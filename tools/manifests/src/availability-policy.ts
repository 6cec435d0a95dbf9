import type { KubernetesObject } from "./kubernetes-object.js";
import { matches, nameOf } from "./manifest-policy.js";

// biome-ignore lint/suspicious/noExplicitAny: pod specs are schema-checked before these rules read them.
type Container = any;

/** The settings that hold a gRPC client's target: each must reach every replica of its server. */
export const grpcClientSettings = ["ROUTER_URL", "LEDGER_URL", "VIDEO_URL"];
// CoreDNS's kubernetes plugin answers with a 5 s TTL: a pod's address outlives its readiness that long.
const dnsAnswerLifetimeSeconds = 5;
// After SHUTDOWN_GRACE_MS, router waits up to 2 s for the calls it cut and then flushes its usage.
const usageFlushMarginMs = 5_000;
// `dns:///name:port` or `dns://authority/name:port`, the name short or qualified with the namespace.
const dnsTarget = /^dns:(?:\/\/[^/]*)?\/([a-z0-9-]+)((?:\.[a-z0-9-]+)*):(\d+)$/;

const workloadKinds = new Set(["Deployment", "StatefulSet", "Job"]);
const namespaceOf = (object: KubernetesObject) => object.metadata.namespace ?? "default";
const percentOf = (value: number | string, of: number, round: (x: number) => number) =>
  typeof value === "number" ? value : round((of * Number.parseFloat(value)) / 100);
const envValue = (container: Container, name: string): string | undefined =>
  container.env?.find((variable: { name: string }) => variable.name === name)?.value;

/** The fewest pods a Deployment runs: its HorizontalPodAutoscaler's floor where one scales it. */
export function minimumReplicas(objects: KubernetesObject[], deployment: KubernetesObject): number {
  const autoscaler = objects.find(
    (object) =>
      object.kind === "HorizontalPodAutoscaler" &&
      namespaceOf(object) === namespaceOf(deployment) &&
      object.spec?.scaleTargetRef?.kind === "Deployment" &&
      object.spec?.scaleTargetRef?.name === deployment.metadata.name,
  );
  return autoscaler ? (autoscaler.spec.minReplicas ?? 1) : (deployment.spec?.replicas ?? 1);
}

function targetProblems(objects: KubernetesObject[], owner: KubernetesObject, setting: string, value: string) {
  const where = `${nameOf(owner)} ${setting}=${value}`;
  const match = dnsTarget.exec(value);
  if (!match) return [`${where}: not a dns:///<headless Service>:<port> target, so it would not follow the pods`];
  const [, serviceName, qualifier, port] = match;
  const namespace = namespaceOf(owner);
  if (qualifier && !`${qualifier}.`.startsWith(`.${namespace}.`)) {
    return [`${where}: names a Service outside the namespace ${namespace}`];
  }
  const service = objects.find(
    (object) => object.kind === "Service" && object.metadata.name === serviceName && namespaceOf(object) === namespace,
  );
  if (!service) return [`${where}: no Service ${serviceName} is rendered`];
  const problems: string[] = [];
  if (service.spec?.clusterIP !== "None") {
    problems.push(`${where}: Service ${serviceName} is not headless, so one connection would pin one pod`);
  }
  if (service.spec?.publishNotReadyAddresses === true) {
    problems.push(`${where}: Service ${serviceName} publishes pods that are not ready`);
  }
  if (!service.spec?.ports?.some((candidate: { port: number }) => candidate.port === Number(port))) {
    problems.push(`${where}: Service ${serviceName} has no port ${port}`);
  }
  const backed = objects.some(
    (object) =>
      object.kind === "Deployment" &&
      namespaceOf(object) === namespace &&
      matches(service.spec?.selector, object.spec?.template?.metadata?.labels),
  );
  if (!backed) problems.push(`${where}: Service ${serviceName} selects no Deployment's pods`);
  return problems;
}

function budgetKeepsOneUp(budget: KubernetesObject, replicas: number): boolean {
  const { minAvailable, maxUnavailable } = budget.spec ?? {};
  if (minAvailable !== undefined) return percentOf(minAvailable, replicas, Math.ceil) >= 1;
  if (maxUnavailable !== undefined) return percentOf(maxUnavailable, replicas, Math.ceil) <= replicas - 1;
  return false;
}

function replicatedProblems(objects: KubernetesObject[], deployment: KubernetesObject, replicas: number): string[] {
  const where = `${nameOf(deployment)} (${replicas} replicas at least)`;
  const labels = deployment.spec?.template?.metadata?.labels;
  const problems: string[] = [];
  const budgets = objects.filter(
    (object) =>
      object.kind === "PodDisruptionBudget" &&
      namespaceOf(object) === namespaceOf(deployment) &&
      matches(object.spec?.selector?.matchLabels, labels),
  );
  if (!budgets.some((budget) => budgetKeepsOneUp(budget, replicas))) {
    problems.push(`${where}: no PodDisruptionBudget keeps one replica up`);
  }
  const spread = deployment.spec?.template?.spec?.topologySpreadConstraints ?? [];
  for (const key of ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]) {
    const constraint = spread.find((candidate: { topologyKey: string }) => candidate.topologyKey === key);
    if (!constraint || !matches(constraint.labelSelector?.matchLabels, labels)) {
      problems.push(`${where}: its pods are not spread over ${key}`);
    }
  }
  const strategy = deployment.spec?.strategy;
  const maxUnavailable = strategy?.rollingUpdate?.maxUnavailable;
  if (strategy?.type === "Recreate" || (maxUnavailable !== 0 && maxUnavailable !== "0%")) {
    problems.push(
      `${where}: a rollout may take a replica away before its successor is ready (maxUnavailable is not 0)`,
    );
  }
  if ((deployment.spec?.minReadySeconds ?? 0) < dnsAnswerLifetimeSeconds) {
    problems.push(
      `${where}: minReadySeconds is below ${dnsAnswerLifetimeSeconds}, so the next old pod drains before clients can resolve the new one`,
    );
  }
  return problems;
}

function shutdownProblems(deployment: KubernetesObject, container: Container): string[] {
  const graceMs = Number(envValue(container, "SHUTDOWN_GRACE_MS"));
  if (!Number.isFinite(graceMs)) return [];
  const where = `${nameOf(deployment)} container ${container.name}`;
  const delayText = envValue(container, "SHUTDOWN_READINESS_DELAY_MS");
  if (delayText === undefined)
    return [`${where}: SHUTDOWN_READINESS_DELAY_MS is not set (its default depends on GATEWAY_ENV)`];
  const delayMs = Number(delayText);
  const problems: string[] = [];
  if (delayMs < dnsAnswerLifetimeSeconds * 1000) {
    problems.push(`${where}: refuses new calls ${delayMs} ms after SIGTERM, before DNS answers naming it expire`);
  }
  const probe = container.readinessProbe;
  const noticedMs = (probe?.periodSeconds ?? 10) * (probe?.failureThreshold ?? 3) * 1000;
  if (!probe || noticedMs > delayMs) {
    problems.push(
      `${where}: the readiness probe marks a draining pod unready only after ${noticedMs} ms, past the readiness delay`,
    );
  }
  if (graceMs <= delayMs) problems.push(`${where}: SHUTDOWN_GRACE_MS ends within the readiness delay`);
  const terminationMs = (deployment.spec?.template?.spec?.terminationGracePeriodSeconds ?? 30) * 1000;
  if (terminationMs < graceMs + usageFlushMarginMs) {
    problems.push(
      `${where}: terminationGracePeriodSeconds leaves under ${usageFlushMarginMs} ms to flush usage after SHUTDOWN_GRACE_MS`,
    );
  }
  return problems;
}

/**
 * The rules that let a service lose a pod, or roll all of them, without failing a request:
 * every gRPC client setting a dns target of a headless Service (a ClusterIP pins one pod per
 * connection); every Deployment of two replicas or more covered by a PodDisruptionBudget that
 * keeps one up, spread over zones and nodes, and rolled one new pod before each old one; every
 * drain timed so endpoint lists, DNS and the readiness probe drop the pod before it refuses
 * calls, and the kubelet waits for the usage flush. One line per broken rule.
 */
export function availabilityProblems(objects: KubernetesObject[]): string[] {
  const problems: string[] = [];
  for (const workload of objects.filter((object) => workloadKinds.has(object.kind))) {
    const pod = workload.spec?.template?.spec;
    for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
      for (const setting of grpcClientSettings) {
        const value = envValue(container, setting);
        if (value !== undefined) problems.push(...targetProblems(objects, workload, setting, value));
      }
      if (workload.kind === "Deployment") problems.push(...shutdownProblems(workload, container));
    }
    const replicas = workload.kind === "Deployment" ? minimumReplicas(objects, workload) : 1;
    if (replicas >= 2) problems.push(...replicatedProblems(objects, workload, replicas));
  }
  return problems;
}
