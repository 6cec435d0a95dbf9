import type { AgentDriver } from "../agent-driver.js";

interface ClaudeCodeResult {
  result?: string;
  is_error?: boolean;
  api_error_status?: number | null;
}

// Claude Code asks a small fast model for side jobs (titles, summaries) and can start subagents:
// every model it may pick is the one under test, so each of its requests reaches that family.
const modelVariables = [
  "ANTHROPIC_SMALL_FAST_MODEL",
  "ANTHROPIC_DEFAULT_HAIKU_MODEL",
  "ANTHROPIC_DEFAULT_SONNET_MODEL",
  "ANTHROPIC_DEFAULT_OPUS_MODEL",
  "CLAUDE_CODE_SUBAGENT_MODEL",
];

export const claudeCode: AgentDriver = {
  readFileDirective: (workDir, file) => `[sim:tool=Read ${JSON.stringify({ file_path: `${workDir}/${file}` })}]`,
  invocation: ({ gateway, model, prompt }) => ({
    args: ["-p", prompt, "--output-format", "json", "--model", model],
    env: {
      ANTHROPIC_BASE_URL: gateway.origin,
      ANTHROPIC_API_KEY: gateway.apiKey,
      // No update checks, telemetry, error reports or feedback surveys: the run talks to the gateway only.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      ...Object.fromEntries(modelVariables.map((name) => [name, model])),
    },
  }),
  reply(stdout) {
    const result = JSON.parse(stdout) as ClaudeCodeResult;
    const text = result.result ?? "";
    return result.is_error === false ? { text } : { text, error: `is_error ${result.is_error}: ${text}` };
  },
};
