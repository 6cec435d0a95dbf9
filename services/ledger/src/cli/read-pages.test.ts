import { describe, expect, it } from "vitest";
import { ALL_PAGES_SIZE, readPages } from "./run-command.js";

describe("--all", () => {
  it("reads every page in pages the admin API serves (codes take at most 500)", async () => {
    const rows = Array.from({ length: 1_234 }, (_, index) => index);
    const asked: number[] = [];
    const request = async (_method: string, path: string) => {
      const query = new URL(path, "http://admin").searchParams;
      const limit = Number(query.get("limit"));
      if (limit > 500) throw new Error(`error (HTTP 400): Invalid limit: Too big: expected number to be <=500`);
      asked.push(limit);
      const from = Number(query.get("cursor") ?? 0);
      const data = rows.slice(from, from + limit);
      const more = from + limit < rows.length;
      return { data, has_more: more, next_cursor: more ? String(from + limit) : null };
    };
    const page = await readPages<number>(request as never, "/codes", {
      limit: undefined,
      cursor: undefined,
      all: true,
    });
    expect(page.data).toEqual(rows);
    expect(asked).toEqual([ALL_PAGES_SIZE, ALL_PAGES_SIZE, ALL_PAGES_SIZE]);
  });
});
