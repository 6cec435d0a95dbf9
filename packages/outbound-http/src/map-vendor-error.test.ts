import { describe, expect, it } from "vitest";
import { mapVendorError } from "./map-vendor-error.js";

describe("vendor failures as client errors", () => {
  it("keeps the vendor's explanation of a bad request but strips key-like strings", () => {
    const error = mapVendorError(400, JSON.stringify({ error: { message: "bad key sk-abcdefghijkl used" } }), {});
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe("bad key [redacted] used");
  });

  it("keeps the vendor's message when its refusal of a streamed request is framed as an event", () => {
    const body = `data: ${JSON.stringify({ error: { code: "invalid_parameter_error", message: "Range of top_p should be (0.0, 1.0]" } })}\n\n`;
    const error = mapVendorError(400, body, { "content-type": "text/event-stream" });
    expect(error.httpStatus).toBe(400);
    expect(error.message).toBe("Range of top_p should be (0.0, 1.0]");
  });

  it("reads xAI's flat error shape", () => {
    expect(mapVendorError(422, JSON.stringify({ code: "x", error: "too long" }), {}).message).toBe("too long");
  });

  it.each([429, 500, 502, 503, 504, 529])("turns %i into a retryable 503 honouring retry-after", (status) => {
    const error = mapVendorError(status, "", { "retry-after": "2" });
    expect(error.httpStatus).toBe(503);
    expect(error.retryAfterMs).toBe(2000);
  });

  it("hides a rejection of the gateway's own credentials", () => {
    const error = mapVendorError(401, JSON.stringify({ error: { message: "Incorrect API key sk-secret1234" } }), {});
    expect(error.httpStatus).toBe(500);
    expect(error.message).not.toContain("sk-");
  });

  it.each([
    JSON.stringify({
      error: {
        code: 400,
        message: "API key not valid.",
        status: "INVALID_ARGUMENT",
        details: [{ reason: "API_KEY_INVALID" }],
      },
    }),
    JSON.stringify({ code: "Client specified an invalid argument", error: "Incorrect API key provided: xai-abc" }),
  ])("treats a 400 that rejects the gateway's own key as a server error, and the key as refused", (body) => {
    const error = mapVendorError(400, body, {});
    expect(error.httpStatus).toBe(500);
    expect(error.keyRefusal).toBe("key_invalid");
    expect(error.message).not.toMatch(/key/i);
  });
});
