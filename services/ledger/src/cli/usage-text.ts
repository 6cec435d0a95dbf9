export const USAGE_TEXT = `Usage: pnpm gw <command> [options]

Commands:
  account create --name NAME [--group GROUP] [--credit YUAN] [--read-logs] [--json]
      Create an account and its first API key (shown once); --read-logs lets that key read request logs.
  account log-capture ACCOUNT_ID full|metadata|off|default [--json]
      What the request log keeps of the account's requests (default: the deployment's level).
  key create ACCOUNT_ID --group GROUP [--name NAME] [--spend-cap YUAN] [--read-logs] [--json]
      Create another API key for an account (shown once); --spend-cap limits what it may spend in all,
      --read-logs lets it read the account's request logs (they hold prompts; off by default).
  key revoke KEY_ID [--json]
      Revoke a key everywhere within seconds.
  key list ACCOUNT_ID [--json]
      List an account's keys (prefixes only, never the keys), with caps, spending and last use.
  credit ACCOUNT_ID YUAN [--idempotency-key KEY] [--json]
      Top up an account; YUAN has at most 2 decimals. Retrying with the same key adds nothing.
  balance ACCOUNT_ID [--json]
  usage ACCOUNT_ID [--limit N] [--cursor CURSOR | --all] [--json]
      Usage records, newest first, N (default 50, at most 1000) a page; --cursor continues after a
      page (its next_cursor), --all reads every page to the end.
  admin grant IDENTITY|ACCOUNT_ID [--role admin|support] [--json]
      Make a console operator: a sign-in (github:123, oidc:google:abc) or an account id. admin (the
      default) does everything; support reads everything, adjusts credit and disables accounts.
  admin revoke IDENTITY|ACCOUNT_ID [--json]
  admin list [--json]
      Roles granted at run time; CONSOLE_ADMIN_IDENTITIES adds admins of its own at console start-up.

The admin API is found through GATEWAY_ADMIN_URL and GATEWAY_ADMIN_TOKEN, or else through
.gateway/stack.json in the current directory (written by \`pnpm start\`).
With --json a command prints one JSON object; money (*_micros) is in micro-yuan, as strings.`;
