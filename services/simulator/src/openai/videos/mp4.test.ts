import { describe, expect, it } from "vitest";
import { probeMp4 } from "../../../test/mp4-probe.js";
import { colourOf, FRAME_RATE, frameSizeOf, playableMp4 } from "./mp4.js";

describe("playableMp4", () => {
  it.each([5, 10, 15, 20])("is one H.264 track of exactly %i seconds, starting on a key frame", async (seconds) => {
    const probed = probeMp4(await playableMp4({ seconds, size: "720x1280", prompt: `a ${seconds} second video` }));
    expect(probed.trackCount).toBe(1);
    expect(probed.movieSeconds).toBe(seconds);
    const [track] = probed.video;
    expect(track?.codec).toMatch(/^avc1\./);
    expect(track).toMatchObject({
      width: 144,
      height: 256,
      durationSeconds: seconds,
      samplesSeconds: seconds,
      samples: seconds * FRAME_RATE,
      firstSampleIsSync: true,
    });
  });

  it("keeps the requested orientation at a macroblock-aligned size", () => {
    expect(frameSizeOf("720x1280")).toEqual({ width: 144, height: 256 });
    expect(frameSizeOf("1280x720")).toEqual({ width: 256, height: 144 });
    expect(frameSizeOf("1024x1792")).toEqual({ width: 128, height: 224 });
    expect(frameSizeOf("1792x1024")).toEqual({ width: 224, height: 128 });
  });

  it("colours the picture by the prompt, in limited-range Y'CbCr", () => {
    const colour = colourOf("a red kite");
    expect(colourOf("a red kite")).toEqual(colour);
    expect(colourOf("a green field")).not.toEqual(colour);
    for (const value of [colour.y, colour.cb, colour.cr]) {
      expect(value).toBeGreaterThanOrEqual(16);
      expect(value).toBeLessThanOrEqual(240);
    }
  });

  it("hands the same file to repeated downloads of one job", async () => {
    const job = { seconds: 5, size: "1280x720", prompt: "twice" };
    const first = await playableMp4(job);
    expect((await playableMp4(job)).equals(first)).toBe(true);
    expect(probeMp4(first).video[0]).toMatchObject({ width: 256, height: 144 });
  });
});
