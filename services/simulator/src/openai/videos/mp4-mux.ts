import { BufferTarget, EncodedPacket, EncodedVideoPacketSource, Mp4OutputFormat, Output } from "mediabunny";

export interface VideoTrack {
  /** RFC 6381 codec string of the H.264 stream. */
  codec: string;
  width: number;
  height: number;
  frameRate: number;
  /** Access units in decoding order, Annex B; the first is the key frame with the parameter sets. */
  accessUnits: Buffer[];
}

/**
 * Puts one H.264 track into an MP4, moov first so players can start before the end. Mediabunny
 * builds the avcC record from the parameter sets in the first access unit and times the
 * samples on a timescale of the frame rate, so the duration is exactly frames / frameRate.
 */
export async function muxMp4(track: VideoTrack): Promise<Buffer> {
  const target = new BufferTarget();
  const output = new Output({ format: new Mp4OutputFormat({ fastStart: "in-memory" }), target });
  const source = new EncodedVideoPacketSource("avc");
  output.addVideoTrack(source, { frameRate: track.frameRate });
  await output.start();
  const frameSeconds = 1 / track.frameRate;
  for (const [index, unit] of track.accessUnits.entries()) {
    const packet = new EncodedPacket(unit, index === 0 ? "key" : "delta", index * frameSeconds, frameSeconds);
    const decoderConfig = { codec: track.codec, codedWidth: track.width, codedHeight: track.height };
    await source.add(packet, index === 0 ? { decoderConfig } : undefined);
  }
  await output.finalize();
  if (!target.buffer) throw new Error("mediabunny produced no file");
  return Buffer.from(target.buffer);
}
