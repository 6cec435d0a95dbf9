import { generateKeyPairSync, type KeyObject } from "node:crypto";

export interface TestKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A fresh RSA-2048 key pair, as both providers use. */
export function rsaKeyPair(): TestKeyPair {
  return generateKeyPairSync("rsa", { modulusLength: 2048 });
}
