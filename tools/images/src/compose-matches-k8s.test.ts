import { describe, expect, it } from "vitest";
import { interpolateDefaults, readCompose } from "./compose-file.js";
import { composeK8sDifferences, documentedSecretKeys, k8sCounterparts } from "./compose-matches-k8s.js";

const compose = readCompose();
const datastores = ["postgres", "redis", "nats"];

describe("compose.yaml and k8s/", () => {
  it("run the same processes: every gateway service and job of compose has its Kubernetes container", () => {
    expect(
      Object.keys(compose.services)
        .filter((name) => !datastores.includes(name))
        .sort(),
    ).toEqual(Object.keys(k8sCounterparts).sort());
  });

  it.each(Object.keys(k8sCounterparts))(
    "%s: same image, command, user, environment, writable paths, probe, limits and grace",
    (name) => {
      const service = compose.services[name];
      expect(service).toBeDefined();
      expect(composeK8sDifferences(name, service ?? {})).toEqual([]);
    },
  );

  it("start the simulator only when asked (its own profile), and nothing else behind a profile", () => {
    const profiled = Object.entries(compose.services).filter(([, service]) => service.profiles);
    expect(profiled.map(([name, service]) => [name, service.profiles])).toEqual([["simulator", ["simulator"]]]);
  });
});

describe("the comparison", () => {
  it("finds a changed environment value, port, mount and probe", () => {
    const edge = compose.services.edge ?? {};
    const changed = {
      ...edge,
      environment: { ...edge.environment, SHUTDOWN_GRACE_MS: "1000", VIDEO_URL: "127.0.0.1:1" },
      volumes: ["generated-files:/var/lib/gateway/files"],
      healthcheck: { ...edge.healthcheck, test: ["CMD", "true", "http://127.0.0.1:8080/healthz"] },
      stop_grace_period: "10s",
      user: "0:0",
    };
    expect(composeK8sDifferences("edge", changed)).toEqual([
      'user: compose "0:0", k8s "1000:1000"',
      'environment SHUTDOWN_GRACE_MS: compose "1000", k8s "110000"',
      `VIDEO_URL's port: compose "1", k8s "50053"`,
      'mounted paths: compose ["/tmp","/var/lib/gateway/files"], k8s ["/tmp","/var/lib/gateway/files (read-only)"]',
      'health check: compose "http://127.0.0.1:8080/healthz", k8s "http://127.0.0.1:8080/readyz"',
      'stop grace period: compose "10s", k8s "120s"',
    ]);
  });

  it("refuses a variable no ConfigMap or Secret of the container holds", () => {
    const ledger = compose.services.ledger ?? {};
    const extra = { ...ledger, environment: { ...ledger.environment, FILE_URL_SIGNING_KEY: "x" } };
    expect(composeK8sDifferences("ledger", extra)).toEqual([
      "environment FILE_URL_SIGNING_KEY is neither in the k8s container's env nor in a ConfigMap or Secret it reads",
    ]);
  });

  it("reads the Secrets' keys from docs/operations.md and the file as it reads with its defaults", () => {
    expect(documentedSecretKeys().get("gateway-edge")?.map(String)).toEqual(["/^FILE_URL_SIGNING_KEY$/"]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: compose's interpolation syntax, not a template.
    expect(interpolateDefaults("a ${PORT:-8080} ${KEY:?set KEY} ${NAME}")).toBe("a 8080 <KEY> <NAME>");
  });
});
