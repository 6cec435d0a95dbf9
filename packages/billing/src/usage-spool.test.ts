import { appendFileSync, fsyncSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { spoolDirectories, spooledMessage } from "../test/spool-files.fixtures.js";
import { type SpooledMessage, UsageSpool } from "./usage-spool.js";

// Counts fsyncs; the real call still runs.
vi.mock("node:fs", async (original) => {
  const fs = await original<typeof import("node:fs")>();
  return { ...fs, fsyncSync: vi.fn(fs.fsyncSync) };
});

const directory = spoolDirectories("gw-spool-test-");
const message = spooledMessage;

describe("the usage spool", () => {
  it("keeps messages across a restart and hands them over once", async () => {
    const path = directory();
    new UsageSpool(path, 1_000_000).add(message("r1"));
    new UsageSpool(path, 1_000_000).add(message("r2"));
    const restarted = new UsageSpool(path, 1_000_000);
    const sent: SpooledMessage[] = [];
    expect(await restarted.drain(async (spooled) => void sent.push(spooled))).toEqual({ sent: 2, kept: 0, torn: [] });
    expect(sent.map((spooled) => spooled.msgID)).toEqual(["r1", "r2"]);
    expect(restarted.size()).toBe(0);
    expect(await restarted.drain(async () => undefined)).toEqual({ sent: 0, kept: 0, torn: [] });
  });

  it("keeps what could not be sent for the next drain", async () => {
    const spool = new UsageSpool(directory(), 1_000_000);
    spool.add(message("ok"));
    spool.add(message("fails"));
    const outcome = await spool.drain(async (spooled) => {
      if (spooled.msgID === "fails") throw new Error("nats down");
    });
    expect(outcome).toEqual({ sent: 1, kept: 1, torn: [] });
    const later: string[] = [];
    await spool.drain(async (spooled) => void later.push(spooled.msgID));
    expect(later).toEqual(["fails"]);
  });

  it("refuses a message that would exceed its bound", () => {
    const spool = new UsageSpool(directory(), 150);
    expect(spool.add(message("first"))).toBe(true);
    expect(spool.add(message("second"))).toBe(false);
  });

  it("takes as many messages as fit with one fsync and hands back the rest", async () => {
    const spool = new UsageSpool(directory(), 200);
    vi.mocked(fsyncSync).mockClear();
    const refused = spool.addAll([message("a"), message("b"), message("c"), message("d")]);
    expect(fsyncSync).toHaveBeenCalledTimes(1);
    expect(refused.map((spooled) => spooled.msgID)).toEqual(["c", "d"]);
    const sent: string[] = [];
    await spool.drain(async (spooled) => void sent.push(spooled.msgID));
    expect(sent).toEqual(["a", "b"]);
  });

  it("skips, counts and hands back torn lines, and delivers the whole ones around them", async () => {
    const path = directory();
    const spool = new UsageSpool(path, 1_000_000);
    spool.add(message("before"));
    appendFileSync(join(path, "usage.jsonl"), '{"subject":"gw.usage.openai","msgID":"cut\n["not a message"]\n');
    spool.add(message("after"));
    const sent: string[] = [];
    const outcome = await spool.drain(async (spooled) => void sent.push(spooled.msgID));
    expect(outcome).toEqual({
      sent: 2,
      kept: 0,
      torn: ['{"subject":"gw.usage.openai","msgID":"cut', '["not a message"]'],
    });
    expect(sent).toEqual(["before", "after"]);
  });

  it("keeps a message added after a line a crash cut off mid-write", async () => {
    const path = directory();
    appendFileSync(join(path, "usage.jsonl"), '{"subject":"gw.usage.op');
    const spool = new UsageSpool(path, 1_000_000);
    spool.add(message("next"));
    const sent: string[] = [];
    expect(await spool.drain(async (spooled) => void sent.push(spooled.msgID))).toMatchObject({
      sent: 1,
      torn: [expect.any(String)],
    });
    expect(sent).toEqual(["next"]);
  });

  it("fsyncs what it puts back after a failed send, before the drained file is gone", async () => {
    const path = directory();
    const spool = new UsageSpool(path, 1_000_000);
    spool.add(message("fails"));
    vi.mocked(fsyncSync).mockClear();
    await spool.drain(async () => {
      throw new Error("nats down");
    });
    expect(fsyncSync).toHaveBeenCalledTimes(1);
    expect(readFileSync(join(path, "usage.jsonl"), "utf8")).toContain('"msgID":"fails"');
  });
});
