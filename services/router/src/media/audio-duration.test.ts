import { describe, expect, it } from "vitest";
import { audioDuration } from "./audio-duration.js";

function wav(dataBytes: number, byteRate: number, statedSize = dataBytes, extraChunk = false): Buffer {
  const list = extraChunk
    ? Buffer.concat([Buffer.from("LIST"), Buffer.from([3, 0, 0, 0]), Buffer.from("abc\0")])
    : Buffer.alloc(0);
  const fmt = Buffer.alloc(24);
  fmt.write("fmt ", 0, "ascii");
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt32LE(byteRate, 16);
  const data = Buffer.alloc(8);
  data.write("data", 0, "ascii");
  data.writeUInt32LE(statedSize, 4);
  return Buffer.concat([Buffer.from("RIFF\0\0\0\0WAVE"), fmt, list, data, Buffer.alloc(dataBytes)]);
}

describe("audioDuration", () => {
  it("is exact for WAV, skipping other chunks (and their padding)", () => {
    expect(audioDuration(wav(32_000, 16_000))).toEqual({ seconds: 2, estimated: false });
    expect(audioDuration(wav(8_000, 16_000, 8_000, true))).toEqual({ seconds: 0.5, estimated: false });
  });

  it("uses what arrived when a streamed WAV states no or too large a length", () => {
    expect(audioDuration(wav(16_000, 16_000, 0)).seconds).toBe(1);
    expect(audioDuration(wav(16_000, 16_000, 0xffffffff)).seconds).toBe(1);
  });

  it("estimates other formats from their size", () => {
    expect(audioDuration(Buffer.alloc(48_000))).toEqual({ seconds: 3, estimated: true });
  });
});
