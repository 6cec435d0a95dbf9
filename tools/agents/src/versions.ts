/**
 * The one place the coding agents' versions are pinned. Bumping one here is how a newer
 * release reaches the test suite: the installer fetches it and the tool-loop test runs it.
 */
export const agentVersions = {
  "claude-code": { package: "@anthropic-ai/claude-code", version: "2.1.197", bin: "claude" },
  codex: { package: "@openai/codex", version: "0.171.0", bin: "codex" },
  "gemini-cli": { package: "@google/gemini-cli", version: "0.61.0", bin: "gemini" },
  opencode: { package: "opencode-ai", version: "1.18.33", bin: "opencode" },
} as const;

export type AgentName = keyof typeof agentVersions;

export const agentNames = Object.keys(agentVersions) as AgentName[];
