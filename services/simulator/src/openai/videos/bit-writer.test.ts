import { describe, expect, it } from "vitest";
import { BitWriter } from "./bit-writer.js";

const bitsOf = (buffer: Buffer) => [...buffer].map((byte) => byte.toString(2).padStart(8, "0")).join("");

describe("BitWriter", () => {
  it("writes Exp-Golomb codes as H.264 defines them", () => {
    // ue: 0 -> 1, 1 -> 010, 4 -> 00101; se: 1 -> 010, -1 -> 011; then the stop bit, here ending the byte.
    const rbsp = new BitWriter().ue(0).ue(1).ue(4).se(1).se(-1).finish();
    expect(bitsOf(rbsp)).toBe("1" + "010" + "00101" + "010" + "011" + "1");
  });

  it("writes fixed-width fields and aligns with zeros before raw bytes", () => {
    const rbsp = new BitWriter()
      .bits(5, 3)
      .flag(true)
      .alignWithZeros()
      .raw(Buffer.from([0xab]))
      .finish();
    expect(bitsOf(rbsp)).toBe("10110000" + "10101011" + "10000000");
  });
});
