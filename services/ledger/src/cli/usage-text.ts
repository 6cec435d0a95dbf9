export const USAGE_TEXT = `Usage: pnpm gw <command> [options]

Commands:
  account create --name NAME [--group GROUP] [--credit YUAN] [--read-logs] [--json]
      Create an account and its first API key (shown once); --read-logs lets that key read request logs.
  account disable ACCOUNT_ID [--json]
      Refuse the account's keys and its sign-ins at once (audited as cli).
  account enable ACCOUNT_ID [--json]
      Serve a disabled account again (audited as cli).
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
  catalogue check [--file PATH] [--json]
      List every price of the live catalogue (or of the file PATH) that differs from the price
      dataset's (@pydantic/genai-prices, bundled), with the reason the entry states.
  channel test NAME [--model MODEL] [--json]
      Send a minimal chat request through the channel with each of its keys (its first chat model unless
      --model): latency and the vendor's answer per key. Asks a router (GATEWAY_ROUTER_URL), bills no one.
  code create --amount YUAN --count N [--expires DATE] [--note TEXT] [--json]
      Make N prepaid codes worth YUAN each (at most 1000), good through DATE (2027-01-31) or forever.
      The codes are printed once: ledger keeps only their hashes.
  code list [BATCH_ID] [--limit N] [--cursor CURSOR | --all] [--json]
      The batches, newest first, N (default 50, at most 500) a page, with how many codes were redeemed
      or revoked; with BATCH_ID, that batch's codes.
  code revoke CODE|CODE_ID|BATCH_ID [--json]
      Revoke one unused code, or every unused code of a batch.
  admin grant IDENTITY|ACCOUNT_ID [--role admin|support] [--json]
      Make a console operator: a sign-in (github:123, oidc:google:abc) or an account id. admin (the
      default) does everything; support reads everything, adjusts credit and disables accounts.
  admin grant --first [--yes] [--json]
      Make the sign-in used last the console's first admin: shows who and asks (--yes does not ask);
      refused once ledger holds an admin.
  admin revoke IDENTITY|ACCOUNT_ID [--json]
  admin list [--json]
      Roles granted at run time; CONSOLE_ADMIN_IDENTITIES adds admins of its own at console start-up.

The catalogue (live: a change reaches every router within seconds, or is refused whole with the
reasons). Prices are yuan per million tokens (up to 6 decimals); lists take "a,b" or repeat.
  model list [--group GROUP] [--json]
  model add MODEL_ID --vendor VENDOR --context-window N [--input YUAN --output YUAN]
      [--max-output N] [--cache-read YUAN] [--cache-write YUAN] [--price-reason TEXT] [--endpoints PATH,...]
      [--groups GROUP,...] [--capabilities vision,tools,...] [--source URL] [--from ENTRY.yaml] [--json]
      Defaults: /v1/chat/completions, group default, the price dataset's prices. A set price needs
      --price-reason where the vendor lists yuan prices or the dataset lacks the model.
      --from reads a whole entry the options override.
  model update MODEL_ID [any option of model add but --from] [--json]
  model retire MODEL_ID --successor MODEL_ID [--serve] [--on YYYY-MM-DD] [--json]
      --serve answers the retired id with its successor; without it, requests get a 404 naming it.
  group list [--json]
  group add GROUP --description TEXT [--multiplier 1.5] [--rpm N] [--tpm N] [--concurrent N]
      [--add-models ID,...] [--json]
  group update GROUP [--description TEXT] [--multiplier X] [--rpm N] [--tpm N] [--concurrent N]
      [--add-models ID,...] [--remove-models ID,...] [--json]
  channel list [--json]
      Keys are shown masked (sk-…abcd); the store keeps them encrypted.
  channel add CHANNEL --vendor VENDOR [--base-url URL] [--key KEY]... [--key-env ENV]
      [--models ID,...] [--map PUBLIC_ID=VENDOR_ID,...] [--weight N] [--priority N] [--json]
  channel update CHANNEL [any option of channel add; --key replaces every key] [--move-keys] [--json]
      a new --vendor or --base-url needs the keys for it (--key) or --move-keys, which sends the
      channel's keys to the new address (audited as channel.update+move_keys)
  channel disable CHANNEL [--reason TEXT] [--json]
  channel enable CHANNEL [--json]
  catalogue import FILE [--json]
      Replace the catalogue with a YAML file (keys stored for a channel the file names stay).
  catalogue export [FILE] [--json]
      The catalogue as YAML (channel keys are never exported), to FILE or standard output.
  catalogue history [--limit N] [--json]
      Who changed what and when, newest first (with --json, each object before and after, keys masked).

The admin APIs are found through GATEWAY_ADMIN_URL (ledger), GATEWAY_CATALOGUE_URL (router's admin
port, /admin) and GATEWAY_ADMIN_TOKEN, or else through .gateway/stack.json in the current directory
(written by \`pnpm start\`). \`catalogue check --file\` reads the file alone; \`channel test\` asks a router
instead: GATEWAY_ROUTER_URL (host:port, a comma-separated list of them or a gRPC target such as
dns:///name:port), signed with GATEWAY_SERVICE_TOKEN_SECRET when the router requires service tokens;
or the routers and secret that \`pnpm start\` wrote to the same file.
With --json a command prints one JSON object; money (*_micros) is in micro-yuan, as strings.`;
