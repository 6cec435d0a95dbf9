import type { VideoStorageConfig } from "../config.js";
import { FilesystemStorage } from "./filesystem-storage.js";
import type { VideoStorage } from "./video-storage.js";

/** The configured storage; an S3 bucket is checked first, so a wrong bucket or key stops the start. */
export async function openVideoStorage(config: VideoStorageConfig): Promise<VideoStorage> {
  if (config.VIDEO_STORAGE === "filesystem") return new FilesystemStorage(config.VIDEO_STORAGE_DIR);
  // Loaded only when used: the AWS SDK is large, and filesystem deployments never need it.
  const [{ S3Client }, { S3Storage }] = await Promise.all([import("@aws-sdk/client-s3"), import("./s3-storage.js")]);
  const client = new S3Client({
    region: config.VIDEO_S3_REGION,
    endpoint: config.VIDEO_S3_ENDPOINT,
    forcePathStyle: config.VIDEO_S3_FORCE_PATH_STYLE ?? config.VIDEO_S3_ENDPOINT !== undefined,
    credentials: { accessKeyId: config.VIDEO_S3_ACCESS_KEY_ID, secretAccessKey: config.VIDEO_S3_SECRET_ACCESS_KEY },
  });
  const storage = new S3Storage(client, config.VIDEO_S3_BUCKET, config.VIDEO_S3_PREFIX);
  await storage.check();
  return storage;
}
