import { describe, expect, it } from "vitest";
import { RequestLog, type RequestRecord, redactHeaders } from "./request-log.js";

const record = (id: string): RequestRecord => ({
  id,
  at: new Date(0).toISOString(),
  method: "POST",
  path: "/v1/chat/completions",
  headers: {},
  body: null,
  bodyText: "",
  aborted: false,
  status: null,
});

describe("request log", () => {
  it("keeps the newest requests, oldest first", () => {
    const log = new RequestLog(3);
    for (const id of ["a", "b", "c", "d"]) log.add(record(id));
    expect(log.list().map((entry) => entry.id)).toEqual(["b", "c", "d"]);
    expect(log.clear()).toBe(3);
    expect(log.list()).toEqual([]);
  });

  it("redacts keys down to the scheme and their ends", () => {
    const headers = redactHeaders({
      authorization: "Bearer sk-secret-key-0042",
      "x-api-key": "abcdefgh",
      accept: "*/*",
    });
    expect(headers).toEqual({ authorization: "Bearer sk-s...0042", "x-api-key": "abcd...", accept: "*/*" });
  });
});
