import type { KubernetesObject } from "./kubernetes-object.js";

// biome-ignore lint/suspicious/noExplicitAny: pod specs are schema-checked before these rules read them.
type PodSpec = any;
// biome-ignore lint/suspicious/noExplicitAny: as above.
type Container = any;

const workloadKinds = new Set(["Deployment", "StatefulSet", "Job"]);
// Run-to-completion Jobs need no probes; long-running workloads must have all three.
const longRunningKinds = new Set(["Deployment", "StatefulSet"]);

export const nameOf = (object: KubernetesObject) => `${object.kind}/${object.metadata.name}`;
const podSpecOf = (object: KubernetesObject): PodSpec | undefined =>
  workloadKinds.has(object.kind) ? object.spec?.template?.spec : undefined;
/** Whether a non-empty label selector selects these labels. */
export const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([key, value]) => labels?.[key] === value);

function containerProblems(owner: string, pod: PodSpec, container: Container, longRunning: boolean): string[] {
  const where = `${owner} container ${container.name}`;
  const problems: string[] = [];
  for (const bound of ["requests", "limits"]) {
    for (const resource of ["cpu", "memory"]) {
      if (container.resources?.[bound]?.[resource] === undefined) problems.push(`${where}: no ${resource} ${bound}`);
    }
  }
  const own = container.securityContext ?? {};
  const inherited = pod.securityContext ?? {};
  const effective = (field: string) => own[field] ?? inherited[field];
  if (own.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
  if (own.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
  if (!own.capabilities?.drop?.includes("ALL")) problems.push(`${where}: capabilities do not drop ALL`);
  if (effective("runAsNonRoot") !== true) problems.push(`${where}: runAsNonRoot is not true`);
  const user = effective("runAsUser");
  if (!Number.isInteger(user) || user <= 0) problems.push(`${where}: runAsUser is not a numeric non-root user`);
  if (effective("seccompProfile")?.type !== "RuntimeDefault")
    problems.push(`${where}: seccompProfile is not RuntimeDefault`);
  if (longRunning) {
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
      if (!container[probe]) problems.push(`${where}: no ${probe}`);
    }
  }
  return problems;
}

/**
 * The deployment rules the schemas cannot express: every container bounded, probed and
 * locked down; every Deployment covered by a PodDisruptionBudget and running as a
 * ServiceAccount without a token; every namespace denying all traffic by default; no Secret
 * inlined; every Ingress backend an existing Service port. One line per broken rule.
 */
export function policyProblems(objects: KubernetesObject[]): string[] {
  const problems: string[] = [];
  const namespaceOf = (object: KubernetesObject) => object.metadata.namespace ?? "default";
  const inNamespace = (kind: string, namespace: string) =>
    objects.filter((object) => object.kind === kind && namespaceOf(object) === namespace);

  for (const object of objects) {
    if (object.kind === "Secret") problems.push(`${nameOf(object)}: Secrets are referenced by name, never inlined`);
    const pod = podSpecOf(object);
    if (!pod) continue;
    const longRunning = longRunningKinds.has(object.kind);
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      problems.push(...containerProblems(nameOf(object), pod, container, longRunning));
    }
    if (pod.automountServiceAccountToken !== false) {
      problems.push(`${nameOf(object)}: the pod does not turn off service account token automount`);
    }
  }

  for (const deployment of objects.filter((object) => object.kind === "Deployment")) {
    const namespace = namespaceOf(deployment);
    const labels = deployment.spec?.template?.metadata?.labels;
    const budget = inNamespace("PodDisruptionBudget", namespace).find((pdb) =>
      matches(pdb.spec?.selector?.matchLabels, labels),
    );
    if (!budget) problems.push(`${nameOf(deployment)}: no PodDisruptionBudget selects its pods`);
    const accountName = deployment.spec?.template?.spec?.serviceAccountName;
    const account = inNamespace("ServiceAccount", namespace).find((sa) => sa.metadata.name === accountName);
    if (!account) problems.push(`${nameOf(deployment)}: its ServiceAccount ${accountName ?? "(none)"} is not rendered`);
    else if (account.automountServiceAccountToken !== false) {
      problems.push(`${nameOf(deployment)}: ServiceAccount ${accountName} automounts its token`);
    }
  }

  const namespaces = new Set(objects.filter((object) => object.kind !== "Namespace").map(namespaceOf));
  for (const namespace of namespaces) {
    const denyAll = inNamespace("NetworkPolicy", namespace).some(
      (policy) =>
        Object.keys(policy.spec?.podSelector ?? {}).length === 0 &&
        policy.spec?.policyTypes?.includes("Ingress") &&
        policy.spec?.policyTypes?.includes("Egress") &&
        !policy.spec?.ingress?.length &&
        !policy.spec?.egress?.length,
    );
    if (!denyAll) problems.push(`namespace ${namespace}: no default-deny NetworkPolicy`);
  }

  for (const ingress of objects.filter((object) => object.kind === "Ingress")) {
    for (const rule of ingress.spec?.rules ?? []) {
      for (const path of rule.http?.paths ?? []) {
        const { name, port } = path.backend?.service ?? {};
        const service = inNamespace("Service", namespaceOf(ingress)).find(
          (candidate) => candidate.metadata.name === name,
        );
        const served = service?.spec?.ports?.some(
          (candidate: { name?: string; port: number }) =>
            candidate.name === port?.name || candidate.port === port?.number,
        );
        if (!served)
          problems.push(`${nameOf(ingress)}: ${path.path} goes to ${name}, which is not a rendered Service port`);
      }
    }
  }
  return problems;
}

/** The names of the Secrets the objects read (environment, volumes, Ingress TLS). */
export function referencedSecrets(objects: KubernetesObject[]): Set<string> {
  const names = new Set<string>();
  for (const object of objects) {
    for (const tls of object.kind === "Ingress" ? (object.spec?.tls ?? []) : []) names.add(tls.secretName);
    const pod = podSpecOf(object);
    if (!pod) continue;
    for (const volume of pod.volumes ?? []) if (volume.secret) names.add(volume.secret.secretName);
    for (const container of [...(pod.initContainers ?? []), ...(pod.containers ?? [])]) {
      for (const source of container.envFrom ?? []) if (source.secretRef) names.add(source.secretRef.name);
      for (const variable of container.env ?? []) {
        if (variable.valueFrom?.secretKeyRef) names.add(variable.valueFrom.secretKeyRef.name);
      }
    }
  }
  return names;
}
