import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { availabilityProblems, grpcClientSettings, minimumReplicas } from "./availability-policy.js";
import type { KubernetesObject } from "./kubernetes-object.js";
import { policyProblems, referencedSecrets } from "./manifest-policy.js";
import { namespaceArrows } from "./network-arrows.js";
import { kubectlAvailable, renderKustomization } from "./render-kustomization.js";
import { schemaProblems } from "./schema-problems.js";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const k8s = join(repo, "k8s");
// The only way past a missing kubectl: saying so. A machine without it fails this file.
const optedOut = process.env.GATEWAY_SKIP_KUBERNETES_RENDER === "1";
const services = ["edge", "router", "ledger", "video"];

// Rendered on first use, inside a test: a describe body runs even when it is skipped.
const renders = new Map<string, KubernetesObject[]>();
const rendered = (overlay: string): KubernetesObject[] => {
  const directory = join(k8s, "overlays", overlay);
  const objects = renders.get(directory) ?? renderKustomization(directory);
  renders.set(directory, objects);
  return objects;
};

const find = (objects: KubernetesObject[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name);
const containerOf = (objects: KubernetesObject[], deployment: string) =>
  find(objects, "Deployment", deployment)?.spec.template.spec.containers[0];
const envOf = (objects: KubernetesObject[], deployment: string, name: string) =>
  containerOf(objects, deployment)?.env?.find((variable: { name: string }) => variable.name === name)?.value;

describe("rendering the Kubernetes manifests", () => {
  it("has kubectl on PATH (set GATEWAY_SKIP_KUBERNETES_RENDER=1 to skip the manifest checks on purpose)", () => {
    if (optedOut) return;
    expect(
      kubectlAvailable(),
      "kubectl is not on PATH: install kubectl 1.27+ (its kustomize renders k8s/ offline) or set GATEWAY_SKIP_KUBERNETES_RENDER=1",
    ).toBe(true);
  });
});

describe.skipIf(optedOut || !kubectlAvailable())("the Kubernetes manifests", () => {
  const operationsDoc = readFileSync(join(repo, "docs/operations.md"), "utf8");

  describe.each(["dev", "prod"])("overlay %s", (overlay) => {
    let objects: KubernetesObject[];
    beforeAll(() => {
      objects = rendered(overlay);
    });

    it("renders objects that all validate against the Kubernetes OpenAPI schemas", () => {
      expect(objects.length).toBeGreaterThan(20);
      expect(objects.flatMap(schemaProblems)).toEqual([]);
    });

    it("keeps every policy: limits, probes, locked-down containers, PDBs, token-less accounts, default deny", () => {
      expect(policyProblems(objects)).toEqual([]);
    });

    it("loses or rolls a replica without failing a call: headless gRPC targets, budgets, spread, drain timings", () => {
      expect(availabilityProblems(objects)).toEqual([]);
      const targets = objects.flatMap((object) =>
        (object.spec?.template?.spec?.containers ?? []).flatMap(
          (container: { env?: Array<{ name: string; value: string }> }) =>
            (container.env ?? [])
              .filter((variable) => grpcClientSettings.includes(variable.name))
              .map((variable) => `${object.metadata.name} ${variable.name}=${variable.value}`),
        ),
      );
      expect(targets.sort()).toEqual([
        "console LEDGER_URL=dns:///ledger-grpc:50052",
        "console ROUTER_URL=dns:///router-grpc:50051",
        "edge LEDGER_URL=dns:///ledger-grpc:50052",
        "edge ROUTER_URL=dns:///router-grpc:50051",
        "edge VIDEO_URL=dns:///video-grpc:50053",
        "router LEDGER_URL=dns:///ledger-grpc:50052",
        "video LEDGER_URL=dns:///ledger-grpc:50052",
      ]);
    });

    it("documents every Secret it reads in docs/operations.md", () => {
      const undocumented = [...referencedSecrets(objects)].filter((name) => !operationsDoc.includes(`\`${name}\``));
      expect(undocumented).toEqual([]);
    });

    it("gives each service exactly the datastore and egress arrows of the architecture", () => {
      const arrows = Object.fromEntries(
        services.map((service) => {
          const labels = find(objects, "Deployment", service)?.spec.template.metadata.labels ?? {};
          const roles = Object.keys(labels)
            .filter((label) => label.startsWith("gateway.example/") && label.endsWith("-client"))
            .map((label) => label.slice("gateway.example/".length, -"-client".length))
            .filter((role) => role !== "simulator")
            .sort();
          return [service, roles];
        }),
      );
      expect(arrows).toEqual({
        edge: ["nats"],
        router: ["nats", "postgres", "redis", "vendor"],
        ledger: ["nats", "postgres", "redis"],
        video: ["nats", "postgres", "redis", "vendor"],
      });
    });

    it("drains streams for two minutes on edge and router and mounts the catalogue as a watched directory", () => {
      for (const service of services) {
        const pod = find(objects, "Deployment", service)?.spec.template.spec;
        if (service === "edge" || service === "router") expect(pod.terminationGracePeriodSeconds).toBe(120);
        // The service cuts what is left of its drain before the kubelet kills it.
        expect(Number(envOf(objects, service, "SHUTDOWN_GRACE_MS"))).toBeLessThan(
          pod.terminationGracePeriodSeconds * 1000,
        );
      }
      for (const service of ["router", "video"]) {
        expect(envOf(objects, service, "CATALOGUE_PATH")).toBe("/etc/gateway/catalogue/models.yaml");
        const mount = containerOf(objects, service)?.volumeMounts.find(
          (volume: { name: string }) => volume.name === "catalogue",
        );
        expect(mount).toMatchObject({ mountPath: "/etc/gateway/catalogue" });
        expect(mount.subPath).toBeUndefined();
      }
      expect(find(objects, "ConfigMap", "gateway-catalogue")?.data["models.yaml"]).toBe(
        readFileSync(join(repo, "infra/catalogue/models.yaml"), "utf8"),
      );
    });
  });

  it("dev runs one replica of everything, the simulator and in-cluster Postgres, Redis and NATS", () => {
    const objects = rendered("dev");
    expect(find(objects, "ConfigMap", "gateway-settings")?.data).toMatchObject({ GATEWAY_ENV: "development" });
    for (const deployment of objects.filter((object) => object.kind === "Deployment")) {
      expect(deployment.spec.replicas, deployment.metadata.name).toBe(1);
    }
    expect(find(objects, "Deployment", "simulator")).toBeDefined();
    for (const server of ["postgres", "redis", "nats"]) expect(find(objects, "StatefulSet", server)).toBeDefined();
    expect(objects.some((object) => object.kind === "HorizontalPodAutoscaler")).toBe(false);
  });

  it("lets the dev namespace's pods open exactly the architecture's connections to each other", () => {
    expect(namespaceArrows(rendered("dev"))).toEqual(
      [
        "edge → router:50051",
        "edge → ledger:50052",
        "edge → video:50053",
        "edge → nats:4222",
        "router → ledger:50052",
        "router → postgres:5432",
        "router → redis:6379",
        "router → nats:4222",
        "router → simulator:8090",
        "video → ledger:50052",
        "video → postgres:5432",
        "video → redis:6379",
        "video → nats:4222",
        "video → simulator:8090",
        "ledger → postgres:5432",
        "ledger → redis:6379",
        "ledger → nats:4222",
        "console → ledger:50052",
        "console → router:50051",
        "console → redis:6379",
        "gateway-migrate → postgres:5432",
        "gateway-usage-stream → nats:4222",
      ].sort(),
    );
  });

  it("prod autoscales and spreads every service, runs two of each at least, replicates the usage stream and has no simulator", () => {
    const objects = rendered("prod");
    expect(find(objects, "ConfigMap", "gateway-settings")?.data).toMatchObject({
      GATEWAY_ENV: "production",
      NATS_STREAM_REPLICAS: "3",
    });
    expect(objects.some((object) => object.kind === "StatefulSet" || object.metadata.name === "simulator")).toBe(false);
    for (const service of services) {
      const target = find(objects, "HorizontalPodAutoscaler", service)?.spec.scaleTargetRef;
      expect(target, service).toMatchObject({ kind: "Deployment", name: service });
      const spread = find(objects, "Deployment", service)?.spec.template.spec.topologySpreadConstraints ?? [];
      expect(spread.map((constraint: { topologyKey: string }) => constraint.topologyKey)).toEqual([
        "topology.kubernetes.io/zone",
        "kubernetes.io/hostname",
      ]);
      const podLabels = find(objects, "Deployment", service)?.spec.template.metadata.labels;
      for (const constraint of spread) expect(podLabels).toMatchObject(constraint.labelSelector.matchLabels);
      // The HPA alone sets the count: a count in the manifest would scale it back on every apply.
      expect(find(objects, "Deployment", service)?.spec.replicas, service).toBeUndefined();
    }
    for (const deployment of objects.filter((object) => object.kind === "Deployment")) {
      expect(minimumReplicas(objects, deployment), deployment.metadata.name).toBeGreaterThanOrEqual(2);
    }
    expect(envOf(objects, "video", "VIDEO_STORAGE")).toBe("s3");
  });

  it.each(["dev", "prod"])("routes / of the %s Ingress to the console, with its network arrows", (overlay) => {
    const objects = rendered(overlay);
    const paths = find(objects, "Ingress", "gateway")?.spec.rules[0].http.paths;
    expect(
      paths.map((path: { path: string; backend: { service: { name: string } } }) => [
        path.path,
        path.backend.service.name,
      ]),
    ).toEqual([
      ["/v1", "edge"],
      ["/files", "edge"],
      ["/", "console"],
    ]);
    for (const policy of ["console", "console-egress", "ledger-from-console", "router-from-console"]) {
      expect(find(objects, "NetworkPolicy", policy), policy).toBeDefined();
    }
  });
});
