// The four kinds of tool Codex CLI defines in a Responses request, for the unit and stack tests.

export const applyPatchGrammar =
  'start: begin_patch hunk+ end_patch\nbegin_patch: "*** Begin Patch" LF\nend_patch: "*** End Patch" LF?';

export const codexTools = [
  {
    type: "function",
    name: "exec_command",
    description: "Runs a command in a PTY.",
    strict: false,
    parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] },
  },
  {
    type: "custom",
    name: "apply_patch",
    description: "Use the `apply_patch` tool to edit files.",
    format: { type: "grammar", syntax: "lark", definition: applyPatchGrammar },
  },
  { type: "tool_search", execution: "client", description: "Search for MCP tools." },
  { type: "web_search", external_web_access: false },
];
