import { imageSize } from "image-size";

export interface ImageDimensions {
  width: number;
  height: number;
}

// PNG, GIF and WebP state their size in the first bytes; a JPEG's frame header follows its
// EXIF and colour profile, which rarely pass 1 MB. Decoding only this much keeps a 20 MB
// data URL cheap; an image whose size lies further in is reserved at the vendor's maximum.
const headerBytes = 1024 * 1024;
const dataUrlPattern = /^data:[^,;]*(?:;[^,;]*)*;base64,/i;

/** The pixel size of a base64 data URL's image, or undefined (remote URL, unreadable or unknown format). */
export function dataUrlDimensions(url: string): ImageDimensions | undefined {
  const header = dataUrlPattern.exec(url.slice(0, 256));
  if (!header) return undefined;
  const start = header[0].length;
  const encoded = url.slice(start, start + Math.ceil(headerBytes / 3) * 4);
  try {
    const { width, height } = imageSize(Buffer.from(encoded, "base64"));
    return width > 0 && height > 0 ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
