import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import type { ComposeService } from "./compose-file.js";
import { repoRoot } from "./service-images.js";

// biome-ignore lint/suspicious/noExplicitAny: manifest fields are read by name; the manifest test checks their schema.
type Manifest = any;

/** Where each compose service's settings live in k8s/: the object, and its (init) container. */
export const k8sCounterparts: Record<string, { file: string; kind: string; name: string; container: string }> = {
  edge: { file: "k8s/base/edge.yaml", kind: "Deployment", name: "edge", container: "edge" },
  router: { file: "k8s/base/router.yaml", kind: "Deployment", name: "router", container: "router" },
  ledger: { file: "k8s/base/ledger.yaml", kind: "Deployment", name: "ledger", container: "ledger" },
  video: { file: "k8s/base/video.yaml", kind: "Deployment", name: "video", container: "video" },
  console: { file: "k8s/components/console/console.yaml", kind: "Deployment", name: "console", container: "console" },
  simulator: { file: "k8s/overlays/dev/simulator.yaml", kind: "Deployment", name: "simulator", container: "simulator" },
  "migrate-ledger": { file: "k8s/base/migrate-job.yaml", kind: "Job", name: "gateway-migrate", container: "ledger" },
  "migrate-video": { file: "k8s/base/migrate-job.yaml", kind: "Job", name: "gateway-migrate", container: "video" },
  "migrate-router": { file: "k8s/base/migrate-job.yaml", kind: "Job", name: "gateway-migrate", container: "router" },
  "usage-stream": {
    file: "k8s/base/usage-stream-job.yaml",
    kind: "Job",
    name: "gateway-usage-stream",
    container: "usage-stream",
  },
};

/**
 * The differences one server's host network forces, each allowed only in the form given here:
 * services reach each other on loopback instead of through headless Services' DNS names, the
 * services no client outside the host calls listen on loopback only, and video keeps finished
 * videos on a volume of the one server instead of a bucket every replica reads.
 */
const grpcAddressSettings = new Set(["ROUTER_URL", "LEDGER_URL", "VIDEO_URL"]);
const loopbackListeners = new Set(["ROUTER_HOST", "LEDGER_HOST", "VIDEO_HOST", "SIMULATOR_HOST"]);
const videosOnVolume = { VIDEO_STORAGE: "filesystem", VIDEO_STORAGE_DIR: "/var/lib/gateway/videos" };

function k8sObject(file: string, kind: string, name: string): Manifest {
  const documents = parseAllDocuments(readFileSync(`${repoRoot}${file}`, "utf8")).map((document) => document.toJS());
  const found = documents.find((object: Manifest) => object?.kind === kind && object.metadata?.name === name);
  if (!found) throw new Error(`${file} has no ${kind}/${name}`);
  return found;
}

/** The keys each Secret holds, from docs/operations.md's table ("Secrets are referenced by name"). */
export function documentedSecretKeys(): Map<string, RegExp[]> {
  const keys = new Map<string, RegExp[]>();
  const text = readFileSync(`${repoRoot}docs/operations.md`, "utf8");
  for (const row of text.split("\n").filter((line) => line.startsWith("| `gateway-"))) {
    const [names = "", held = ""] = row.split("|").slice(1);
    const patterns = [...held.matchAll(/`([A-Z][A-Z0-9_*]*)`/g)].map(
      ([, key]) => new RegExp(`^${(key ?? "").replaceAll("*", "[A-Z0-9_]+")}$`),
    );
    // "OPENAI_API_KEY, ANTHROPIC_API_KEY, … and their *_BASE_URL": every vendor's.
    if (held.includes("…")) patterns.push(/^[A-Z0-9]+_API_KEY$/, /^[A-Z0-9]+_BASE_URL$/);
    for (const [, name] of names.matchAll(/`(gateway-[a-z0-9-]+)`/g)) keys.set(name ?? "", patterns);
  }
  return keys;
}

function configMapKeys(): Set<string> {
  const keys = new Set<string>();
  for (const file of ["k8s/base/settings.yaml", "k8s/overlays/dev/settings.yaml", "k8s/overlays/prod/settings.yaml"]) {
    for (const key of Object.keys(k8sObject(file, "ConfigMap", "gateway-settings").data ?? {})) keys.add(key);
  }
  return keys;
}

const portOf = (address: string) => /:(\d+)$/.exec(address)?.[1];
const seconds = (value: number | undefined) => (value === undefined ? undefined : `${value}s`);
// Kubernetes' quantities as Compose writes them: 512Mi is 512m (Compose's m is MiB), 500m CPU is 0.5.
const memory = (quantity: string | undefined) => quantity?.replace(/Mi$/, "m");
const cpus = (quantity: string | undefined) =>
  quantity === undefined ? undefined : quantity.endsWith("m") ? Number(quantity.slice(0, -1)) / 1000 : Number(quantity);

function probeTarget(probe: Manifest, ports: Manifest[]): string | undefined {
  const port = (value: string | number) =>
    typeof value === "number" ? value : ports.find((entry) => entry.name === value)?.containerPort;
  if (probe?.httpGet) return `http://127.0.0.1:${port(probe.httpGet.port)}${probe.httpGet.path}`;
  if (probe?.grpc) return `grpc://127.0.0.1:${probe.grpc.port}`;
  if (probe?.tcpSocket) return `tcp://127.0.0.1:${port(probe.tcpSocket.port)}`;
  return undefined;
}

function mountsOf(service: ComposeService): string[] {
  const volumes = (service.volumes ?? []).map((volume) => {
    const [, target, mode] = volume.split(":");
    return `${target}${mode === "ro" ? " (read-only)" : ""}`;
  });
  return [...volumes, ...(service.tmpfs ?? [])].sort();
}

/** Where a compose service and the Kubernetes container it stands for disagree. */
export function composeK8sDifferences(serviceName: string, service: ComposeService): string[] {
  const where = k8sCounterparts[serviceName];
  if (!where) return [`${serviceName} has no counterpart in k8s/`];
  const object = k8sObject(where.file, where.kind, where.name);
  const pod = object.spec.template.spec;
  const container = [...(pod.initContainers ?? []), ...pod.containers].find(
    (candidate: Manifest) => candidate.name === where.container,
  );
  const problems: string[] = [];
  const differ = (what: string, composeValue: unknown, k8sValue: unknown) => {
    if (JSON.stringify(composeValue) !== JSON.stringify(k8sValue)) {
      problems.push(`${what}: compose ${JSON.stringify(composeValue)}, k8s ${JSON.stringify(k8sValue)}`);
    }
  };

  differ("image", service.image?.replace(/:[^:/]+$/, ""), container.image);
  differ("command", service.command, container.command);
  differ("user", service.user, `${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
  differ("read-only root filesystem", service.read_only === true, container.securityContext.readOnlyRootFilesystem);
  differ("dropped capabilities", service.cap_drop, container.securityContext.capabilities.drop);
  differ(
    "privilege escalation",
    !(service.security_opt ?? []).includes("no-new-privileges:true"),
    container.securityContext.allowPrivilegeEscalation,
  );
  differ("network", service.network_mode, "host");

  const environment = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [name, value === null ? null : String(value)]),
  );
  for (const { name, value } of container.env ?? []) {
    const composeValue = environment[name];
    if (grpcAddressSettings.has(name)) {
      differ(`${name}'s port`, portOf(composeValue ?? ""), portOf(value));
      if (!composeValue?.startsWith("127.0.0.1:")) problems.push(`${name}: compose ${composeValue}, not on loopback`);
    } else if (loopbackListeners.has(name) && composeValue === "127.0.0.1") {
      // Listens on loopback: only the other services on this host call it.
    } else if (name === "VIDEO_STORAGE" && composeValue === videosOnVolume.VIDEO_STORAGE) {
      differ("VIDEO_STORAGE_DIR", environment.VIDEO_STORAGE_DIR, videosOnVolume.VIDEO_STORAGE_DIR);
    } else {
      differ(`environment ${name}`, composeValue, value);
    }
  }
  const k8sNames = new Set((container.env ?? []).map((entry: Manifest) => entry.name));
  const secrets = documentedSecretKeys();
  const fromSources: RegExp[] = (container.envFrom ?? []).flatMap((source: Manifest) =>
    source.configMapRef
      ? [...configMapKeys()].map((key) => new RegExp(`^${key}$`))
      : (secrets.get(source.secretRef.name) ?? []),
  );
  for (const name of Object.keys(environment)) {
    const videoVolume = name === "VIDEO_STORAGE_DIR" && environment.VIDEO_STORAGE === videosOnVolume.VIDEO_STORAGE;
    if (!k8sNames.has(name) && !videoVolume && !fromSources.some((pattern) => pattern.test(name))) {
      problems.push(`environment ${name} is neither in the k8s container's env nor in a ConfigMap or Secret it reads`);
    }
  }

  const k8sMounts = (container.volumeMounts ?? [])
    .map((mount: Manifest) => `${mount.mountPath}${mount.readOnly ? " (read-only)" : ""}`)
    .sort();
  const composeMounts = mountsOf(service).filter(
    (mount) =>
      !(mount === videosOnVolume.VIDEO_STORAGE_DIR && environment.VIDEO_STORAGE === videosOnVolume.VIDEO_STORAGE),
  );
  differ("mounted paths", composeMounts, k8sMounts);

  if (where.kind === "Deployment") {
    // Compose has one health check, for start order and `docker ps`, not for routing: it asks what
    // the readiness probe asks, as often as the liveness probe (each check starts a node process).
    const readiness = container.readinessProbe;
    const liveness = container.livenessProbe;
    differ("health check", service.healthcheck?.test.at(-1), probeTarget(readiness, container.ports));
    differ("health check interval", service.healthcheck?.interval, seconds(liveness.periodSeconds));
    differ("health check retries", service.healthcheck?.retries, liveness.failureThreshold ?? 3);
    const startup = container.startupProbe;
    differ(
      "health check start period",
      service.healthcheck?.start_period,
      seconds(startup.periodSeconds * startup.failureThreshold),
    );
    differ("stop grace period", service.stop_grace_period, seconds(pod.terminationGracePeriodSeconds));
    const listened = new Set(
      Object.entries(environment)
        .filter(([name]) => name.endsWith("_PORT"))
        .map(([, value]) => value),
    );
    for (const { containerPort } of container.ports) {
      if (!listened.has(String(containerPort)))
        problems.push(`port ${containerPort}: no *_PORT setting of compose has it`);
    }
  }
  differ("memory limit", service.mem_limit, memory(container.resources.limits.memory));
  differ("memory reservation", service.mem_reservation, memory(container.resources.requests.memory));
  differ("cpus", Number(service.cpus), cpus(container.resources.limits.cpu));
  return problems;
}
