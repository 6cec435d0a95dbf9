export interface AudioDuration {
  seconds: number;
  // False only for WAV, whose header states the duration exactly.
  estimated: boolean;
}

// Roughly 128 kbit/s, a common compressed bitrate: the fallback when the format gives no exact length.
const estimateBytesPerSecond = 16_000;

/** The data chunk's length over the format chunk's byte rate, when the file is a well-formed WAV. */
function wavSeconds(bytes: Buffer): number | undefined {
  if (bytes.length < 12 || bytes.toString("ascii", 0, 4) !== "RIFF" || bytes.toString("ascii", 8, 12) !== "WAVE") {
    return undefined;
  }
  let byteRate: number | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = bytes.toString("ascii", offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === "fmt " && offset + 16 <= bytes.length) byteRate = bytes.readUInt32LE(offset + 16);
    if (id === "data") {
      if (!byteRate) return undefined;
      // A streamed WAV may state 0 or 0xFFFFFFFF; what actually arrived is then the length.
      const available = bytes.length - offset - 8;
      const dataBytes = size === 0 || size > available ? available : size;
      return dataBytes / byteRate;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** How long an uploaded audio file plays: exact for WAV, estimated from its size otherwise. */
export function audioDuration(bytes: Buffer): AudioDuration {
  const exact = wavSeconds(bytes);
  if (exact !== undefined) return { seconds: exact, estimated: false };
  return { seconds: bytes.length / estimateBytesPerSecond, estimated: true };
}
