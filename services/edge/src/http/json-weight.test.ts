import { describe, expect, it } from "vitest";
import { countJsonValues, MAX_JSON_VALUES, structureWeight } from "./json-weight.js";

const utf8 = (text: string) => Buffer.from(text);

describe("the weight of a JSON body", () => {
  it("counts containers and elements, not what strings hold", () => {
    expect(countJsonValues(utf8('{"a":[1,2,{"b":"x,y[{"}],"c":"\\",["}'))).toBe(7);
  });

  it("refuses a body of more values than any real request holds before it is parsed", () => {
    const body = utf8(`[${"0,".repeat(MAX_JSON_VALUES)}0]`);
    expect(() => structureWeight(body)).toThrow(
      expect.objectContaining({ httpStatus: 413, code: "request_too_large" }),
    );
  });
});
