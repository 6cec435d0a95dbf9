import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, signInWithGithub } from "../../../services/console/test/browser.js";
import { repoRoot } from "./repo-paths.js";
import { type StartedGateway, spawnStart } from "./start-process.js";
import { commandOutcome, eventually } from "./test-resources.js";

// Every command line of the README's shell examples, run verbatim against `pnpm start` from a
// fresh shell: an environment with nothing but PATH, HOME, the KEY the start printed, and
// GATEWAY_HOME (the directory that start ran in, where its .gateway/stack.json is; a newcomer
// runs from the checkout instead). Each `--json` answer must parse as JSON.

const execute = promisify(execFile);

/** The README's shell code blocks, as command lines (a trailing backslash joins the next line). */
function shellLines(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^ *```sh\n([\s\S]*?)^ *```$/gm)].map(([, body]) => body!);
  return blocks.flatMap((body) =>
    body
      .replace(/\\\n\s*/g, " ")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
}

const isCli = (line: string) => /^(pnpm -s gw|pnpm gw|\.\/scripts\/gw) /.test(line);
const isCurl = (line: string) => line.startsWith("curl ");
// Lines that are not run here, each for its reason: the start and the suite themselves (this
// test runs under the suite, on a stack of its own), the KEY placeholder (the test sets the
// printed key), and a coding agent this machine need not have.
const notRun = [
  /^\.\/scripts\/up\.sh /,
  /^\.\/scripts\/test\.sh /,
  /^export KEY=gw-\.\.\. /,
  /^ANTHROPIC_BASE_URL=.* claude /,
];

const lines = shellLines(readFileSync(`${repoRoot}README.md`, "utf8"));
let gateway: StartedGateway;
let freshShell: NodeJS.ProcessEnv;
let printedBaseUrl: string;
let demoKey: string;

/** One line through bash, as typed at a prompt; `terminal` runs it on a pseudo-terminal answering y. */
async function shell(line: string, terminal: boolean) {
  const [file, args, input] = terminal
    ? ["script", ["-qec", line, "/dev/null"], "y\n"]
    : ["bash", ["--noprofile", "--norc", "-c", line], ""];
  const child = execute(file, args, { cwd: repoRoot, env: freshShell, timeout: 60_000 });
  child.child.stdin!.end(input);
  return commandOutcome(child);
}

beforeAll(async () => {
  gateway = await spawnStart();
  await gateway.running();
  // The banner comes after the state file; wait for the line the README tells a newcomer to copy.
  const output = await eventually(
    async () => (/Metrics \(Prometheus/.test(gateway.output()) ? gateway.output() : undefined),
    30_000,
  );
  const printed = (label: string) => new RegExp(`${label}: +(\\S+)`).exec(output)![1]!;
  printedBaseUrl = printed("Base URL");
  demoKey = printed("Demo key");
  freshShell = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // The line the start prints for the README's examples.
    KEY: /^ {2}export KEY=(\S+)$/m.exec(output)![1]!,
    GATEWAY_HOME: gateway.directory,
  };
  // The README's first step: sign in to the console the start printed, then grant that sign-in.
  await signInWithGithub(new Browser(), printed("Console"), `newcomer-${gateway.namespace}`);
}, 180_000);

afterAll(async () => {
  await gateway?.stop();
});

describe("the README's commands", { timeout: 120_000 }, () => {
  it("runs or names a reason for every line of its shell examples", () => {
    expect(lines.filter(isCli).length).toBeGreaterThanOrEqual(4);
    expect(lines.filter((line) => !isCli(line) && !isCurl(line) && !notRun.some((skip) => skip.test(line)))).toEqual(
      [],
    );
  });

  it("answers the first request with the key the start printed", async () => {
    expect(freshShell.KEY).toBe(demoKey);
    for (const line of lines.filter(isCurl)) {
      // The README's address is the default port; this start listens where the test put it.
      const answer = await shell(line.replaceAll("http://127.0.0.1:8080/v1", printedBaseUrl), false);
      expect(answer.code, `${line}\n${answer.stderr}`).toBe(0);
      expect(answer.stdout, line).toContain("data: [DONE]");
    }
  });

  it("runs every CLI command verbatim, in order, and each --json answer parses", async () => {
    for (const line of lines.filter(isCli)) {
      const json = line.includes("--json");
      // A command that asks first (admin grant --first) gets a terminal and a "y", as at a prompt.
      const answer = await shell(line, !json);
      expect(answer.code, `${line}\n${answer.stdout}\n${answer.stderr}`).toBe(0);
      if (json) expect(() => JSON.parse(answer.stdout), `${line}\n${answer.stdout}`).not.toThrow();
      else expect(answer.stdout, line).not.toMatch(/^error/m);
    }
  });

  it("made the newcomer the console's administrator", async () => {
    const listed = await shell("pnpm -s gw admin list --json", false);
    expect(JSON.parse(listed.stdout).data).toEqual([
      expect.objectContaining({ grantee: expect.stringMatching(/^github:/), role: "admin" }),
    ]);
  });
});
