import { describe, expect, it } from "vitest";
import {
  SERVICE_TOKEN_LIFETIME_MS,
  serviceTokenVerifier,
  signServiceToken,
  verifyServiceToken,
} from "./service-token.js";

const secret = "a-shared-secret-of-at-least-32-characters";

describe("service tokens", () => {
  it("name their service while current", () => {
    const now = 1_800_000_000_000;
    expect(verifyServiceToken(secret, signServiceToken(secret, "edge", now), now + 1_000)).toBe("edge");
  });

  it("are refused when expired, dated ahead, signed with another secret, or altered", () => {
    const now = 1_800_000_000_000;
    const token = signServiceToken(secret, "video", now);
    expect(verifyServiceToken(secret, token, now + SERVICE_TOKEN_LIFETIME_MS + 1)).toBeUndefined();
    expect(verifyServiceToken(secret, signServiceToken(secret, "video", now + 60_000), now)).toBeUndefined();
    expect(verifyServiceToken(`${secret}x`, token, now)).toBeUndefined();
    expect(verifyServiceToken(secret, token.replace("video.", "edge."), now)).toBeUndefined();
    expect(verifyServiceToken(secret, `${token}.extra`, now)).toBeUndefined();
    expect(verifyServiceToken(secret, "", now)).toBeUndefined();
  });

  it("stay refused once expired after a verifier has remembered them, and forged ones are never remembered", () => {
    const now = 1_800_000_000_000;
    const verify = serviceTokenVerifier(secret);
    const token = signServiceToken(secret, "edge", now);
    expect(verify(token, now)).toBe("edge");
    expect(verify(token, now + 1_000)).toBe("edge");
    expect(verify(token, now + SERVICE_TOKEN_LIFETIME_MS + 1)).toBeUndefined();
    const forged = signServiceToken(`${secret}x`, "edge", now);
    expect(verify(forged, now)).toBeUndefined();
    expect(verify(forged, now)).toBeUndefined();
    expect(verify(signServiceToken(secret, "ledger", now), now)).toBe("ledger");
  });
});
