import { describe, expect, it } from "vitest";
import { decodeAwsChunked, objectPayload } from "./payload.js";

const framed = (...lines: string[]) => Buffer.from(lines.join("\r\n"), "latin1");

describe("aws-chunked payloads", () => {
  it("joins the chunks and reads the trailers", () => {
    const decoded = decodeAwsChunked(
      framed("5", "hello", "6;chunk-signature=abc", " world", "0", "x-amz-checksum-crc32:DUoRhQ==", "", ""),
    );
    expect(decoded.data.toString()).toBe("hello world");
    expect(decoded.trailers).toEqual(new Map([["x-amz-checksum-crc32", "DUoRhQ=="]]));
  });

  it("refuses broken framing", () => {
    expect(() => decodeAwsChunked(framed("zz", "hello"))).toThrow(/chunk size/);
    expect(() => decodeAwsChunked(framed("9", "hello", "0", ""))).toThrow(/Content-Length/);
    expect(() => decodeAwsChunked(Buffer.from("5\r\nhel"))).toThrow(/Content-Length/);
  });

  it("checks the CRC32 from a header or a trailer and the decoded length", () => {
    const headers = {
      "content-encoding": "aws-chunked",
      "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
      "x-amz-decoded-content-length": "11",
    };
    const body = (checksum: string) => framed("b", "hello world", "0", `x-amz-checksum-crc32:${checksum}`, "", "");
    expect(objectPayload(headers, body("DUoRhQ==")).toString()).toBe("hello world");
    expect(() => objectPayload(headers, body("AAAAAA=="))).toThrow(/CRC32/);
    expect(() => objectPayload({ ...headers, "x-amz-decoded-content-length": "12" }, body("DUoRhQ=="))).toThrow(
      /Content-Length/,
    );
    const plain = Buffer.from("hello world");
    expect(objectPayload({ "x-amz-checksum-crc32": "DUoRhQ==" }, plain)).toBe(plain);
    expect(() => objectPayload({ "x-amz-checksum-crc32": "AAAAAA==" }, plain)).toThrow(/CRC32/);
  });
});
