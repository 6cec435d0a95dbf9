import { startTestStack, type TestStack } from "@gateway/stack";
import { afterAll, beforeAll } from "vitest";

/** The whole stack with the console, started before a file's tests and torn down after them. */
export function consoleTestStack(): { readonly stack: TestStack; readonly consoleUrl: string } {
  let stack: TestStack | undefined;
  beforeAll(async () => {
    stack = await startTestStack({ console: true });
  }, 180_000);
  afterAll(async () => {
    await stack?.teardown();
  });
  return {
    get stack() {
      if (!stack) throw new Error("the stack is not started yet");
      return stack;
    },
    get consoleUrl() {
      return this.stack.consoleUrl!;
    },
  };
}
