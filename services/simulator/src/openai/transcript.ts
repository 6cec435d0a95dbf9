import { createHash } from "node:crypto";

export interface Segment {
  id: number;
  start: number;
  end: number;
  text: string;
  words: { word: string; start: number; end: number }[];
}

export interface Transcript {
  text: string;
  duration: number;
  segments: Segment[];
}

const vocabulary = [
  "the",
  "gateway",
  "routes",
  "every",
  "request",
  "to",
  "a",
  "model",
  "and",
  "records",
  "its",
  "usage",
  "audio",
  "arrives",
  "as",
  "bytes",
  "then",
  "becomes",
  "plain",
  "text",
  "quickly",
  "today",
];
const secondsPerSegment = 5;
const wordsPerSegment = 6;
const mostSegments = 20;

/** WAV states its length (data bytes over byte rate); anything else is taken as 16,000 bytes a second. */
export function audioSeconds(bytes: Buffer): number {
  if (bytes.length >= 44 && bytes.toString("ascii", 0, 4) === "RIFF" && bytes.toString("ascii", 8, 12) === "WAVE") {
    let byteRate = 0;
    for (let offset = 12; offset + 8 <= bytes.length; ) {
      const id = bytes.toString("ascii", offset, offset + 4);
      const size = bytes.readUInt32LE(offset + 4);
      if (id === "fmt ") byteRate = bytes.readUInt32LE(offset + 16);
      if (id === "data" && byteRate > 0) return Math.min(size, bytes.length - offset - 8) / byteRate;
      offset += 8 + size + (size % 2);
    }
  }
  return bytes.length / 16_000;
}

/** A deterministic transcript of the file: the same bytes always read the same words at the same times. */
export function transcribe(bytes: Buffer): Transcript {
  const duration = Math.round(audioSeconds(bytes) * 100) / 100;
  const digest = createHash("sha256").update(bytes).digest();
  const count = Math.min(mostSegments, Math.max(1, Math.ceil(duration / secondsPerSegment)));
  const span = duration / count;
  const segments = Array.from({ length: count }, (_, id): Segment => {
    const start = id * span;
    const words = Array.from({ length: wordsPerSegment }, (_, index) => {
      const word = vocabulary[digest[(id * wordsPerSegment + index) % digest.length]! % vocabulary.length]!;
      const step = span / wordsPerSegment;
      return { word, start: round(start + index * step), end: round(start + (index + 1) * step) };
    });
    const sentence = words.map((entry) => entry.word).join(" ");
    const text = `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
    return { id, start: round(start), end: round(start + span), text, words };
  });
  return { text: segments.map((segment) => segment.text).join(" "), duration, segments };
}

const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** 00:00:01,500 (SubRip) or 00:00:01.500 (WebVTT). */
function timestamp(seconds: number, separator: "," | "."): string {
  const millis = Math.round(seconds * 1000);
  const pad = (value: number, width = 2) => String(value).padStart(width, "0");
  const hours = Math.floor(millis / 3_600_000);
  const minutes = Math.floor(millis / 60_000) % 60;
  const secs = Math.floor(millis / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(secs)}${separator}${pad(millis % 1000, 3)}`;
}

export function toSrt(transcript: Transcript): string {
  return transcript.segments
    .map(
      (segment) =>
        `${segment.id + 1}\n${timestamp(segment.start, ",")} --> ${timestamp(segment.end, ",")}\n${segment.text}\n\n`,
    )
    .join("");
}

export function toVtt(transcript: Transcript): string {
  const cues = transcript.segments.map(
    (segment) => `${timestamp(segment.start, ".")} --> ${timestamp(segment.end, ".")}\n${segment.text}\n\n`,
  );
  return `WEBVTT\n\n${cues.join("")}`;
}
