// A minimal, structurally valid MP4 (ISO BMFF) whose duration is exact: what the simulator
// hands out as a "generated video". It is a container only: `ftyp`, then `moov` holding one
// `mvhd` (timescale 1000, duration = seconds × 1000), then an `mdat` of deterministic filler
// bytes (8 KiB per second, so range requests have something to cut). There are no tracks, so
// players open it and report the duration but show no frames; encoding real H.264 is out of
// scope for a simulator.

const TIMESCALE = 1000;
export const FILLER_BYTES_PER_SECOND = 8 * 1024;

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  header.write(type, 4, "ascii");
  return Buffer.concat([header, body]);
}

function fileType(): Buffer {
  const payload = Buffer.alloc(20);
  payload.write("isom", 0, "ascii");
  payload.writeUInt32BE(0x200, 4);
  ["isom", "iso2", "mp41"].forEach((brand, index) => {
    payload.write(brand, 8 + index * 4, "ascii");
  });
  return box("ftyp", payload);
}

function movieHeader(seconds: number): Buffer {
  const payload = Buffer.alloc(100);
  let offset = 4; // version 0 and flags 0
  offset += 8; // creation and modification time: 0 (1904-01-01), deterministic
  payload.writeUInt32BE(TIMESCALE, offset);
  payload.writeUInt32BE(seconds * TIMESCALE, offset + 4);
  payload.writeUInt32BE(0x00010000, offset + 8); // rate 1.0
  payload.writeUInt16BE(0x0100, offset + 12); // volume 1.0
  offset += 8 + 2 + 2 + 8; // rate, volume, reserved
  // The identity matrix, in 16.16 and 2.30 fixed point.
  [0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].forEach((value, index) => {
    payload.writeUInt32BE(value, offset + index * 4);
  });
  offset += 36 + 24; // matrix, pre_defined
  payload.writeUInt32BE(1, offset); // next_track_ID
  return box("mvhd", payload);
}

/** Bytes that depend only on the seed and position, so the same job always downloads the same file. */
function filler(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  return bytes;
}

export function minimalMp4(seconds: number, seed = 1): Buffer {
  return Buffer.concat([
    fileType(),
    box("moov", movieHeader(seconds)),
    box("mdat", filler(seconds * FILLER_BYTES_PER_SECOND, seed)),
  ]);
}

/** Reads the top-level boxes and the mvhd duration back: for tests of this file and of the gateway. */
export function readMp4(file: Buffer): { boxes: string[]; durationSeconds: number | undefined } {
  const boxes: string[] = [];
  let durationSeconds: number | undefined;
  for (let offset = 0; offset + 8 <= file.length; ) {
    const size = file.readUInt32BE(offset);
    const type = file.toString("ascii", offset + 4, offset + 8);
    if (size < 8 || offset + size > file.length) break;
    boxes.push(type);
    if (type === "moov" && file.toString("ascii", offset + 12, offset + 16) === "mvhd") {
      const header = offset + 16;
      const timescale = file.readUInt32BE(header + 12);
      durationSeconds = file.readUInt32BE(header + 16) / timescale;
    }
    offset += size;
  }
  return { boxes, durationSeconds };
}
