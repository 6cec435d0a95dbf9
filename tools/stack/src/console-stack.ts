import { devOidcClient } from "./dev-oidc-provider.js";
import { serviceEntry } from "./repo-paths.js";
import { type Echo, type ServiceProcess, startService } from "./service-process.js";
import { simulatedGithubApp, simulatorPaymentEnv } from "./simulator-client.js";

type ConsolePorts = Partial<Record<"console" | "consoleAdmin" | "oidcProvider", number>>;

export interface ConsoleStackOptions {
  host: string;
  ports: ConsolePorts;
  // The console's environment so far: the stack's common settings, Redis, ledger and router.
  env: NodeJS.ProcessEnv;
  // Absent on real vendors: the console then signs in and pays only as `env` configures it.
  simulatorUrl?: string;
  // How many consoles: the first on the given ports, the others on free ones.
  replicas: number;
  echo?: Echo;
  track: (service: Promise<ServiceProcess>) => Promise<ServiceProcess>;
}

/**
 * The console: in development with the local OpenID provider first (its issuer goes into the
 * console's settings), signing in with the simulator's GitHub and that provider and paying
 * through the simulator's WeChat Pay and Alipay; on real vendors with the operator's settings only.
 */
export async function startConsole(options: ConsoleStackOptions) {
  const { host, ports, simulatorUrl } = options;
  const development = simulatorUrl ? await developmentSignIn({ ...options, simulatorUrl }) : undefined;
  const consoles = await Promise.all(
    Array.from({ length: options.replicas }, (_, replica) =>
      options.track(
        startService(
          "console",
          serviceEntry.console,
          {
            ...development?.env,
            ...options.env,
            CONSOLE_HOST: host,
            CONSOLE_PORT: String(replica === 0 ? (ports.console ?? 0) : 0),
            CONSOLE_ADMIN_PORT: String(replica === 0 ? (ports.consoleAdmin ?? 0) : 0),
          },
          { echo: options.echo, replica },
        ),
      ),
    ),
  );
  return {
    replicas: { console: consoles, ...(development && { oidcProvider: [development.oidcProvider] }) },
    consoleUrl: `http://${host}:${consoles[0]!.ports.http}`,
    oidcIssuer: development?.oidcIssuer,
  };
}

/** The local OpenID provider, and the console settings that sign in and pay through it and the simulator. */
async function developmentSignIn(options: ConsoleStackOptions & { simulatorUrl: string }) {
  const { host, ports, simulatorUrl } = options;
  const consolePort = ports.console ?? 0;
  const oidcProvider = await options.track(
    startService(
      "oidc-provider",
      serviceEntry.devOidcProvider,
      {
        GATEWAY_ENV: options.env.GATEWAY_ENV,
        DEV_OIDC_HOST: host,
        DEV_OIDC_PORT: String(ports.oidcProvider ?? 0),
        // A loopback redirect URI of a native client matches on any port (the console's may be picked at start).
        DEV_OIDC_REDIRECT_URI: `http://${host}${consolePort ? `:${consolePort}` : ""}/api/auth/oidc/callback`,
      },
      { echo: options.echo },
    ),
  );
  const oidcIssuer = `http://${host}:${oidcProvider.ports.http}`;
  const env = {
    ...(await simulatorPaymentEnv(simulatorUrl)),
    GITHUB_CLIENT_ID: simulatedGithubApp.clientId,
    GITHUB_CLIENT_SECRET: simulatedGithubApp.clientSecret,
    CONSOLE_GITHUB_AUTHORIZE_URL: `${simulatorUrl}/login/oauth/authorize`,
    CONSOLE_GITHUB_TOKEN_URL: `${simulatorUrl}/login/oauth/access_token`,
    CONSOLE_GITHUB_API_URL: `${simulatorUrl}/github/api`,
    OIDC_ISSUER: oidcIssuer,
    OIDC_CLIENT_ID: devOidcClient.clientId,
    OIDC_CLIENT_SECRET: devOidcClient.clientSecret,
    OIDC_DISPLAY_NAME: "Local OpenID provider",
  };
  return { oidcProvider, oidcIssuer, env };
}
