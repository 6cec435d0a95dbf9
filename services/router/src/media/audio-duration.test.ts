import { describe, expect, it } from "vitest";
import { audioDuration } from "./audio-duration.js";

interface WavShape {
  dataBytes: number;
  sampleRate?: number;
  channels?: number;
  bits?: number;
  statedSize?: number;
  statedByteRate?: number;
  extraChunk?: boolean;
  // A second `fmt ` chunk stating this sample rate, after the first (or after the data).
  secondFormatRate?: number;
  secondFormatAfterData?: boolean;
}

function wav(shape: WavShape): Buffer {
  const { dataBytes, sampleRate = 8000, channels = 1, bits = 16 } = shape;
  const list = shape.extraChunk
    ? Buffer.concat([Buffer.from("LIST"), Buffer.from([3, 0, 0, 0]), Buffer.from("abc\0")])
    : Buffer.alloc(0);
  const fmtChunk = (rate: number) => {
    const fmt = Buffer.alloc(24);
    fmt.write("fmt ", 0, "ascii");
    fmt.writeUInt32LE(16, 4);
    fmt.writeUInt16LE(1, 8);
    fmt.writeUInt16LE(channels, 10);
    fmt.writeUInt32LE(rate, 12);
    fmt.writeUInt32LE(shape.statedByteRate ?? (rate * channels * bits) / 8, 16);
    fmt.writeUInt16LE((channels * bits) / 8, 20);
    fmt.writeUInt16LE(bits, 22);
    return fmt;
  };
  const second = shape.secondFormatRate ? fmtChunk(shape.secondFormatRate) : Buffer.alloc(0);
  const data = Buffer.alloc(8);
  data.write("data", 0, "ascii");
  data.writeUInt32LE(shape.statedSize ?? dataBytes, 4);
  const samples = Buffer.alloc(dataBytes);
  return Buffer.concat(
    shape.secondFormatAfterData
      ? [Buffer.from("RIFF\0\0\0\0WAVE"), fmtChunk(sampleRate), list, data, samples, second]
      : [Buffer.from("RIFF\0\0\0\0WAVE"), fmtChunk(sampleRate), second, list, data, samples],
  );
}

// MPEG-1 Layer III frames at 128 kbit/s and 44.1 kHz: 417 bytes and 1152 samples each.
function mp3(frames: number): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0x00]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

describe("audioDuration", () => {
  it("is exact for WAV, skipping other chunks (and their padding)", async () => {
    expect(await audioDuration(wav({ dataBytes: 32_000 }))).toEqual({ seconds: 2, estimated: false });
    expect(await audioDuration(wav({ dataBytes: 8_000, extraChunk: true }))).toEqual({
      seconds: 0.5,
      estimated: false,
    });
    expect((await audioDuration(wav({ dataBytes: 176_400, sampleRate: 44_100, channels: 2 }))).seconds).toBe(1);
  });

  it("ignores a forged byte rate: 60 s of samples bill as 60 s", async () => {
    const forged = wav({ dataBytes: 60 * 16_000, statedByteRate: 60 * 16_000 });
    expect(await audioDuration(forged)).toEqual({ seconds: 60, estimated: false });
  });

  it("refuses a WAV with a second fmt chunk, which decoders read differently (60 s once billed as 1 s)", async () => {
    const sixtySeconds = { dataBytes: 60 * 16_000, secondFormatRate: 480_000 };
    await expect(audioDuration(wav(sixtySeconds))).rejects.toMatchObject({ httpStatus: 400, param: "file" });
    await expect(audioDuration(wav({ ...sixtySeconds, secondFormatAfterData: true }))).rejects.toMatchObject({
      httpStatus: 400,
    });
  });

  it("uses what arrived when a streamed WAV states no or too large a length", async () => {
    expect((await audioDuration(wav({ dataBytes: 16_000, statedSize: 0 }))).seconds).toBe(1);
    expect((await audioDuration(wav({ dataBytes: 16_000, statedSize: 0xffffffff }))).seconds).toBe(1);
  });

  it("reads other containers' length by decoding them (MP3 frames counted)", async () => {
    const duration = await audioDuration(mp3(383));
    expect(duration.estimated).toBe(false);
    expect(duration.seconds).toBeCloseTo((383 * 1152) / 44_100, 1);
  });

  it("estimates unreadable files from their size, and never throws on malformed ones", async () => {
    expect(await audioDuration(Buffer.alloc(48_000))).toEqual({ seconds: 3, estimated: true });
    const cut = wav({ dataBytes: 0 }).subarray(0, 20);
    expect((await audioDuration(cut)).estimated).toBe(true);
    expect((await audioDuration(Buffer.from("RIFF\0\0\0\0WAVEfmt \xff\xff\xff\xff", "latin1"))).estimated).toBe(true);
  });

  it("estimates, never throws, when the file ends inside its fmt chunk", async () => {
    const whole = wav({ dataBytes: 16_000 });
    for (let length = 12; length < 12 + 24; length += 1) {
      expect((await audioDuration(whole.subarray(0, length))).estimated).toBe(true);
    }
  });
});
