import { describe, expect, it } from "vitest";
import { newPrepaidCode, normalizePrepaidCode, prepaidCodeHash, prepaidCodePrefix } from "./prepaid-code.js";

describe("prepaid codes", () => {
  it("are long, random and grouped for reading", () => {
    const codes = new Set(Array.from({ length: 200 }, newPrepaidCode));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(/^GW(-[0-9A-HJKMNP-TV-Z]{5}){5}$/);
  });

  it("hash the same however they are typed: case, spaces, dashes and look-alike letters", () => {
    const code = "GW-0A1BC-DEFGH-JKMNP-QRSTV-WXYZ0";
    const hash = prepaidCodeHash(normalizePrepaidCode(code)!);
    for (const typed of [
      " gw-0a1bc-defgh-jkmnp-qrstv-wxyz0 ",
      "GW0A1BCDEFGHJKMNPQRSTVWXYZ0",
      "gw-oAlbc defgh jkmnp qrstv wxyzO",
    ]) {
      expect(prepaidCodeHash(normalizePrepaidCode(typed)!)).toBe(hash);
    }
    expect(prepaidCodePrefix(code)).toBe("GW-0A1BC");
  });

  it("refuse what cannot be a code before any lookup", () => {
    for (const typed of ["", "GW-0A1BC", "GW-0A1BC-DEFGH-JKMNP-QRSTV-WXYZU", `GW-${"A".repeat(30)}`]) {
      expect(normalizePrepaidCode(typed)).toBeUndefined();
    }
  });
});
