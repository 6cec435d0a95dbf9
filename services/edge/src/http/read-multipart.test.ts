import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import type { GatewayError } from "@gateway/platform";
import type { Request } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MultipartLimits, readMultipart } from "./read-multipart.js";

const limits: MultipartLimits = {
  fileFields: { file: 1, "image[]": 2 },
  maxFileBytes: 1000,
  maxTotalFileBytes: 1500,
  maxFields: 5,
  maxFieldBytes: 100,
};

let server: Server;
let url: string;
// Settles when the server has answered or given up on a request, so a test knows its outcome.
let answered: Promise<void>;
let markAnswered: () => void;

// Answers with what readMultipart made of the body, or with the error it raised.
beforeAll(async () => {
  server = createServer((request, response) => {
    response.on("close", () => markAnswered?.());
    readMultipart(request as Request, limits).then(
      (form) =>
        response.end(
          JSON.stringify({
            fields: form.fields,
            files: form.files.map((file) => [file.field, file.filename, file.data.length]),
          }),
        ),
      (error: GatewayError) => {
        response.statusCode = error.httpStatus;
        response.end(JSON.stringify({ param: error.param, message: error.message }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function post(form: FormData | string) {
  const response = await fetch(url, { method: "POST", body: form });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const boundary = "gateway-test-boundary";
// A multipart body that stops inside the `name` file part, before its closing boundary.
const cutInsideFile = (name: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm\r\n` +
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="a.wav"\r\n` +
  "Content-Type: audio/wav\r\n\r\nRIFF....WAVE";

function postRaw(body: string) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
  }).then(async (response) => ({ status: response.status, body: (await response.json()) as Record<string, unknown> }));
}

const bytes = (count: number) => new Blob([new Uint8Array(count)]);

describe("readMultipart", () => {
  it("collects fields (repeated ones as lists) and files", async () => {
    const form = new FormData();
    form.append("model", "m");
    form.append("tag[]", "a");
    form.append("tag[]", "b");
    form.append("image[]", bytes(10), "a.png");
    form.append("image[]", bytes(20), "b.png");
    expect(await post(form)).toEqual({
      status: 200,
      body: {
        fields: { model: "m", "tag[]": ["a", "b"] },
        files: [
          ["image[]", "a.png", 10],
          ["image[]", "b.png", 20],
        ],
      },
    });
  });

  it("answers 413 naming the field for a file, or all files, over the limit", async () => {
    const one = new FormData();
    one.append("file", bytes(1001), "big.wav");
    expect(await post(one)).toMatchObject({ status: 413, body: { param: "file" } });
    const together = new FormData();
    together.append("image[]", bytes(800), "a.png");
    together.append("image[]", bytes(800), "b.png");
    expect(await post(together)).toMatchObject({ status: 413, body: { param: "image[]" } });
  });

  it("answers 400 for unexpected or too many files, long fields and other content types", async () => {
    const unexpected = new FormData();
    unexpected.append("other", bytes(1), "x.bin");
    expect(await post(unexpected)).toMatchObject({ status: 400, body: { param: "other" } });
    const many = new FormData();
    for (const name of ["a", "b", "c"]) many.append("image[]", bytes(1), `${name}.png`);
    expect((await post(many)).status).toBe(400);
    const long = new FormData();
    long.append("prompt", "x".repeat(101));
    expect(await post(long)).toMatchObject({ status: 400, body: { param: "prompt" } });
    expect((await post("{}")).status).toBe(400);
  });

  it("answers 400 for a body that ends before its closing boundary, inside a file or after a field", async () => {
    const malformed = { message: expect.stringMatching(/closing boundary/) };
    expect(await postRaw(cutInsideFile("file"))).toMatchObject({ status: 400, body: malformed });
    expect(await postRaw(cutInsideFile("other"))).toMatchObject({ status: 400 });
    const afterField = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nm`;
    expect(await postRaw(afterField)).toMatchObject({ status: 400, body: malformed });
  });

  it("cleans up after a client that leaves in the middle of a file, and keeps serving", async () => {
    answered = new Promise((resolve) => {
      markAnswered = resolve;
    });
    const body = cutInsideFile("file");
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    socket.write(
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${body.length + 1000}\r\n\r\n${body}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await answered;
    const form = new FormData();
    form.append("file", bytes(3), "a.wav");
    expect((await post(form)).status).toBe(200);
  });
});
