import { startDevOidcProvider } from "./dev-oidc-provider.js";

// The development OpenID provider as its own process (pnpm start runs it beside the console).
const log = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

try {
  const provider = await startDevOidcProvider({
    host: process.env.DEV_OIDC_HOST || "127.0.0.1",
    port: Number(process.env.DEV_OIDC_PORT ?? 0),
    redirectUri: process.env.DEV_OIDC_REDIRECT_URI || "http://127.0.0.1/api/auth/oidc/callback",
  });
  log({ level: 30, service: "oidc-provider", msg: "ready", ports: { http: provider.port }, issuer: provider.issuer });
  const stop = () => void provider.close().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} catch (error) {
  log({ level: 60, service: "oidc-provider", msg: "failed to start", err: String(error) });
  process.exit(1);
}
