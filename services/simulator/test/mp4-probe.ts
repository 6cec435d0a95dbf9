import { createFile, type Movie, MP4BoxBuffer } from "mp4box";

export interface ProbedVideoTrack {
  codec: string;
  width: number;
  height: number;
  /** From the media header (mdhd). */
  durationSeconds: number;
  /** The sum of the sample durations (stts). */
  samplesSeconds: number;
  samples: number;
  firstSampleIsSync: boolean;
}

/** Reads an MP4 the way a player's demuxer would (gpac's mp4box.js), for tests of generated videos. */
export function probeMp4(bytes: Uint8Array): { movieSeconds: number; trackCount: number; video: ProbedVideoTrack[] } {
  const file = createFile();
  let movie: Movie | undefined;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = (module, message) => {
    throw new Error(`mp4box ${module}: ${message}`);
  };
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(copy, 0), true);
  file.flush();
  if (!movie) throw new Error("mp4box found no movie header");
  return {
    movieSeconds: movie.duration / movie.timescale,
    trackCount: movie.tracks.length,
    video: movie.videoTracks.map((track) => ({
      codec: track.codec,
      width: track.video?.width ?? 0,
      height: track.video?.height ?? 0,
      durationSeconds: track.duration / track.timescale,
      samplesSeconds: track.samples_duration / track.timescale,
      samples: track.nb_samples,
      firstSampleIsSync: file.getTrackById(track.id).samples[0]?.is_sync === true,
    })),
  };
}
