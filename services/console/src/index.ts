export { consoleConfigSchema } from "./config.js";
