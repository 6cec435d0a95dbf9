export type { Answer, AnswerRequest, ConversationMessage, ToolCall, ToolChoice, ToolDefinition } from "./answer.js";
export { answer } from "./answer.js";
export type { Fault } from "./faults.js";
export { parseDirectives } from "./faults.js";
export type { RequestRecord } from "./request-log.js";
export { type Simulator, type SimulatorOptions, startSimulator } from "./server.js";
