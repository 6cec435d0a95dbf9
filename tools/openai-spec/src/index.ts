export { openAISpecErrors, responseErrors, responseStreamEventErrors } from "./openai-spec.js";
