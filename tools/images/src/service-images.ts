import { fileURLToPath } from "node:url";
import type { ImageRequirements } from "./dockerfile-rules.js";

/** The repository root (the build context), from this file's place in tools/images/{src,dist}. */
export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

export const dockerfilePath = `${repoRoot}Dockerfile`;

/** The Dockerfile's default BASE: the official Node image, pinned by digest (see the Dockerfile). */
export const officialBase =
  "node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d";

/**
 * Every image the root Dockerfile builds, one `--target` each. Edge, ledger and the console answer HTTP
 * /healthz (ledger on its admin port, the console on its own); router and video are gRPC only, which Kubernetes
 * probes itself, and the simulator is a development stand-in.
 */
export const serviceImages: ImageRequirements[] = [
  { target: "edge", healthcheck: true },
  { target: "router", healthcheck: false },
  { target: "ledger", healthcheck: true },
  { target: "video", healthcheck: false },
  { target: "console", healthcheck: true },
  { target: "simulator", healthcheck: false },
];
