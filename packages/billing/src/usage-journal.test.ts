import { appendFileSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spoolDirectories, spooledMessage } from "../test/spool-files.fixtures.js";
import { type RecoveredUsage, UsageJournal } from "./usage-journal.js";

const directory = spoolDirectories("gw-journal-test-");
const message = spooledMessage;

const segments = (path: string) => readdirSync(path).filter((name) => name.startsWith("journal-"));
const journalText = (path: string) =>
  segments(path)
    .map((name) => readFileSync(join(path, name), "utf8"))
    .join("");
const recovered = (path: string) => {
  const found: RecoveredUsage[] = [];
  new UsageJournal(path).recover((usage) => found.push(usage));
  return {
    ids: found.flatMap((usage) => usage.messages.map((kept) => kept.msgID)),
    undelivered: found.flatMap((usage) => usage.undelivered.map((released) => released.msgID)),
    torn: found.flatMap((usage) => usage.torn),
  };
};

describe("the usage journal", () => {
  it("has an event in its file when append returns, before anything settles it", () => {
    const path = directory();
    new UsageJournal(path).append(message("r1"));
    expect(journalText(path)).toContain('"msgID":"r1"');
  });

  it("hands a successor exactly the events its predecessor never settled, and then forgets them", () => {
    const path = directory();
    const killed = new UsageJournal(path);
    killed.append(message("published"))();
    killed.append(message("in flight"));
    killed.append(message("also in flight"));
    // Never closed: the process died.
    expect(recovered(path).ids).toEqual(["in flight", "also in flight"]);
    expect(recovered(path).ids).toEqual([]);
  });

  it("empties its file whenever everything in it is settled", () => {
    const path = directory();
    const journal = new UsageJournal(path);
    const settleFirst = journal.append(message("r1"));
    const settleSecond = journal.append(message("r2"));
    settleFirst();
    settleFirst();
    expect(journalText(path)).toContain('"msgID":"r2"');
    settleSecond();
    expect(journalText(path)).toBe("");
    journal.append(message("r3"));
    expect(recovered(path).ids).toEqual(["r3"]);
  });

  it("starts a new file past its size and deletes the old one once all of it is settled", () => {
    const path = directory();
    const journal = new UsageJournal(path, 1_000);
    const settles = Array.from({ length: 30 }, (_, index) => journal.append(message(`r${index}`)));
    expect(segments(path).length).toBeGreaterThan(2);
    // The last event stays in flight, as one always is under steady load.
    for (const settle of settles.slice(0, -1)) settle();
    expect(segments(path)).toHaveLength(1);
    expect(statSync(join(path, segments(path)[0]!)).size).toBeLessThan(1_000);
    // The open file's settled neighbours come along: copies, which downstream drops.
    const { ids } = recovered(path);
    expect(ids.at(-1)).toBe("r29");
    expect(ids.length).toBeLessThan(10);
  });

  it("deletes its file on close when nothing is unsettled, and keeps it otherwise", () => {
    const clean = directory();
    const closed = new UsageJournal(clean);
    closed.append(message("done"))();
    closed.close();
    expect(segments(clean)).toEqual([]);

    const busy = directory();
    const cut = new UsageJournal(busy);
    cut.append(message("unsettled"));
    cut.close();
    expect(() => cut.append(message("late"))).toThrow("closed");
    expect(recovered(busy).ids).toEqual(["unsettled"]);
  });

  it("recovers the whole lines around one a machine crash cut off", () => {
    const path = directory();
    const crashed = new UsageJournal(path);
    crashed.append(message("whole"));
    appendFileSync(join(path, segments(path)[0]!), '{"subject":"gw.usage.op');
    expect(recovered(path)).toEqual({ ids: ["whole"], undelivered: [], torn: ['{"subject":"gw.usage.op'] });
  });

  it("hands a successor an event whose answer never left as undelivered, and one whose answer left to bill", () => {
    const path = directory();
    const killed = new UsageJournal(path);
    killed.appendAwaitingDelivery(message("answered")).delivered();
    killed.appendAwaitingDelivery(message("died before answering"));
    killed.append(message("stream, billed as delivered"));
    const found = recovered(path);
    expect(found.ids).toEqual(["answered", "stream, billed as delivered"]);
    expect(found.undelivered).toEqual(["died before answering"]);
    expect(found.torn).toEqual([]);
    // Billed events are plain spool messages: the flag stays in the journal.
    const billed: RecoveredUsage[] = [];
    const again = directory();
    new UsageJournal(again).appendAwaitingDelivery(message("r1")).delivered();
    new UsageJournal(again).recover((usage) => billed.push(usage));
    expect(billed[0]?.messages).toEqual([message("r1")]);
  });

  it("writes no delivery mark for an event already settled, and empties its file as before", () => {
    const path = directory();
    const journal = new UsageJournal(path);
    const { settle, delivered } = journal.appendAwaitingDelivery(message("r1"));
    settle();
    delivered();
    expect(journalText(path)).toBe("");
  });

  it("marks delivery in the event's own file after the journal moved on to a new one", () => {
    const path = directory();
    const journal = new UsageJournal(path, 1_000);
    const first = journal.appendAwaitingDelivery(message("first"));
    const settles = Array.from({ length: 30 }, (_, index) => journal.append(message(`r${index}`)));
    expect(segments(path).length).toBeGreaterThan(1);
    first.delivered();
    // The newer files empty out; the mark must survive with its event.
    for (const settle of settles) settle();
    const found = recovered(path);
    expect(found.ids).toContain("first");
    expect(found.undelivered).toEqual([]);
  });
});
