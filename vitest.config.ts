import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "packages/*/test/**/*.test.ts",
      "services/*/src/**/*.test.ts",
      "services/*/test/**/*.test.ts",
      "tools/*/src/**/*.test.ts",
      "services/console/web/src/**/*.test.ts",
      "services/console/web/e2e/**/*.test.ts",
      "infra/**/*.test.ts",
    ],
    testTimeout: 30_000,
    // A condition polled for is eventually true; on two busy cores "eventually" can pass 1 s (the default).
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    // Postgres, Redis and NATS in containers where Docker is reachable; else the local servers.
    globalSetup: ["tools/stack/src/test-servers-setup.ts"],
    // Integration tests each start their own processes; two cores do not gain from more.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
