import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { runCommand } from "./run-command.js";

const shipped = fileURLToPath(new URL("../../../../infra/catalogue/models.yaml", import.meta.url));
const directory = mkdtempSync(join(tmpdir(), "gw-catalogue-check-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const noApi = () => Promise.reject(new Error("catalogue check must not call the admin API"));

// The shipped catalogue with claude-haiku-4-5 priced by hand: dearer output, no reason given.
function withHandPricedHaiku(): string {
  const path = join(directory, "models.yaml");
  const text = readFileSync(shipped, "utf8").replace(
    "  - id: claude-haiku-4-5\n",
    "  - id: claude-haiku-4-5\n    price: { input: 7200000, output: 40000000, cache_read: 720000, cache_write: 9000000 }\n",
  );
  writeFileSync(path, text);
  return path;
}

describe("gw catalogue check", () => {
  it("lists each price apart from the dataset's with the entry's reason, as JSON with --json", async () => {
    const answer = JSON.parse(
      await runCommand(
        { kind: "catalogue-check", file: withHandPricedHaiku(), json: true },
        { ledger: noApi, catalogue: noApi },
      ),
    );
    expect(answer.exchange_rate).toEqual({ yuan_per_usd: 7.2, on: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    const haiku = answer.differences.filter((difference: { model: string }) => difference.model === "claude-haiku-4-5");
    expect(haiku).toEqual([
      {
        model: "claude-haiku-4-5",
        field: "output",
        ours: 40_000_000,
        dataset: 36_000_000,
        dataset_model: "claude-haiku-4-5",
        reason: null,
      },
    ]);
    expect(answer.differences).toContainEqual(
      expect.objectContaining({ model: "deepseek-v4-pro", field: "input", reason: "DeepSeek lists yuan prices" }),
    );
  });

  it("prints the differences as a table in yuan per million tokens", async () => {
    const text = await runCommand(
      { kind: "catalogue-check", file: withHandPricedHaiku(), json: false },
      { ledger: noApi, catalogue: noApi },
    );
    expect(text).toMatch(/prices differ from the dataset's at 7\.2 yuan per US dollar/);
    expect(text).toMatch(/claude-haiku-4-5\s+output\s+40\.000000\s+36\.000000\s+\(none given\)/);
  });

  it("names the file it cannot read", async () => {
    const missing = join(directory, "absent.yaml");
    await expect(
      runCommand({ kind: "catalogue-check", file: missing, json: false }, { ledger: noApi, catalogue: noApi }),
    ).rejects.toThrow(missing);
  });
});
