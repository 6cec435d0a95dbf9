import { mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { repoRoot, type StackService, startTestStack, testServers } from "@gateway/stack";
import { benchCatalogue } from "./bench-catalogue.js";
import { type IngestResult, measureLedgerIngest } from "./ledger-ingest.js";
import { writeJson } from "./report.js";
import { type MemoryResult, startRssSampler } from "./rss-sampler.js";
import { waitForIdle } from "./settle.js";
import { measureVideoTasks, type VideoResult } from "./video-tasks.js";

// `pnpm bench:ledger-video`: only the ledger ingest and video task rows of `pnpm bench`, with
// the peak RSS of ledger and video while they run. With --baseline it alternates rounds
// between this build and an earlier one, so a change is compared on the same noisy machine.

const usage = `usage: pnpm bench:ledger-video [--quick] [--only ledger|video] [--rounds N] [--baseline DIR] [--cpu-prof DIR] [--node-options="..."]
  --baseline DIR      also run ledger and video from services/<service>/DIR/main.js (a copy of an earlier dist)
  --cpu-prof DIR      write a CPU profile of ledger and video to DIR/<variant>-<round>-<service>.cpuprofile
  --node-options=...  more NODE_OPTIONS for ledger and video (e.g. --node-options="--max-old-space-size=64")`;
const resultsPath = `${repoRoot}tools/bench/results/ledger-video.json`;

interface Round {
  variant: string;
  ingest?: IngestResult;
  video?: VideoResult;
  memory: MemoryResult[];
}

interface Variant {
  name: string;
  entries: Partial<Record<StackService, string>>;
}

function parseFlags(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      rounds: { type: "string", default: "1" },
      baseline: { type: "string" },
      "cpu-prof": { type: "string" },
      "node-options": { type: "string" },
    },
  });
  const rounds = Number(values.rounds);
  if (values.only !== undefined && values.only !== "ledger" && values.only !== "video") {
    throw new Error(`--only takes ledger or video\n${usage}`);
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer\n${usage}`);
  const variants: Variant[] = [{ name: "current", entries: {} }];
  if (values.baseline) {
    const entry = (service: string) => `${repoRoot}services/${service}/${values.baseline}/main.js`;
    variants.unshift({ name: "baseline", entries: { ledger: entry("ledger"), video: entry("video") } });
  }
  const profileDirectory = values["cpu-prof"] && resolve(values["cpu-prof"]);
  if (profileDirectory) mkdirSync(profileDirectory, { recursive: true });
  const serviceEnv = (run: string) => {
    const env = (service: string) => ({
      NODE_OPTIONS: [
        profileDirectory && `--import=${import.meta.resolve("./cpu-profile-preload.js")}`,
        values["node-options"],
      ]
        .filter(Boolean)
        .join(" "),
      ...(profileDirectory && { BENCH_CPU_PROFILE: join(profileDirectory, `${run}-${service}.cpuprofile`) }),
    });
    return { ledger: env("ledger"), video: env("video") };
  };
  return { quick: values.quick, only: values.only, rounds, variants, serviceEnv };
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

async function measureRound(
  variant: Variant,
  roundIndex: number,
  flags: ReturnType<typeof parseFlags>,
  catalogue: string,
): Promise<Round> {
  progress(`${variant.name}: starting the stack`);
  const stack = await startTestStack({
    env: { CATALOGUE_PATH: catalogue },
    entries: variant.entries,
    serviceEnv: flags.serviceEnv(`${variant.name}-${roundIndex}`),
    echo: "problems",
  });
  try {
    const pids = Object.values(stack.processes).flatMap(({ child }) => (child.pid === undefined ? [] : [child.pid]));
    const settle = async (step: string) => {
      progress(`${variant.name}: ${step}`);
      if (!(await waitForIdle(pids))) progress("services still busy after 30 s; measuring anyway");
    };
    const { ledger, video } = stack.processes;
    const sampler = startRssSampler({ ledger: ledger.child.pid!, video: video.child.pid! });
    const round: Round = { variant: variant.name, memory: [] };
    if (flags.only !== "video") {
      const account = await stack.createAccount({ creditYuan: 1_000_000 });
      await settle("ledger ingest");
      round.ingest = await measureLedgerIngest(
        {
          natsUrl: testServers.natsUrl,
          namespace: stack.namespace,
          account: { accountId: account.account_id, keyId: account.key_id },
          ledgerPid: ledger.child.pid!,
        },
        flags.quick ? 2_000 : 20_000,
      );
    }
    if (flags.only !== "ledger") {
      const { api_key: apiKey } = await stack.createAccount({ group: "premium", creditYuan: 1_000_000 });
      await settle("video submit latency");
      const options = flags.quick ? { warmUp: 5, submits: 30, tasks: 40 } : { warmUp: 20, submits: 200, tasks: 200 };
      round.video = await measureVideoTasks(stack, apiKey, options, settle);
    }
    round.memory = sampler.stop();
    return round;
  } finally {
    await stack.teardown();
  }
}

function render(rounds: Round[]): string {
  const rss = (round: Round, process: string) => round.memory.find((m) => m.process === process)?.peakRssMb ?? 0;
  return [
    "| variant | ledger events/s while published (publish s / total s) | ledger events/s from a backlog | video submit p50 / p99, renders in progress / finishing at once (ms) | video tasks/s | peak RSS ledger / video (MB) |",
    "|---|---:|---:|---:|---:|---:|",
    ...rounds.map(
      (round) =>
        `| ${round.variant} | ${round.ingest ? `${round.ingest.eventsPerSecond} (${round.ingest.publishSeconds} / ${round.ingest.seconds})` : "—"} | ${round.ingest?.backlog.eventsPerSecond ?? "—"} | ${round.video ? `${round.video.submitMs.p50} / ${round.video.submitMs.p99}; ${round.video.submitMsFinishingAtOnce.p50} / ${round.video.submitMsFinishingAtOnce.p99}` : "—"} | ${round.video ? `${round.video.tasksPerSecond} (${round.video.failedSubmits} refused)` : "—"} | ${rss(round, "ledger")} / ${rss(round, "video")} |`,
    ),
  ].join("\n");
}

async function main(): Promise<number> {
  const flags = parseFlags(process.argv.slice(2));
  const catalogue = benchCatalogue("removed");
  try {
    const rounds: Round[] = [];
    for (let round = 0; round < flags.rounds; round++) {
      for (const variant of flags.variants) rounds.push(await measureRound(variant, round, flags, catalogue));
    }
    console.log(render(rounds));
    writeJson(resultsPath, rounds);
    progress(`wrote ${resultsPath}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    return 1;
  } finally {
    rmSync(dirname(catalogue), { recursive: true, force: true });
  }
}

// Exit explicitly: a client library's lingering handle must not keep a finished run alive.
process.exit(await main());
