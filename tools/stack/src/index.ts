export * from "./nats-server.js";
export * from "./redis-server.js";
export * from "./repo-paths.js";
export * from "./service-process.js";
export * from "./simulator-client.js";
export * from "./stack.js";
export * from "./test-resources.js";
export * from "./test-stack.js";
