import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type SpooledMessage, UsageSpool } from "./usage-spool.js";

const directories: string[] = [];
const directory = () => {
  const path = mkdtempSync(join(tmpdir(), "gw-spool-test-"));
  directories.push(path);
  return path;
};
afterEach(() => {
  for (const path of directories.splice(0)) rmSync(path, { recursive: true, force: true });
});

const message = (id: string): SpooledMessage => ({
  subject: "gw.usage.openai",
  msgID: id,
  data: "AAE=",
  headers: { a: "b" },
});

describe("the usage spool", () => {
  it("keeps messages across a restart and hands them over once", async () => {
    const path = directory();
    new UsageSpool(path, 1_000_000).add(message("r1"));
    new UsageSpool(path, 1_000_000).add(message("r2"));
    const restarted = new UsageSpool(path, 1_000_000);
    const sent: SpooledMessage[] = [];
    expect(await restarted.drain(async (spooled) => void sent.push(spooled))).toEqual({ sent: 2, kept: 0 });
    expect(sent.map((spooled) => spooled.msgID)).toEqual(["r1", "r2"]);
    expect(restarted.size()).toBe(0);
    expect(await restarted.drain(async () => undefined)).toEqual({ sent: 0, kept: 0 });
  });

  it("keeps what could not be sent for the next drain", async () => {
    const spool = new UsageSpool(directory(), 1_000_000);
    spool.add(message("ok"));
    spool.add(message("fails"));
    const outcome = await spool.drain(async (spooled) => {
      if (spooled.msgID === "fails") throw new Error("nats down");
    });
    expect(outcome).toEqual({ sent: 1, kept: 1 });
    const later: string[] = [];
    await spool.drain(async (spooled) => void later.push(spooled.msgID));
    expect(later).toEqual(["fails"]);
  });

  it("refuses a message that would exceed its bound", () => {
    const spool = new UsageSpool(directory(), 150);
    expect(spool.add(message("first"))).toBe(true);
    expect(spool.add(message("second"))).toBe(false);
  });
});
