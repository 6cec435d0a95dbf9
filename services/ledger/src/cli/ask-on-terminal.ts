import { createInterface } from "node:readline/promises";

/** Asks on the terminal (standard error, so a --json answer on standard output stays clean); no terminal: no. */
export async function askOnTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(question)).trim());
  } finally {
    terminal.close();
  }
}
