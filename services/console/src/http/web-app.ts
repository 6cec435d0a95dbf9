import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { type Router } from "express";

const notBuilt = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console</title></head>
<body><main><h1>The console's web app is not built</h1>
<p>Build it with <code>pnpm --filter @gateway/console-web build</code> and reload.
The API under <code>/api</code> works meanwhile.</p></main></body></html>`;

/**
 * The SPA: its built files, and index.html for every other path that is no API call, so the
 * app's own routes (/keys, /settings…) load on a reload. Hashed assets are cached for a year.
 */
export function webApp(directory: string): Router {
  const router = express.Router();
  router.use(
    express.static(directory, {
      index: false,
      setHeaders: (response, path) => {
        const hashed = path.includes(`${join(directory, "assets")}`);
        response.setHeader("cache-control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
      },
    }),
  );
  router.get(/^(?!\/api(?:\/|$)).*/, (_request, response) => {
    const index = join(directory, "index.html");
    response.setHeader("cache-control", "no-cache");
    if (existsSync(index)) response.sendFile(index);
    else response.status(200).type("html").send(notBuilt);
  });
  return router;
}
