import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { z } from "zod";

export const encryptedResource = z.object({
  algorithm: z.literal("AEAD_AES_256_GCM"),
  ciphertext: z.string().min(1),
  nonce: z.string().min(1),
  associated_data: z.string().optional(),
  original_type: z.string().optional(),
});
export type EncryptedResource = z.infer<typeof encryptedResource>;

const tagBytes = 16;

/** The provider's side: AES-256-GCM with the APIv3 key, ciphertext and tag base64 together. */
export function encryptResource(apiV3Key: string, plaintext: string, associatedData: string): EncryptedResource {
  const nonce = randomBytes(6).toString("hex");
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(apiV3Key, "utf8"), Buffer.from(nonce, "utf8"));
  cipher.setAAD(Buffer.from(associatedData, "utf8"));
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return {
    algorithm: "AEAD_AES_256_GCM",
    ciphertext: sealed.toString("base64"),
    nonce,
    associated_data: associatedData,
    original_type: "transaction",
  };
}

/** The plaintext, or undefined when the tag does not hold (another key, altered ciphertext, nonce or AAD). */
export function decryptResource(apiV3Key: string, resource: EncryptedResource): string | undefined {
  const sealed = Buffer.from(resource.ciphertext, "base64");
  if (sealed.length <= tagBytes) return undefined;
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      Buffer.from(apiV3Key, "utf8"),
      Buffer.from(resource.nonce, "utf8"),
      {
        authTagLength: tagBytes,
      },
    );
    decipher.setAAD(Buffer.from(resource.associated_data ?? "", "utf8"));
    decipher.setAuthTag(sealed.subarray(sealed.length - tagBytes));
    return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - tagBytes)), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return undefined;
  }
}
