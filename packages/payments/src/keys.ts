import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

type DerType = "pkcs8" | "pkcs1" | "spki";

/**
 * A PEM, or bare base64 DER (how Alipay's key tool writes keys) tried as each of `derTypes`.
 * Environment variables often carry a PEM on one line with literal "\n", which is undone first.
 */
function parseKey(
  text: string,
  create: (key: string | { key: Buffer; format: "der"; type: DerType }) => KeyObject,
  derTypes: [DerType, DerType],
): KeyObject {
  const key = text.trim().replaceAll("\\n", "\n");
  if (key.includes("-----BEGIN")) return create(key);
  const der = Buffer.from(key, "base64");
  try {
    return create({ key: der, format: "der", type: derTypes[0] });
  } catch {
    return create({ key: der, format: "der", type: derTypes[1] });
  }
}

/** A PKCS#8 or PKCS#1 private key. */
export function parsePrivateKey(text: string): KeyObject {
  return parseKey(text, (key) => createPrivateKey(key as Parameters<typeof createPrivateKey>[0]), ["pkcs8", "pkcs1"]);
}

/** An SPKI or PKCS#1 public key, or an X.509 certificate (PEM). */
export function parsePublicKey(text: string): KeyObject {
  return parseKey(text, (key) => createPublicKey(key as Parameters<typeof createPublicKey>[0]), ["spki", "pkcs1"]);
}
