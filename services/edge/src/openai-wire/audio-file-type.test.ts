import type { GatewayError } from "@gateway/shared";
import { describe, expect, it } from "vitest";
import { checkAudioFile } from "./audio-file-type.js";

const padded = (start: string | number[]) =>
  Buffer.concat([typeof start === "string" ? Buffer.from(start, "latin1") : Buffer.from(start), Buffer.alloc(16)]);

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
      ["a.wav", padded("RIFF\0\0\0\0WAVE")],
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
});
