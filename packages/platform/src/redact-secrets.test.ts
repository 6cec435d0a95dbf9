import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact-secrets.js";

// Made-up keys in each vendor's published format.
const secrets = {
  openai: "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
  openaiLegacy: "sk-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9k",
  anthropic: "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z_Ab3dEf6h-Ij9kLm2n",
  gateway: "sk-gw-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6h",
  xai: "xai-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5q",
  google: "AIzaSyAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
  githubClassic: "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d",
  githubOauth: "gho_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d",
  githubFineGrained: "github_pat_11ABCDEFG0Ab3dEf6hIj9k_Lm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
  aws: "AKIAIOSFODNN7EXAMPLE",
  slack: "xoxb-1234567890-1234567890123-Ab3dEf6hIj9kLm2nOp5qRs8t",
  groq: "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",
  generic: "key-Ab3dEf6hIj9kLm2nOp5qRs8t",
  jwt: "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
};

describe("redactSecrets", () => {
  for (const [name, secret] of Object.entries(secrets)) {
    it(`redacts a ${name} key inside prose`, () => {
      expect(redactSecrets(`my key is ${secret}, please use it.`)).toBe("my key is [redacted], please use it.");
    });
  }

  it("redacts a bearer credential of any shape and keeps the scheme", () => {
    expect(redactSecrets("Authorization: Bearer abc.DEF-123_456~xyz=")).toBe("Authorization: Bearer [redacted]");
    expect(redactSecrets("curl -H 'authorization: bearer 0123456789abcdef'")).toBe(
      "curl -H 'authorization: bearer [redacted]'",
    );
  });

  it("redacts every secret in the text, wherever it stands", () => {
    const text = `${secrets.openai}\n"${secrets.aws}"\tkey=${secrets.google}`;
    expect(redactSecrets(text)).toBe('[redacted]\n"[redacted]"\tkey=[redacted]');
  });

  it("leaves ordinary text alone", () => {
    const text =
      'Ask the task-runner about sk-1, use xai-grok, read AKIA docs, eyJ is base64 for {", bearer of bad news, key-value-store.';
    expect(redactSecrets(text)).toBe(text);
  });

  it("does not read a key out of the middle of a word", () => {
    const text = "the-risk-assessment-framework-for-large-teams";
    expect(redactSecrets(text)).toBe(text);
  });
});
