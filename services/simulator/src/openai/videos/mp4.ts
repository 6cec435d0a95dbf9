import { createHash } from "node:crypto";
import { type FrameSize, H264_CODEC, stillPictureStream, type YCbCr } from "./h264-frames.js";
import { muxMp4 } from "./mp4-mux.js";

// What the simulator hands out as a "generated video": a real, playable H.264 MP4 that lasts
// exactly the seconds asked for, small enough to generate per download. It shows one colour
// taken from the prompt, at the requested aspect ratio scaled down, at a low frame rate.

export const FRAME_RATE = 10;
const LONGEST_SIDE = 256;
const CACHED_FILES = 32;

/** The requested size scaled down by the smallest whole factor giving macroblock-aligned sides of at most 256. */
export function frameSizeOf(size: string): FrameSize {
  const [width = 0, height = 0] = size.split("x").map(Number);
  for (let factor = 1; factor <= Math.max(width, height); factor += 1) {
    const scaled = { width: width / factor, height: height / factor };
    if (Math.max(scaled.width, scaled.height) <= LONGEST_SIDE && scaled.width % 16 === 0 && scaled.height % 16 === 0) {
      return scaled;
    }
  }
  throw new Error(`no macroblock-aligned frame size for ${size}`);
}

/** A colour picked by the prompt's hash, as limited-range BT.601 Y'CbCr. */
export function colourOf(prompt: string): YCbCr {
  const [red = 0, green = 0, blue = 0] = createHash("sha256").update(prompt).digest();
  return {
    y: Math.round(16 + (65.481 * red + 128.553 * green + 24.966 * blue) / 255),
    cb: Math.round(128 + (-37.797 * red - 74.203 * green + 112 * blue) / 255),
    cr: Math.round(128 + (112 * red - 93.786 * green - 18.214 * blue) / 255),
  };
}

// Downloads of the same job (and bench runs of one prompt) share the file, generation included.
// It also keeps those bytes identical: the muxer stamps the wall-clock creation time into the file.
const cache = new Map<string, Promise<Buffer>>();

/** The MP4 of a job: `seconds` long, shaped like `size` (e.g. "720x1280"), coloured by `prompt`. */
export function playableMp4(job: { seconds: number; size: string; prompt: string }): Promise<Buffer> {
  const frame = frameSizeOf(job.size);
  const colour = colourOf(job.prompt);
  const key = JSON.stringify([job.seconds, frame, colour]);
  let file = cache.get(key);
  if (!file) {
    file = muxMp4({
      codec: H264_CODEC,
      ...frame,
      frameRate: FRAME_RATE,
      accessUnits: stillPictureStream(frame, colour, job.seconds * FRAME_RATE),
    });
    file.catch(() => cache.delete(key));
    if (cache.size >= CACHED_FILES) cache.delete(cache.keys().next().value ?? "");
    cache.set(key, file);
  }
  return file;
}
