import { invalidRequest } from "@gateway/shared";

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

/** Refuses a file whose name has no supported extension or whose bytes are not of that format. */
export function checkAudioFile(filename: string, bytes: Buffer): void {
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename)?.[1]?.toLowerCase() ?? "";
  const matches = signatures[extension];
  if (!matches) throw refuse(`'${filename}' has no supported extension.`);
  if (bytes.length < 12 || !matches(bytes)) throw refuse(`The content of '${filename}' is not ${extension} audio.`);
}
