import { crc32, deflateSync } from "node:zlib";
import { type Exchange, sendJson, writeHead } from "../http.js";

// Colours the simulator can paint; an image URL names one: /_sim/images/red.png.
const colours: Record<string, [number, number, number]> = {
  red: [255, 0, 0],
  green: [0, 128, 0],
  blue: [0, 0, 255],
  white: [255, 255, 255],
  black: [0, 0, 0],
};
const side = 16;
const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const cache = new Map<string, Buffer>();

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, checksum]);
}

/** A real PNG of one colour (16×16 unless told), 8-bit RGB, the same bytes every time. */
export function solidPng([red, green, blue]: [number, number, number], width = side, height = side): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter method, no interlace
  // Each row is filter byte 0 then the pixels.
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set([red, green, blue], 1 + x * 3);
  const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

/**
 * GET /_sim/images/{colour}.png: an image for vendors that must have images inline (Gemini), so
 * tests can give the gateway an http image URL to download without the internet.
 */
export function serveImage(exchange: Exchange): void {
  const name = /^\/_sim\/images\/([a-z]+)\.png$/.exec(exchange.path)?.[1] ?? "";
  const colour = colours[name];
  if (!colour) {
    sendJson(exchange, 404, {
      error: { message: `No simulated image ${exchange.path}; try ${Object.keys(colours).join(", ")}.` },
    });
    return;
  }
  let png = cache.get(name);
  if (!png) {
    png = solidPng(colour);
    cache.set(name, png);
  }
  writeHead(exchange, 200, { "content-type": "image/png", "content-length": png.length, "cache-control": "no-store" });
  exchange.response.end(png);
}
