import { describe, expect, it } from "vitest";
import { audioSeconds, toSrt, toVtt, transcribe } from "./transcript.js";

function wav(seconds: number): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt32LE(16_000, 28);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(seconds * 16_000, 40);
  return Buffer.concat([header, Buffer.alloc(seconds * 16_000)]);
}

describe("simulated transcripts", () => {
  it("takes WAV's stated length and estimates others from their size", () => {
    expect(audioSeconds(wav(7))).toBe(7);
    expect(audioSeconds(Buffer.alloc(8_000))).toBe(0.5);
  });

  it("reads the same bytes the same way, with one segment per five seconds", () => {
    const transcript = transcribe(wav(12));
    expect(transcribe(wav(12))).toEqual(transcript);
    expect(transcript.duration).toBe(12);
    expect(transcript.segments.map((segment) => [segment.start, segment.end])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
    ]);
    expect(transcript.text).toBe(transcript.segments.map((segment) => segment.text).join(" "));
  });

  it("writes SubRip and WebVTT cues", () => {
    const transcript = transcribe(wav(3));
    const text = transcript.segments[0]!.text;
    expect(toSrt(transcript)).toBe(`1\n00:00:00,000 --> 00:00:03,000\n${text}\n\n`);
    expect(toVtt(transcript)).toBe(`WEBVTT\n\n00:00:00.000 --> 00:00:03.000\n${text}\n\n`);
  });
});
