import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "./json-depth.js";
import { charsetOf, parseJsonBytes, unsupportedCharset } from "./json-text.js";

describe("the charset of a JSON body", () => {
  it("reads the charset parameter however it is written", () => {
    expect(charsetOf("application/json")).toBeUndefined();
    expect(charsetOf(undefined)).toBeUndefined();
    expect(charsetOf("application/json; charset=UTF-8")).toBe("utf-8");
    expect(charsetOf('application/json;charset="utf-7"')).toBe("utf-7");
    expect(charsetOf("application/json ; foo=bar ;  CHARSET = utf-16le")).toBe("utf-16le");
  });

  it("takes UTF-8 or no label, and refuses every other charset with a 415", () => {
    for (const type of ["application/json", "application/json; charset=utf-8", 'application/json; charset="UTF-8"']) {
      expect(unsupportedCharset(type)).toBeUndefined();
    }
    for (const charset of ["utf-7", "utf-16", "utf-32", "latin1", ""]) {
      expect(unsupportedCharset(`application/json; charset=${charset}`)).toMatchObject({
        httpStatus: 415,
        code: "charset_unsupported",
      });
    }
  });
});

describe("parsing a JSON body's bytes", () => {
  const arrays = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

  it("parses UTF-8, dropping a byte order mark, and reads an empty body as an empty object", () => {
    expect(parseJsonBytes(Buffer.from('\uFEFF{"text":"héllo 你好"}'))).toEqual({ text: "héllo 你好" });
    expect(parseJsonBytes(Buffer.alloc(0))).toEqual({});
  });

  it("checks the depth of the decoded text, before parsing it", () => {
    expect(() => parseJsonBytes(Buffer.from(`{"metadata":${arrays(MAX_JSON_DEPTH + 1)}}`))).toThrow(
      expect.objectContaining({ httpStatus: 400, code: "json_too_deep", param: "metadata" }),
    );
    expect(parseJsonBytes(Buffer.from(arrays(MAX_JSON_DEPTH)))).toHaveLength(1);
  });

  it("never reads bytes that are not UTF-8 as brackets", () => {
    // 0xC1 0x9B is an overlong encoding of `[`: it decodes to U+FFFD, so this is simply not JSON.
    const overlong = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, ...Array(100).fill([0xc1, 0x9b]).flat(), 0x7d]);
    expect(() => parseJsonBytes(overlong)).toThrow(expect.objectContaining({ httpStatus: 400, code: "invalid_json" }));
  });
});
