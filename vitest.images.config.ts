import { defineConfig } from "vitest/config";

// `pnpm test:images` (scripts/test-images.sh): the smoke suite against the containers, apart from
// `vitest run` because it needs the images built first and a Docker engine.
export default defineConfig({
  test: {
    include: ["tools/images/test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    expect: { poll: { timeout: 10_000 } },
    globalSetup: ["tools/stack/src/test-servers-setup.ts"],
    fileParallelism: false,
  },
});
