import { eventually, simulatorRequests, startTestStack, type TestStack } from "@gateway/stack";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billedRows, multiplierOf, unitCost, wav } from "./media-fixtures.js";

let stack: TestStack;
let client: OpenAI;
let apiKey: string;
let multiplier: number;

const billed = (requestId: string) => eventually(async () => (await billedRows(stack.databaseUrl, requestId))[0]);
const whisperPricePerSecond = 720;

async function refused(call: Promise<unknown>, param: string, status = 400) {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  const apiError = error as InstanceType<typeof OpenAI.APIError>;
  expect({ status: apiError.status, param: apiError.param }).toEqual({ status, param });
  return apiError;
}

const threeSeconds = () => toFile(wav(3), "speech.wav", { type: "audio/wav" });

beforeAll(async () => {
  stack = await startTestStack();
  const account = await stack.createAccount({ group: "premium" });
  apiKey = account.api_key;
  client = new OpenAI({ baseURL: stack.baseUrl, apiKey, maxRetries: 0 });
  multiplier = await multiplierOf(stack.databaseUrl, "premium");
});
afterAll(async () => {
  await stack?.teardown();
});

describe("POST /v1/audio/transcriptions", () => {
  it("answers json and bills the vendor's reported seconds", async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ model: "whisper-1", file: await threeSeconds(), language: "en" })
      .withResponse();
    expect(data.text).toMatch(/^[A-Z][a-z ]+\./);
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({
      endpoint: "/v1/audio/transcriptions",
      model: "whisper-1",
      billed_units: 3,
      unit: "audio_second",
      estimated: false,
    });
    expect(Number(row.cost_micros)).toBe(unitCost(3, whisperPricePerSecond, multiplier));
  });

  it("transcribes with gpt-transcribe, billed per second at its own price", async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ model: "gpt-transcribe", file: await threeSeconds(), response_format: "json" })
      .withResponse();
    expect(data.text).toMatch(/^[A-Z][a-z ]+\./);
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ model: "gpt-transcribe", billed_units: 3, unit: "audio_second" });
    // $0.0045 a minute: 540 micro-yuan a second.
    expect(Number(row.cost_micros)).toBe(unitCost(3, 540, multiplier));
  });

  it("answers verbose_json with words and segments when asked for both granularities", async () => {
    const verbose = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await toFile(wav(12), "long.wav"),
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
      temperature: 0.2,
    });
    expect(verbose).toMatchObject({ task: "transcribe", language: "english", duration: 12 });
    expect(verbose.segments).toHaveLength(3);
    expect(verbose.words!.length).toBeGreaterThan(10);
    expect(verbose.words!.at(-1)!.end).toBeCloseTo(12, 1);
    const upstream = (await simulatorRequests(stack.simulatorUrl)).filter(
      (request) => request.path === "/v1/audio/transcriptions",
    );
    expect(upstream.at(-1)!.body).toMatchObject({
      model: "whisper-1",
      response_format: "verbose_json",
      temperature: "0.2",
      "timestamp_granularities[]": ["word", "segment"],
      file: [{ filename: "long.wav", bytes: wav(12).length }],
    });
  });

  it("returns text, srt and vtt as text/plain bodies exactly as the vendor wrote them", async () => {
    const text = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await threeSeconds(),
      response_format: "text",
    });
    expect(typeof text).toBe("string");
    expect(text).toMatch(/^[A-Z].*\.\n$/);
    const srt = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await threeSeconds(),
      response_format: "srt",
    });
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:03,000\n[A-Z].*\.\n\n$/);
    const vtt = await client.audio.transcriptions.create({
      model: "whisper-1",
      file: await threeSeconds(),
      response_format: "vtt",
    });
    expect(vtt).toMatch(/^WEBVTT\n\n00:00:00\.000 --> 00:00:03\.000\n/);
    // The raw HTTP answer: plain text, same bytes.
    const form = new FormData();
    form.append("model", "whisper-1");
    form.append("response_format", "srt");
    form.append("file", new Blob([wav(3)]), "speech.wav");
    const raw = await fetch(`${stack.baseUrl}/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}` },
      body: form,
    });
    expect(raw.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(await raw.text()).toBe(srt);
  });

  it("estimates the length of formats that state none from the file, and marks it estimated", async () => {
    // An MPEG audio file of 40,000 bytes: 2.5 s at the 16,000 bytes a second estimate, billed as 3.
    const mp3 = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(40_000 - 3, 7)]);
    const { response } = await client.audio.transcriptions
      .create({ model: "whisper-1", file: await toFile(mp3, "song.mp3"), response_format: "text" })
      .withResponse();
    const row = await billed(response.headers.get("x-request-id")!);
    expect(row).toMatchObject({ billed_units: 3, unit: "audio_second", estimated: true });
  });

  it("refuses bad files and parameters with a 400 naming the parameter, before the vendor", async () => {
    const before = (await simulatorRequests(stack.simulatorUrl)).length;
    const notAudio = await refused(
      client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(Buffer.from("hello"), "notes.txt") }),
      "file",
    );
    expect(notAudio.message).toContain("Supported formats");
    await refused(
      client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(Buffer.alloc(2000, 1), "fake.wav") }),
      "file",
    );
    // 60 s of samples under a second `fmt ` chunk stating 60 times the rate: decoders disagree on its length.
    const secondFormat = Buffer.from(wav(60).subarray(12, 36));
    secondFormat.writeUInt32LE(480_000, 12);
    const twoFormats = Buffer.concat([wav(60).subarray(0, 36), secondFormat, wav(60).subarray(36)]);
    await refused(
      client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(twoFormats, "two-formats.wav") }),
      "file",
    );
    await refused(
      client.audio.transcriptions.create({ model: "whisper-1", file: await threeSeconds(), temperature: 1.5 }),
      "temperature",
    );
    await refused(
      client.audio.transcriptions.create({
        model: "whisper-1",
        file: await threeSeconds(),
        response_format: "json",
        timestamp_granularities: ["word"],
      }),
      "timestamp_granularities",
    );
    await refused(
      client.audio.transcriptions.create({
        model: "gpt-4o-transcribe",
        file: await threeSeconds(),
        response_format: "srt",
      }),
      "response_format",
    );
    await refused(
      client.audio.transcriptions.create({ model: "imagen-4.0-fast-generate-001", file: await threeSeconds() }),
      "model",
    );
    expect((await simulatorRequests(stack.simulatorUrl)).length).toBe(before);
  });

  it("answers 413 for a file over 25 MB", async () => {
    const big = Buffer.concat([wav(1), Buffer.alloc(26 * 1024 * 1024)]);
    const error = await refused(
      client.audio.transcriptions.create({ model: "whisper-1", file: await toFile(big, "big.wav") }),
      "file",
      413,
    );
    expect(error.message).toContain("25 MB");
  });

  it("bills gpt-4o-transcribe per second from the file when the vendor reports tokens only", async () => {
    const { data, response } = await client.audio.transcriptions
      .create({ model: "gpt-4o-transcribe", file: await toFile(wav(2), "short.wav") })
      .withResponse();
    expect(data.text.length).toBeGreaterThan(0);
    const row = await billed(response.headers.get("x-request-id")!);
    expect(data.usage).toMatchObject({ type: "tokens" });
    // The WAV header states the length exactly, so it is no estimate.
    expect(row).toMatchObject({ model: "gpt-4o-transcribe", billed_units: 2, unit: "audio_second", estimated: false });
  });
});
