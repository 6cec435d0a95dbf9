import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadUsageDefinition } from "@gateway/platform";
import { testServers } from "@gateway/stack";
import { connect } from "nats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LedgerUnderTest, startLedger } from "./ledger-under-test.js";

// The images set USAGE_STREAM_DEFINITION: there the checkout's infra/ is not where the shared
// package would look for it.
describe("ledger with USAGE_STREAM_DEFINITION", () => {
  let ledger: LedgerUnderTest;
  const directory = mkdtempSync(join(tmpdir(), "usage-definition-"));
  const definitionFile = join(directory, "usage.json");

  beforeAll(async () => {
    const checkoutDefinition = JSON.parse(
      readFileSync(new URL("../../../infra/nats/usage.json", import.meta.url), "utf8"),
    );
    checkoutDefinition.consumer.durable_name = "ledger-usage-from-file";
    writeFileSync(definitionFile, JSON.stringify(checkoutDefinition));
    ledger = await startLedger();
  });

  afterAll(async () => {
    await ledger?.cleanUp();
    rmSync(directory, { recursive: true, force: true });
  });

  it("consumes through the consumer that file defines", async () => {
    await ledger.startAnother({ USAGE_STREAM_DEFINITION: definitionFile });
    const nats = await connect({ servers: testServers.natsUrl });
    try {
      const manager = await nats.jetstreamManager();
      const consumer = await manager.consumers.info(
        loadUsageDefinition(ledger.namespace).stream.name,
        "ledger-usage-from-file",
      );
      expect(consumer.config.durable_name).toBe("ledger-usage-from-file");
    } finally {
      await nats.close();
    }
  });
});
