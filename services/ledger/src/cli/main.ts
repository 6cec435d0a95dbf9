#!/usr/bin/env node
// The operator CLI, run as `./scripts/gw ...` (or `pnpm gw ...` from the repository root). It only
// talks to the ledger's admin HTTP API, router's catalogue admin API and, to test a channel, a
// router's gRPC; it never touches a database itself.
import { AdminApiError, type AdminRequest, createAdminClient } from "./admin-client.js";
import { askOnTerminal } from "./ask-on-terminal.js";
import { resolveRouterConnection, runChannelTest } from "./channel-test.js";
import { resolveConnection } from "./connection.js";
import { NotConfirmed } from "./first-admin-command.js";
import { CommandLineError, parseArguments } from "./parse-arguments.js";
import { needsAdminApi, runCommand } from "./run-command.js";
import { USAGE_TEXT } from "./usage-text.js";

try {
  const command = parseArguments(process.argv.slice(2));
  const home = process.env.GATEWAY_HOME || process.cwd();
  if (command.kind === "channel-test") {
    console.log(await runChannelTest(command, resolveRouterConnection(process.env, home)));
  } else {
    const connection = needsAdminApi(command) ? resolveConnection(process.env, home) : undefined;
    const noApi: AdminRequest = () => Promise.reject(new Error(`${command.kind} needs no API`));
    const catalogueUrl = connection?.catalogueUrl;
    const catalogue: AdminRequest = catalogueUrl
      ? createAdminClient({ adminUrl: catalogueUrl, adminToken: connection.adminToken })
      : () =>
          Promise.reject(
            new Error("cannot find the catalogue admin API: set GATEWAY_CATALOGUE_URL (router's admin port, /admin)"),
          );
    const ledger = connection ? createAdminClient(connection) : noApi;
    const say = (line: string) => console.error(line);
    console.log(await runCommand(command, { ledger, catalogue, confirm: askOnTerminal, say }));
  }
} catch (error) {
  if (error instanceof NotConfirmed) {
    console.error(error.message);
    process.exitCode = 1;
  } else if (error instanceof CommandLineError) {
    console.error(`error: ${error.message}\n\n${USAGE_TEXT}`);
    process.exitCode = 2;
  } else {
    const prefix = error instanceof AdminApiError && error.status > 0 ? `error (HTTP ${error.status})` : "error";
    console.error(`${prefix}: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
