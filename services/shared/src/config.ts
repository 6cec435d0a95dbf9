import { z } from "zod";

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

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** Settings every service shares. */
export const commonConfig = {
  // Prefix of NATS subjects and streams and of Redis keys, so several stacks share servers.
  GATEWAY_NAMESPACE: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, "lowercase letters, digits and _")
    .default("gw"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  NATS_URL: z.string().default("nats://127.0.0.1:4222"),
};
