import { describe, expect, it } from "vitest";
import { FileUrlSigner } from "./signed-file-url.js";

const signer = new FileUrlSigner(Buffer.from("a test key that is long enough!!"), 60);
const id = `img_${"a".repeat(32)}.png`;
const parse = (query: string) => Object.fromEntries(new URLSearchParams(query)) as Record<string, string>;

describe("FileUrlSigner", () => {
  it("accepts its own URL until it expires", () => {
    const now = 1_700_000_000_000;
    const { expires, signature } = parse(signer.query(id, now));
    expect(Number(expires)).toBe(now / 1000 + 60);
    expect(signer.verify(id, expires, signature, now + 59_000)).toBe("valid");
    expect(signer.verify(id, expires, signature, now + 61_000)).toBe("expired");
  });

  it("refuses another file, a longer life, another key or a missing signature", () => {
    const { expires, signature } = parse(signer.query(id));
    expect(signer.verify(`img_${"b".repeat(32)}.png`, expires, signature)).toBe("forged");
    expect(signer.verify(id, String(Number(expires) + 3600), signature)).toBe("forged");
    const other = new FileUrlSigner(Buffer.from("another key, also long enough!!!"), 60);
    expect(other.verify(id, expires, signature)).toBe("forged");
    expect(signer.verify(id, expires, undefined)).toBe("forged");
    expect(signer.verify(id, "soon", signature)).toBe("forged");
  });
});
