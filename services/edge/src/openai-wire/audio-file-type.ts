import { echoed, invalidRequest } from "@gateway/platform";

// The formats OpenAI transcribes (PROTOCOLS.md A9), by extension, each with the start of its
// bytes where that is cheap to tell; mp4/m4a share ISO-BMFF's ftyp box, mp3/mpga MPEG audio.
const mpegAudio = (bytes: Buffer) =>
  bytes.toString("latin1", 0, 3) === "ID3" || (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0);
const isoMedia = (bytes: Buffer) => bytes.toString("latin1", 4, 8) === "ftyp";

const signatures: Record<string, (bytes: Buffer) => boolean> = {
  flac: (bytes) => bytes.toString("latin1", 0, 4) === "fLaC",
  mp3: mpegAudio,
  mpga: mpegAudio,
  // MPEG audio, or an MPEG program or video stream.
  mpeg: (bytes) => mpegAudio(bytes) || (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 1),
  mp4: isoMedia,
  m4a: isoMedia,
  ogg: (bytes) => bytes.toString("latin1", 0, 4) === "OggS",
  wav: (bytes) => bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WAVE",
  webm: (bytes) => bytes.readUInt32BE(0) === 0x1a45dfa3,
};

export const audioExtensions = Object.keys(signatures);

const refuse = (detail: string) =>
  invalidRequest(
    `Invalid file format. ${detail} Supported formats: ${audioExtensions.map((name) => `'${name}'`).join(", ")}`,
    "file",
    "invalid_value",
  );

// A PCM format chunk's fields (format tag to bits per sample) take 16 bytes.
const FMT_FIELDS_BYTES = 16;

/**
 * Whether a WAV's chunks, walked from the RIFF header up to its `fmt ` chunk, are all there and
 * that chunk is whole: later readers of the header (duration, billing) then never read past the end.
 */
function wavFormatComplete(bytes: Buffer): boolean {
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const size = bytes.readUInt32LE(offset + 4);
    if (bytes.toString("latin1", offset, offset + 4) === "fmt ") {
      return size >= FMT_FIELDS_BYTES && offset + 8 + FMT_FIELDS_BYTES <= bytes.length;
    }
    offset += 8 + size + (size % 2);
  }
  return false;
}

/** Refuses a file whose name has no supported extension or whose bytes are not of that format. */
export function checkAudioFile(filename: string, bytes: Buffer): void {
  const name = echoed(filename);
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  const matches = signatures[extension];
  if (!matches) throw refuse(`'${name}' has no supported extension.`);
  if (bytes.length < 12 || !matches(bytes)) throw refuse(`The content of '${name}' is not ${extension} audio.`);
  if (extension === "wav" && !wavFormatComplete(bytes)) {
    throw refuse(`The WAV file '${name}' has no complete 'fmt ' chunk: it is cut off or malformed.`);
  }
}
