import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readImageHeader } from "./image-header.js";

function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write("IHDR", 4, "ascii");
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, ihdr, deflateSync(Buffer.alloc(4))]);
}

// SOI, an APP0 segment, then a baseline start-of-frame with height 480 and width 640.
const jpeg = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03,
]);

function webp(chunk: string, body: number[]): Buffer {
  const bytes = Buffer.alloc(40);
  bytes.write("RIFF", 0, "ascii");
  bytes.write("WEBP", 8, "ascii");
  bytes.write(chunk, 12, "ascii");
  bytes.set(body, 20);
  return bytes;
}

describe("readImageHeader", () => {
  it("reads PNG dimensions from IHDR", () => {
    expect(readImageHeader(png(1024, 1536))).toEqual({ format: "png", width: 1024, height: 1536 });
  });

  it("reads JPEG dimensions from the first start-of-frame, skipping other segments", () => {
    expect(readImageHeader(jpeg)).toEqual({ format: "jpeg", width: 640, height: 480 });
  });

  it("reads the three WebP flavours", () => {
    // VP8: frame tag and start code, then 14-bit width and height at 26 and 28.
    const lossy = webp("VP8 ", [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]);
    expect(readImageHeader(lossy)).toEqual({ format: "webp", width: 640, height: 480 });
    // VP8L: signature 0x2f, then (width-1) and (height-1) in 14 bits each: 100x50.
    const bits = 99 | (49 << 14);
    const lossless = webp("VP8L", [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, bits >>> 24]);
    expect(readImageHeader(lossless)).toEqual({ format: "webp", width: 100, height: 50 });
    // VP8X: flags, reserved, then 24-bit (width-1) and (height-1): 2000x1000.
    const extended = webp("VP8X", [0, 0, 0, 0, 0xcf, 0x07, 0x00, 0xe7, 0x03, 0x00]);
    expect(readImageHeader(extended)).toEqual({ format: "webp", width: 2000, height: 1000 });
  });

  it("knows nothing else", () => {
    expect(readImageHeader(Buffer.from("GIF89a........................"))).toBeUndefined();
    expect(readImageHeader(Buffer.alloc(0))).toBeUndefined();
    expect(readImageHeader(png(1, 1).subarray(0, 20))).toBeUndefined();
  });
});
