import type { KubernetesObject } from "./kubernetes-object.js";

interface Workload {
  name: string;
  labels: Record<string, string>;
  ports: number[];
}
interface Peer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: object;
  ipBlock?: object;
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: Array<{ port?: number }>;
}

const selects = (selector: { matchLabels?: Record<string, string> } | undefined, labels: Record<string, string>) =>
  Object.entries(selector?.matchLabels ?? {}).every(([key, value]) => labels[key] === value);

// Address blocks are left out: they stand for servers outside the cluster (vendors, managed databases).
const admitsPod = (peers: Peer[] | undefined, labels: Record<string, string>) =>
  peers === undefined || peers.some((peer) => peer.podSelector !== undefined && selects(peer.podSelector, labels));
const admitsPort = (rule: Rule, port: number) =>
  rule.ports === undefined || rule.ports.some((entry) => entry.port === port);

function workloadsOf(objects: KubernetesObject[]): Workload[] {
  return objects
    .filter((object) => ["Deployment", "StatefulSet", "Job"].includes(object.kind))
    .map((object) => ({
      name: object.metadata.name,
      labels: object.spec.template.metadata?.labels ?? {},
      ports: object.spec.template.spec.containers.flatMap((container: { ports?: Array<{ containerPort: number }> }) =>
        (container.ports ?? []).map((port) => port.containerPort),
      ),
    }));
}

/**
 * The connections the NetworkPolicies of one namespace let its own pods open to each other,
 * as `source → destination:port`: allowed only when a policy selecting the source lets it out
 * and a policy selecting the destination lets it in (every pod is selected by default-deny).
 */
export function namespaceArrows(objects: KubernetesObject[]): string[] {
  const policies = objects.filter((object) => object.kind === "NetworkPolicy");
  const workloads = workloadsOf(objects);
  const rulesFor = (direction: "ingress" | "egress", labels: Record<string, string>): Rule[] =>
    policies
      .filter((policy) => selects(policy.spec.podSelector, labels))
      .filter((policy) => policy.spec.policyTypes.includes(direction === "ingress" ? "Ingress" : "Egress"))
      .flatMap((policy) => policy.spec[direction] ?? []);
  const arrows: string[] = [];
  for (const source of workloads) {
    const egress = rulesFor("egress", source.labels);
    for (const destination of workloads) {
      if (destination === source) continue;
      const ingress = rulesFor("ingress", destination.labels);
      for (const port of destination.ports) {
        const out = egress.some((rule) => admitsPort(rule, port) && admitsPod(rule.to, destination.labels));
        const into = ingress.some((rule) => admitsPort(rule, port) && admitsPod(rule.from, source.labels));
        if (out && into) arrows.push(`${source.name} → ${destination.name}:${port}`);
      }
    }
  }
  return arrows.sort();
}
