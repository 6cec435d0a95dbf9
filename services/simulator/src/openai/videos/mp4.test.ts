import { describe, expect, it } from "vitest";
import { FILLER_BYTES_PER_SECOND, minimalMp4, readMp4 } from "./mp4.js";

describe("minimalMp4", () => {
  it("is ftyp, moov and mdat with the duration asked for", () => {
    const file = minimalMp4(10);
    expect(file.toString("ascii", 4, 8)).toBe("ftyp");
    expect(readMp4(file)).toEqual({ boxes: ["ftyp", "moov", "mdat"], durationSeconds: 10 });
    // ftyp 28 + moov (8 + mvhd 108) + mdat header 8 + filler.
    expect(file.length).toBe(28 + 116 + 8 + 10 * FILLER_BYTES_PER_SECOND);
  });

  it("is the same bytes for the same seed and different for another", () => {
    expect(minimalMp4(5, 7).equals(minimalMp4(5, 7))).toBe(true);
    expect(minimalMp4(5, 7).equals(minimalMp4(5, 8))).toBe(false);
  });
});
