import { defineConfig } from "vitest/config";

// Suites that measure how fast another tenant is served beside an attack (`*.isolated.test.ts`)
// measure the gateway only when nothing else shares the two cores: they run after the rest, one
// file at a time.
const isolated = "services/*/test/**/*.isolated.test.ts";

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // A condition polled for is eventually true; on two busy cores "eventually" can pass 1 s (the default).
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    // Postgres, Redis and NATS in containers where Docker is reachable; else the local servers.
    globalSetup: ["tools/stack/src/test-servers-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
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
          exclude: [isolated, "**/node_modules/**"],
          // Integration tests each start their own processes; two cores do not gain from more.
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: [isolated],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
