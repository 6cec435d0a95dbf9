// The stack run from the images by compose.yaml, on the host's network, against this run's own
// database, Redis and NATS (the test servers, as every other suite uses): `pnpm test:images`
// builds the images first. Skips, saying why, where no Docker engine answers.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  createTemporaryDatabase,
  deleteStream,
  eventually,
  simulatedGithubApp,
  simulatorPaymentEnv,
  type TemporaryDatabase,
  testServers,
  uniqueNamespace,
} from "@gateway/stack";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, signInWithGithub } from "../../../services/console/test/browser.js";
import { docker, dockerEnvironment, engineMissing, imageExists } from "../src/docker-engine.js";
import { ComposeProject, freePorts } from "./compose-stack.js";

const missing = engineMissing();
if (missing) console.log(`images smoke suite skipped: no Docker engine reachable (${missing})`);
const tag = process.env.GATEWAY_IMAGE_TAG ?? "dev";
const gatewayServices = ["ledger", "router", "video", "edge", "console"];
const jobs = ["migrate-ledger", "migrate-video", "migrate-router", "usage-stream"];

let project: ComposeProject;
let database: TemporaryDatabase;
let namespace: string;
let baseUrl: string;
let consoleUrl: string;
let simulatorUrl: string;
let apiKey: string;

// Each service's terminationGracePeriodSeconds (compose.yaml's stop_grace_period).
const graceSeconds: Record<string, number> = { edge: 120, router: 120, console: 40, video: 60, ledger: 60 };

/** `docker stop` of one service's container, as its grace period allows: how long it took and its exit code. */
function stopWithinGrace(service: string): Promise<{ service: string; seconds: number; exitCode: string }> {
  const container = project.containerOf(service);
  const started = Date.now();
  return new Promise((resolve) => {
    execFile("docker", ["stop", "--time", String(graceSeconds[service]), container], { env: dockerEnvironment() }, () =>
      resolve({
        service,
        seconds: (Date.now() - started) / 1000,
        exitCode: docker(["inspect", "--format", "{{.State.ExitCode}}", container]).stdout.trim(),
      }),
    );
  });
}

describe.skipIf(missing !== undefined)("the images, run by compose.yaml", () => {
  beforeAll(async () => {
    for (const service of ["edge", "router", "ledger", "video", "console", "simulator"]) {
      if (!imageExists(`gateway/${service}:${tag}`))
        throw new Error(`gateway/${service}:${tag} is not built: pnpm images`);
    }
    database = await createTemporaryDatabase();
    namespace = uniqueNamespace("img");
    const [
      edge,
      edgeAdmin,
      router,
      routerAdmin,
      ledger,
      ledgerAdmin,
      video,
      videoAdmin,
      console,
      consoleAdmin,
      simulator,
    ] = (await freePorts(11)).map(String) as string[] & { length: 11 };
    baseUrl = `http://127.0.0.1:${edge}/v1`;
    consoleUrl = `http://127.0.0.1:${console}`;
    simulatorUrl = `http://127.0.0.1:${simulator}`;
    const secret = () => randomBytes(32).toString("hex");
    const variables = {
      GATEWAY_IMAGE_TAG: tag,
      GATEWAY_NAMESPACE: namespace,
      GATEWAY_ENV: "development",
      LOG_LEVEL: "warn",
      DATABASE_URL: database.url,
      POSTGRES_PASSWORD: "unused: the test servers' Postgres",
      REDIS_URL: testServers.redisUrl,
      NATS_URL: testServers.natsUrl,
      GATEWAY_SERVICE_TOKEN_SECRET: secret(),
      GATEWAY_ADMIN_TOKEN: secret(),
      CATALOGUE_ENCRYPTION_KEY: secret(),
      FILE_URL_SIGNING_KEY: secret(),
      VIDEO_URL_SIGNING_KEY: secret(),
      VIDEO_CALLBACK_SIGNING_KEY: secret(),
      CONSOLE_PUBLIC_URL: consoleUrl,
      GITHUB_CLIENT_ID: simulatedGithubApp.clientId,
      GITHUB_CLIENT_SECRET: simulatedGithubApp.clientSecret,
      GATEWAY_PORT: edge,
      EDGE_ADMIN_PORT: edgeAdmin,
      ROUTER_PORT: router,
      ROUTER_ADMIN_PORT: routerAdmin,
      LEDGER_GRPC_PORT: ledger,
      LEDGER_ADMIN_PORT: ledgerAdmin,
      VIDEO_GRPC_PORT: video,
      VIDEO_ADMIN_PORT: videoAdmin,
      CONSOLE_PORT: console,
      CONSOLE_ADMIN_PORT: consoleAdmin,
      SIMULATOR_PORT: simulator,
    };
    // A video renders in a tenth of its length, and the workers look every 100 ms.
    const quickVideos = {
      simulator: { environment: { SIMULATOR_VIDEO_SECONDS_PER_SECOND: "0.1" } },
      video: { environment: { VIDEO_WORKER_TICK_MS: "100", VIDEO_POLL_INITIAL_MS: "100", VIDEO_POLL_MAX_MS: "300" } },
    };
    project = new ComposeProject(variables, quickVideos);
    // The simulator first: the console's payment settings are its merchants' credentials.
    project.runOrThrow(["up", "--detach", "--no-deps", "simulator"]);
    await project.healthy(["simulator"]);
    project.setOverride({
      ...quickVideos,
      // Their start and stop lines (with times) in a failed drain's message.
      edge: { environment: { LOG_LEVEL: "info" } },
      router: { environment: { LOG_LEVEL: "info" } },
      console: {
        environment: {
          ...(await simulatorPaymentEnv(simulatorUrl)),
          CONSOLE_GITHUB_AUTHORIZE_URL: `${simulatorUrl}/login/oauth/authorize`,
          CONSOLE_GITHUB_TOKEN_URL: `${simulatorUrl}/login/oauth/access_token`,
          CONSOLE_GITHUB_API_URL: `${simulatorUrl}/github/api`,
        },
      },
    });
    for (const job of jobs) project.runOrThrow(["run", "--rm", "--no-deps", job]);
    project.runOrThrow(["up", "--detach", "--no-deps", ...gatewayServices]);
    await project.healthy(gatewayServices);
    const created = project.runOrThrow([
      "exec",
      "-T",
      "-e",
      `GATEWAY_ADMIN_URL=http://127.0.0.1:${ledgerAdmin}`,
      "-e",
      `GATEWAY_CATALOGUE_URL=http://127.0.0.1:${routerAdmin}/admin`,
      "ledger",
      "node",
      "dist/cli/main.js",
      "account",
      "create",
      "--name",
      "smoke",
      "--group",
      "premium",
      "--credit",
      "50",
      "--json",
    ]);
    apiKey = (JSON.parse(created) as { api_key: string }).api_key;
  }, 600_000);

  afterAll(async () => {
    project?.down();
    await database?.drop();
    if (namespace) await deleteStream(namespace);
  }, 300_000);

  const client = () => new OpenAI({ baseURL: baseUrl, apiKey, maxRetries: 0 });

  it("answers the openai SDK's chat, unary and streamed", async () => {
    const answer = await client().chat.completions.create({
      model: "qwen-plus",
      messages: [{ role: "user", content: "Hello" }],
    });
    expect(answer.choices[0]?.message.content).toBeTruthy();
    const stream = await client().chat.completions.create({
      model: "qwen-plus",
      messages: [{ role: "user", content: "Hello [sim:tokens=12]" }],
      stream: true,
    });
    const parts: string[] = [];
    for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? "");
    expect(parts.join("").length).toBeGreaterThan(0);
  });

  it("reads a stored response back", async () => {
    const created = await client().responses.create({ model: "grok-4", input: "Remember me" });
    const read = await client().responses.retrieve(created.id);
    expect(read.id).toBe(created.id);
    expect(read.output_text).toBe(created.output_text);
  });

  it("runs a video task to completion and serves the video", async () => {
    const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
    const submitted = await fetch(`${baseUrl}/videos/generations`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "sora-2", prompt: "a lighthouse at dusk", async: true }),
    });
    expect(submitted.status).toBeLessThan(300);
    const { id } = (await submitted.json()) as { id: string };
    const done = await eventually(
      async () => {
        const task = (await (await fetch(`${baseUrl}/videos/generations/${id}`, { headers })).json()) as {
          status: string;
          video_url?: string;
        };
        return task.status === "completed" || task.status === "failed" ? task : undefined;
      },
      60_000,
      250,
    );
    expect(done?.status).toBe("completed");
    const video = await fetch(done?.video_url ?? "");
    expect(video.status).toBe(200);
    expect(video.headers.get("content-type")).toBe("video/mp4");
  });

  it("tops up an account in the console through the simulated WeChat Pay", async () => {
    const buyer = new Browser();
    await signInWithGithub(buyer, consoleUrl, `smoke-${namespace}`);
    const balance = async () => (await buyer.api(`${consoleUrl}/api/session`)).body.account.balanceMicros as number;
    const before = await balance();
    const created = await buyer.api(`${consoleUrl}/api/topups`, "POST", { provider: "wechat", amountFen: 100 });
    expect(created.status).toBe(201);
    const { order, payment } = created.body as { order: { outTradeNo: string }; payment: { qrCode: string } };
    const paid = await fetch(payment.qrCode, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(paid.status).toBe(200);
    const state = await eventually(async () => {
      const current = (await buyer.api(`${consoleUrl}/api/topups/${order.outTradeNo}`)).body.order.state as string;
      return current === "created" ? undefined : current;
    }, 30_000);
    expect(state).toBe("paid");
    expect(await balance()).toBe(before + 1_000_000);
  });

  it("runs every process as 1000:1000 under tini, on a read-only root with writable volumes", () => {
    for (const service of [...gatewayServices, "simulator"]) {
      const container = project.containerOf(service);
      const probe = docker([
        "exec",
        container,
        "sh",
        "-c",
        'echo "$(id -u):$(id -g) $(cat /proc/1/comm)"; touch /app/x 2>&1 || true; touch /tmp/x && echo tmp-writable',
      ]);
      const [identity, refused, tmp] = probe.stdout.trim().split("\n");
      expect({ service, identity }).toEqual({ service, identity: "1000:1000 tini" });
      expect(refused).toContain("Read-only file system");
      expect(tmp).toBe("tmp-writable");
    }
    const spool = docker([
      "exec",
      project.containerOf("router"),
      "sh",
      "-c",
      "touch /var/lib/gateway/spool/x && echo ok",
    ]);
    expect(spool.stdout.trim()).toBe("ok");
  });

  it("runs the migrations again without error", () => {
    for (const job of ["migrate-ledger", "migrate-video", "migrate-router"]) {
      expect(project.run(["run", "--rm", "--no-deps", job]).status).toBe(0);
    }
  });

  it("drains on docker stop: streams in flight finish, each service exits 0 within its grace period", async () => {
    // 60 tokens 200 ms apart: each stream outlasts the 5 s readiness delay (SHUTDOWN_READINESS_DELAY_MS),
    // so edge and router are refusing new requests while it still runs.
    const started: Promise<void>[] = [];
    const streams = Array.from({ length: 4 }, (_, index) => {
      let firstChunk: () => void = () => undefined;
      started[index] = new Promise((resolve) => {
        firstChunk = resolve;
      });
      return (async () => {
        try {
          const stream = await client().chat.completions.create({
            model: "qwen-plus",
            messages: [{ role: "user", content: "Slowly [sim:tokens=60][sim:token_latency_ms=200]" }],
            stream: true,
          });
          let text = "";
          let finish: string | null | undefined;
          for await (const chunk of stream) {
            text += chunk.choices[0]?.delta.content ?? "";
            finish = chunk.choices[0]?.finish_reason ?? finish;
            firstChunk();
          }
          // A stream cut short can end without an error: only its finish reason shows it ran to the end.
          return finish === "stop" ? text : `failed: ended with finish reason ${finish} after "${text}"`;
        } catch (error) {
          return `failed: ${String(error)}`;
        } finally {
          firstChunk();
        }
      })();
    });
    // Every stream is under way (its first chunk arrived) before the stop, however long a busy machine takes to start them.
    await Promise.all(started);
    // Edge and router while the streams run through them; the others once the streams are done.
    const frontStops = Promise.all(["edge", "router"].map(stopWithinGrace));
    const texts = await Promise.all(streams);
    const logs = () =>
      ["edge", "router"]
        .map((service) => docker(["logs", "--tail", "30", project.containerOf(service)]))
        .map((log) => log.stdout + log.stderr);
    if (texts.some((text) => text === "" || text.startsWith("failed"))) expect(texts, logs().join("\n")).toEqual([]);
    const stops = [...(await frontStops), ...(await Promise.all(["console", "video", "ledger"].map(stopWithinGrace)))];
    for (const stop of stops) {
      expect(stop).toMatchObject({ exitCode: "0" });
      expect(stop.seconds).toBeLessThan(graceSeconds[stop.service] ?? 0);
    }
  }, 200_000);
});
