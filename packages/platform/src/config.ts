import bytes from "bytes";
import { z } from "zod";
import { shutdownConfig } from "./graceful-shutdown.js";

/**
 * Reads a service's settings from the environment once, at start-up. A bad value stops
 * the process with one line per problem naming the variable, instead of failing later.
 */
export function loadConfig<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv = process.env): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
  throw new Error(`invalid configuration:\n${problems.join("\n")}`);
}

/** A comma-separated setting as its trimmed, non-empty items (unset or "": none). */
export const commaSeparated = (fallback = "") =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    );

/** A size setting such as 20mb or 500kb, in bytes. */
export const byteSize = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, context) => {
      const size = bytes.parse(text);
      if (size !== null && size > 0) return size;
      context.addIssue({ code: "custom", message: "a size such as 20mb or 500kb" });
      return z.NEVER;
    });

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Settings every service shares. */
export const commonConfig = {
  // Prefix of NATS subjects and streams and of Redis keys, so several stacks share servers.
  GATEWAY_NAMESPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, "lowercase letters, digits and _")
    .default("gw"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  // Milliseconds between OTLP metric exports (the OpenTelemetry SDKs' own variable).
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(100).optional(),
  // The share of new traces recorded and exported (parent-based: a hop follows its caller), 0 to 1.
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).optional(),
  NATS_URL: z.string().default("nats://127.0.0.1:4222"),
  // The usage stream's definition file; unset, infra/nats/usage.json of the checkout. Images set
  // it because `pnpm deploy` puts this package where that relative path no longer leads.
  USAGE_STREAM_DEFINITION: z.string().min(1).optional(),
  // NATS credentials of this service's own user (docs/security.md), unless NATS_URL carries user:password.
  NATS_USER: z.string().min(1).optional(),
  NATS_PASSWORD: z.string().min(1).optional(),
  NATS_CREDS: z.string().min(1).optional(),
  // Replicas of the usage stream, overriding infra/nats/usage.json: 3 on a 3-node JetStream cluster.
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).optional(),
  // Production (the default) never answers from the simulator and requires every secret below;
  // `pnpm start` and the tests set development.
  GATEWAY_ENV: z.enum(["production", "development"]).default("production"),
  // Signs and checks the service tokens on every internal gRPC call; one value across services.
  GATEWAY_SERVICE_TOKEN_SECRET: z.string().min(32, "at least 32 characters").optional(),
  ...shutdownConfig,
};
