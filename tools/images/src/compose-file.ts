import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { repoRoot } from "./service-images.js";

/** One compose service as the Compose Specification writes it, after interpolation. */
export interface ComposeService {
  image?: string;
  command?: string[];
  user?: string;
  read_only?: boolean;
  cap_drop?: string[];
  security_opt?: string[];
  profiles?: string[];
  environment?: Record<string, string | number | null>;
  volumes?: string[];
  tmpfs?: string[];
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number; start_period?: string };
  stop_grace_period?: string;
  mem_limit?: string;
  mem_reservation?: string;
  cpus?: number | string;
  network_mode?: string;
}

export const composePath = `${repoRoot}compose.yaml`;

/**
 * `${NAME:-default}` as its default, `${NAME:?message}` and `${NAME}` as `<NAME>`: the file as it
 * reads with nothing set but the variables it requires.
 */
export function interpolateDefaults(text: string): string {
  return text.replace(/\$\{(\w+)(?::?-([^}]*)|:?\?[^}]*)?\}/g, (_whole, name: string, fallback?: string) =>
    fallback !== undefined ? fallback : `<${name}>`,
  );
}

export function readCompose(path = composePath): { services: Record<string, ComposeService>; volumes?: object } {
  return parse(interpolateDefaults(readFileSync(path, "utf8")), { merge: true });
}
