import { invalidRequest } from "@gateway/platform";
import { parseBuffer } from "music-metadata";

export interface AudioDuration {
  seconds: number;
  // True when only the file's size gave the length (no container could be read).
  estimated: boolean;
}

// Roughly 128 kbit/s, a common compressed bitrate: the fallback when no container can be read.
const estimateBytesPerSecond = 16_000;
// 320 kbit/s, the top MP3 rate (AAC, Opus and Vorbis at speech rates sit far below): a lossy
// file never plays shorter than its size at this rate, whatever its header states.
const lossyMaxBytesPerSecond = 40_000;
// WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT and WAVE_FORMAT_EXTENSIBLE: samples of fixed width.
const fixedWidthWavFormats = new Set([0x0001, 0x0003, 0xfffe]);

interface WavFormat {
  bytesPerSecond: number;
}

/** The sample layout of a PCM `fmt ` chunk at `offset`; the byte rate it states is ignored (it can be forged). */
function wavFormat(bytes: Buffer, offset: number): WavFormat | undefined {
  if (offset + 24 > bytes.length || !fixedWidthWavFormats.has(bytes.readUInt16LE(offset + 8))) return undefined;
  const channels = bytes.readUInt16LE(offset + 10);
  const sampleRate = bytes.readUInt32LE(offset + 12);
  const bitsPerSample = bytes.readUInt16LE(offset + 22);
  const bytesPerSecond = sampleRate * channels * Math.ceil(bitsPerSample / 8);
  return bytesPerSecond > 0 ? { bytesPerSecond } : undefined;
}

/**
 * The data chunk's length over sample rate x channels x sample width, when the file is a well-formed
 * PCM WAV. A file with a second `fmt ` chunk (anywhere) is refused: decoders disagree on it (FFmpeg
 * reads the first, others the last), so its length cannot be known before the vendor plays it.
 */
function wavSeconds(bytes: Buffer): number | undefined {
  if (bytes.length < 12 || bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") {
    return undefined;
  }
  let format: WavFormat | undefined;
  let formats = 0;
  let dataBytes: number | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    let size = bytes.readUInt32LE(offset + 4);
    if (id === "fmt ") {
      formats += 1;
      if (formats > 1)
        throw invalidRequest(
          "Invalid file format: the WAV file has more than one 'fmt ' chunk.",
          "file",
          "invalid_value",
        );
      format = wavFormat(bytes, offset);
    }
    if (id === "data" && dataBytes === undefined) {
      // A data chunk before any `fmt ` is unplayable; decoders refuse it.
      if (!format) return undefined;
      // A streamed WAV may state 0 or 0xFFFFFFFF; what actually arrived is then the length.
      const available = bytes.length - offset - 8;
      if (size === 0 || size > available) size = available;
      dataBytes = size;
    }
    offset += 8 + size + (size % 2);
  }
  return format && dataBytes !== undefined ? dataBytes / format.bytesPerSecond : undefined;
}

/**
 * The length the container states (MP3 by counting its frames), never less than the file's
 * size at the format's top rate: lossless files at their raw PCM rate, lossy at 320 kbit/s.
 */
async function containerSeconds(bytes: Buffer): Promise<number | undefined> {
  try {
    const { format } = await parseBuffer(bytes, undefined, { duration: true, skipCovers: true });
    if (format.duration === undefined || !Number.isFinite(format.duration)) return undefined;
    const rawRate = (format.sampleRate ?? 0) * (format.numberOfChannels ?? 0) * ((format.bitsPerSample ?? 0) / 8);
    const topRate = format.lossless && rawRate > 0 ? rawRate : lossyMaxBytesPerSecond;
    return Math.max(format.duration, bytes.length / topRate);
  } catch {
    return undefined;
  }
}

/**
 * How long an uploaded audio file plays: exact for PCM WAV, from the decoded container for
 * other formats, estimated from its size when neither can be read. Throws only an invalid
 * request, for a WAV whose decoders disagree on its length.
 */
export async function audioDuration(bytes: Buffer): Promise<AudioDuration> {
  const exact = wavSeconds(bytes) ?? (await containerSeconds(bytes));
  if (exact !== undefined) return { seconds: exact, estimated: false };
  return { seconds: bytes.length / estimateBytesPerSecond, estimated: true };
}
