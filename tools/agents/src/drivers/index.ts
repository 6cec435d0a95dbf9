import type { AgentDriver } from "../agent-driver.js";
import type { AgentName } from "../versions.js";
import { claudeCode } from "./claude-code.js";
import { codex } from "./codex.js";
import { geminiCli } from "./gemini-cli.js";
import { opencode } from "./opencode.js";

export const agentDrivers: Record<AgentName, AgentDriver> = {
  "claude-code": claudeCode,
  codex,
  "gemini-cli": geminiCli,
  opencode,
};
