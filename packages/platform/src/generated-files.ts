import { z } from "zod";

/**
 * Generated images answered as `url`: router writes them into GATEWAY_FILES_DIR, edge serves
 * them from there at signed, expiring URLs. Both must reach the same directory (a shared volume
 * when they run on different hosts).
 */
export const filesConfig = {
  GATEWAY_FILES_DIR: z.string().min(1).default(".gateway/files"),
};

/** A stored file's name, which is also its id in URLs: random, no path separators, a known image type. */
export const generatedFileIdPattern = /^img_[a-f0-9]{32}\.(png|jpeg|webp)$/;

export const generatedFileTypes: Record<string, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  webp: "image/webp",
};
