import { commaSeparated, commonConfig, loadConfig, port, trustedProxiesSetting } from "@gateway/platform";
import { z } from "zod";

const optionalText = z.string().trim().min(1).optional();
const identityList = commaSeparated().pipe(
  z.array(z.string().regex(/^[a-z][a-z0-9:_-]*:.+$/, "provider:subject, e.g. github:123 or oidc:abc")),
);

export const consoleConfigSchema = z
  .object({
    ...commonConfig,
    CONSOLE_HOST: z.string().default("127.0.0.1"),
    CONSOLE_PORT: port(8081),
    // Prometheus /metrics and nothing else, on a port of its own; 0 picks a free port.
    CONSOLE_ADMIN_PORT: port(9467),
    // Where browsers reach the console: OAuth redirect URIs, payment notify URLs and the Origin check.
    CONSOLE_PUBLIC_URL: z.url().optional(),
    LEDGER_URL: z.string().default("127.0.0.1:50052"),
    // Router's gRPC address: the admin pages' channel health and catalogue.
    ROUTER_URL: z.string().default("127.0.0.1:50051"),
    REDIS_URL: z.string().default("redis://127.0.0.1:6379"),
    // Bootstrap admins (provider:subject): admins whatever ledger's roles say (docs/console.md, "Groups, operators and log capture").
    CONSOLE_ADMIN_IDENTITIES: identityList,
    // Model groups every account may make keys in (comma-separated), the first being the default.
    CONSOLE_KEY_GROUPS: commaSeparated("default").pipe(z.array(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)).min(1)),
    CONSOLE_SESSION_IDLE_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(7 * 24 * 3600),
    CONSOLE_SESSION_MAX_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(30 * 24 * 3600),
    // The directory of the built web app (services/console/web/dist by default).
    CONSOLE_WEB_DIR: optionalText,
    GITHUB_CLIENT_ID: optionalText,
    GITHUB_CLIENT_SECRET: optionalText,
    CONSOLE_GITHUB_AUTHORIZE_URL: z.url().default("https://github.com/login/oauth/authorize"),
    CONSOLE_GITHUB_TOKEN_URL: z.url().default("https://github.com/login/oauth/access_token"),
    CONSOLE_GITHUB_API_URL: z.url().default("https://api.github.com"),
    OIDC_ISSUER: z.url().optional(),
    OIDC_CLIENT_ID: optionalText,
    OIDC_CLIENT_SECRET: optionalText,
    OIDC_DISPLAY_NAME: z.string().trim().min(1).default("OpenID Connect"),
    OIDC_SCOPES: z.string().trim().min(1).default("openid email profile"),
    // The request-log capture accounts without their own setting get (router's GATEWAY_REQUEST_LOG_CAPTURE).
    GATEWAY_REQUEST_LOG_CAPTURE: z.enum(["full", "metadata", "off"]).default("full"),
    // Top-up orders: how long one may be paid, how often the reconcile job runs.
    CONSOLE_TOPUP_EXPIRY_MS: z.coerce
      .number()
      .int()
      .min(60_000)
      .default(30 * 60_000),
    CONSOLE_RECONCILE_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
    // Orders left `created` this long are asked about at the provider.
    CONSOLE_RECONCILE_AFTER_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5 * 60_000),
    CONSOLE_RECONCILE_CLOSE_GRACE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(5 * 60_000),
    // Who may tell the console the client's address (X-Forwarded-For): the ingress in front of it.
    CONSOLE_TRUSTED_PROXIES: trustedProxiesSetting,
    // Prepaid codes: failed redemptions allowed per account and per client address in a window.
    CONSOLE_REDEEM_FAILURES_PER_ACCOUNT: z.coerce.number().int().min(1).default(5),
    CONSOLE_REDEEM_FAILURES_PER_ADDRESS: z.coerce.number().int().min(1).default(20),
    CONSOLE_REDEEM_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .default(15 * 60),
  })
  .superRefine((config, context) => {
    if (config.GITHUB_CLIENT_ID && !config.GITHUB_CLIENT_SECRET) {
      context.addIssue({ code: "custom", path: ["GITHUB_CLIENT_SECRET"], message: "required with GITHUB_CLIENT_ID" });
    }
    if (config.OIDC_ISSUER && !config.OIDC_CLIENT_ID) {
      context.addIssue({ code: "custom", path: ["OIDC_CLIENT_ID"], message: "required with OIDC_ISSUER" });
    }
    if (config.GATEWAY_ENV === "production") {
      if (!config.CONSOLE_PUBLIC_URL) {
        context.addIssue({ code: "custom", path: ["CONSOLE_PUBLIC_URL"], message: "required in production" });
      }
      for (const name of [
        "CONSOLE_GITHUB_AUTHORIZE_URL",
        "CONSOLE_GITHUB_TOKEN_URL",
        "CONSOLE_GITHUB_API_URL",
        "OIDC_ISSUER",
      ] as const) {
        const value = config[name];
        if (value && new URL(value).protocol !== "https:") {
          // A development provider (the simulator, the local OpenID provider) is plain HTTP on this machine.
          context.addIssue({ code: "custom", path: [name], message: "must be https in production" });
        }
      }
    }
  });

export type ConsoleConfig = z.infer<typeof consoleConfigSchema>;

export const loadConsoleConfig = () => loadConfig(consoleConfigSchema);
