import { describe, expect, it } from "vitest";
import {
  heldStreams,
  type LlmPacedResult,
  llmPacedReadmeRow,
  llmPacedTable,
  modelPace,
  type PacedLevel,
  perUnit,
  summariseSide,
  tokensRelayed,
  wavesFor,
} from "./llm-paced.js";
import { FrameCounter, type PacedStreamsRun, pacedRequestBody } from "./paced-streams.js";

const pace = { firstTokenMs: 300, tokenMs: 20, tokens: 3 };

function level(streams: number, addedP99: number, dropped = 0): PacedLevel {
  const side = (target: string, p99: number, lost: number) => ({
    target,
    started: streams * 2,
    dropped: lost,
    firstTokenOverMs: { p50: 1, p99 },
    peakOpen: streams,
    clientCores: 0.1,
    failures: lost > 0 ? ["status 502"] : [],
  });
  return {
    streams,
    waves: 2,
    loadAverage: 1.5,
    direct: side("direct", 5, 0),
    gateway: side("gateway", 5 + addedP99, dropped),
    addedMs: { p50: 0, p99: addedP99 },
    cpuUsPerToken: { edge: 12.34, router: 20 },
    rssKbPerStream: { edge: 40, router: 55.55 },
    waitingShare: { edge: 0.05, router: 0.5 },
  };
}

describe("the LLM-paced sweep", () => {
  it("holds up to the last level before the first one that added too much or dropped a stream", () => {
    expect(heldStreams([level(100, 10), level(200, 49.9), level(400, 50), level(800, 1)])).toBe(200);
    expect(heldStreams([level(100, 10), level(200, 10, 1)])).toBe(100);
    expect(heldStreams([level(100, 80)])).toBeUndefined();
  });

  it("asks small levels for more answers per slot, so each level measures enough first tokens", () => {
    expect(wavesFor(50, 200)).toBe(5);
    expect(wavesFor(150, 200)).toBe(3);
    expect(wavesFor(200, 200)).toBe(2);
    expect(wavesFor(1_600, 200)).toBe(2);
  });

  it("times the first token of the streams started at full concurrency, over the model's own delay", () => {
    const run: PacedStreamsRun = {
      outcomes: [
        { wave: 0, firstFrameMs: 900, frames: 5, completed: true },
        { wave: 1, firstFrameMs: 310, frames: 5, completed: true },
        { wave: 1, firstFrameMs: 302, frames: 5, completed: true },
        { wave: 1, firstFrameMs: undefined, frames: 0, completed: false, failure: "status 429" },
      ],
      peakOpen: 2,
      seconds: 1,
    };
    expect(summariseSide("gateway", run, pace, 0.123)).toEqual({
      target: "gateway",
      started: 4,
      dropped: 1,
      firstTokenOverMs: { p50: 2, p99: 10 },
      peakOpen: 2,
      clientCores: 0.12,
      failures: ["status 429"],
    });
  });

  it("counts a whole answer per completed stream and the frames after the role chunk of a dropped one", () => {
    const run: PacedStreamsRun = {
      outcomes: [
        { wave: 0, firstFrameMs: 300, frames: 6, completed: true },
        { wave: 1, firstFrameMs: 300, frames: 2, completed: false },
        { wave: 1, firstFrameMs: undefined, frames: 0, completed: false },
      ],
      peakOpen: 3,
      seconds: 1,
    };
    expect(tokensRelayed(run, pace)).toBe(4);
    expect(perUnit({ edge: 10, router: 5 }, 4)).toEqual({ edge: 2.5, router: 1.25 });
  });

  it("prints a row per level tried and says whether the issue's target was met", () => {
    const result: LlmPacedResult = {
      pace: modelPace,
      minSamples: 200,
      levels: [level(1_000, 20), level(1_600, 70)],
      held: 1_000,
    };
    const table = llmPacedTable(result);
    expect(table[0]).toContain("first token after 300 ms, 50 tokens/s, 300 tokens");
    expect(table[2]).toBe(
      "| 1,000 | 1.00 / 5.00 | 1.00 / 25.00 | +20.00 ms | 0 / 0 of 2,000 | 12.3 / 20.0 | 40.0 / 55.5 | 5 % / 50 % | 0.10 / 0.10 | 1.50 | yes |",
    );
    expect(table[3]).toContain("| 1,600 |");
    expect(table[3]).toMatch(/\| no \|$/);
    expect(table.at(-1)).toBe(
      "LLM-paced load: held 1,000 concurrent streams; target ≥ 1,000 with the added first-token p99 < 50 ms and none dropped: met.",
    );
    expect(llmPacedReadmeRow(result)).toContain("| 1,000 |");
  });

  it("says no level held when the smallest already failed, and why its streams dropped", () => {
    const table = llmPacedTable({ pace: modelPace, minSamples: 200, levels: [level(100, 10, 3)], held: undefined });
    expect(table.at(-2)).toMatch(/^LLM-paced load: no level held; .*: not met\.$/);
    expect(table.at(-1)).toBe("- gateway at 100 streams: 3 dropped (status 502).");
  });
});

describe("a paced stream", () => {
  it("asks the simulator for the model's pace in the message", () => {
    const body = JSON.parse(pacedRequestBody({ name: "t", url: "http://x", headers: {} }, modelPace));
    expect(body.stream).toBe(true);
    expect(body.messages[0].content).toContain("[sim:delay_ms=300] [sim:token_latency_ms=20] [sim:tokens=300]");
  });

  it("counts frames split across chunks once each and sees the stream's [DONE]", () => {
    const counter = new FrameCounter();
    for (const chunk of ['data: {"a":1}\n\nda', 'ta: {"b":2}\n\n', "data: [DO", "NE]\n\n"]) counter.push(chunk);
    expect(counter.frames).toBe(3);
    expect(counter.endedDone()).toBe(true);
  });

  it("does not take a stream cut before [DONE] for a finished one, and keeps its last frame", () => {
    const counter = new FrameCounter();
    counter.push('data: {"a":1}\n\ndata: {"error":');
    counter.push('{"message":"broken"}}\n\n');
    expect(counter.endedDone()).toBe(false);
    expect(counter.lastFrame()).toBe('data: {"error":{"message":"broken"}}');
  });
});
