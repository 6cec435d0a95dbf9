#!/usr/bin/env node
// The operator CLI, run as `./scripts/gw ...` (or `pnpm gw ...` from the repository root). It only talks to the
// ledger's admin HTTP API (and, to test a channel, a router); it never touches the database itself.
import { AdminApiError, createAdminClient } from "./admin-client.js";
import { resolveRouterConnection, runChannelTest } from "./channel-test.js";
import { resolveConnection } from "./connection.js";
import { CommandLineError, parseArguments } from "./parse-arguments.js";
import { needsAdminApi, runCommand } from "./run-command.js";
import { USAGE_TEXT } from "./usage-text.js";

try {
  const command = parseArguments(process.argv.slice(2));
  const home = process.env.GATEWAY_HOME || process.cwd();
  if (command.kind === "channel-test") {
    console.log(await runChannelTest(command, resolveRouterConnection(process.env, home)));
  } else {
    const request = needsAdminApi(command)
      ? createAdminClient(resolveConnection(process.env, home))
      : () => Promise.reject(new Error(`${command.kind} needs no API`));
    console.log(await runCommand(command, request));
  }
} catch (error) {
  if (error instanceof CommandLineError) {
    console.error(`error: ${error.message}\n\n${USAGE_TEXT}`);
    process.exitCode = 2;
  } else {
    const prefix = error instanceof AdminApiError && error.status > 0 ? `error (HTTP ${error.status})` : "error";
    console.error(`${prefix}: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
