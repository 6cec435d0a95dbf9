import type { GatewayError } from "@gateway/platform";
import { describe, expect, it } from "vitest";
import { checkAudioFile } from "./audio-file-type.js";

const padded = (start: string | number[]) =>
  Buffer.concat([typeof start === "string" ? Buffer.from(start, "latin1") : Buffer.from(start), Buffer.alloc(16)]);

/** A RIFF/WAVE header with a 16-byte `fmt ` chunk and an empty `data` chunk. */
function wavHeader(): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFFxxxxWAVEfmt ", 0, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.write("data", 36, "latin1");
  return header;
}

function refusal(name: string, bytes: Buffer): GatewayError {
  try {
    checkAudioFile(name, bytes);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error(`${name} was accepted`);
}

describe("checkAudioFile", () => {
  it("accepts each format whose bytes match its extension", () => {
    const files: [string, Buffer][] = [
      ["a.flac", padded("fLaC")],
      ["a.mp3", padded("ID3")],
      ["a.MP3", padded([0xff, 0xfb, 0x90])],
      ["a.mpga", padded([0xff, 0xf3])],
      ["a.mpeg", padded([0, 0, 1, 0xba])],
      ["a.mp4", padded("\0\0\0\x20ftypisom")],
      ["a.m4a", padded("\0\0\0\x20ftypM4A ")],
      ["a.ogg", padded("OggS")],
      ["a.wav", wavHeader()],
      ["a.webm", padded([0x1a, 0x45, 0xdf, 0xa3])],
    ];
    for (const [name, bytes] of files) expect(() => checkAudioFile(name, bytes), name).not.toThrow();
  });

  it("refuses unknown extensions and bytes of another format, naming file", () => {
    for (const [name, bytes] of [
      ["notes.txt", padded("hello")],
      ["noextension", padded("RIFF\0\0\0\0WAVE")],
      ["a.wav", padded("OggS")],
      ["a.wav", Buffer.from("RIFF")],
    ] as const) {
      try {
        checkAudioFile(name, bytes);
        expect.unreachable(name);
      } catch (error) {
        expect((error as GatewayError).param).toBe("file");
        expect((error as GatewayError).httpStatus).toBe(400);
      }
    }
  });

  it("refuses a WAV whose fmt chunk is cut off or missing, as a 400 naming file", () => {
    const whole = wavHeader();
    // Cut inside the fmt chunk's fields, right after its header, and with no fmt chunk at all.
    for (const bytes of [whole.subarray(0, 30), whole.subarray(0, 20), padded("RIFF\0\0\0\0WAVE")]) {
      const error = refusal("speech.wav", bytes);
      expect(error.httpStatus).toBe(400);
      expect(error.param).toBe("file");
      expect(error.message).toContain("fmt ");
    }
    const shortFormat = Buffer.from(whole);
    shortFormat.writeUInt32LE(4, 16);
    expect(refusal("speech.wav", shortFormat).httpStatus).toBe(400);
  });

  it("repeats only the start of a very long file name", () => {
    const error = refusal(`${"n".repeat(300_000)}.txt`, padded("hello"));
    expect(error.message.length).toBeLessThan(400);
  });
});
