import { describe, expect, it } from "vitest";
import { loadVideoConfig } from "./config.js";

const base = {
  DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/gateway",
  VIDEO_URL_SIGNING_KEY: "a-url-signing-key-for-tests",
  VIDEO_CALLBACK_SIGNING_KEY: "a-callback-signing-key-for-tests",
};

describe("video storage settings", () => {
  it("store on the filesystem unless told otherwise", () => {
    expect(loadVideoConfig(base)).toMatchObject({ VIDEO_STORAGE: "filesystem", VIDEO_STORAGE_DIR: ".gateway/videos" });
  });

  it("name every missing S3 setting at start-up", () => {
    expect(() => loadVideoConfig({ ...base, VIDEO_STORAGE: "s3" })).toThrow(
      /VIDEO_S3_BUCKET: set it to the bucket[\s\S]*VIDEO_S3_ACCESS_KEY_ID: [\s\S]*VIDEO_S3_SECRET_ACCESS_KEY: /,
    );
    expect(() => loadVideoConfig({ ...base, VIDEO_STORAGE: "ftp" })).toThrow(/VIDEO_STORAGE/);
  });

  it("read a complete S3 configuration", () => {
    const config = loadVideoConfig({
      ...base,
      VIDEO_STORAGE: "s3",
      VIDEO_S3_ENDPOINT: "http://127.0.0.1:9000",
      VIDEO_S3_BUCKET: "videos",
      VIDEO_S3_ACCESS_KEY_ID: "key",
      VIDEO_S3_SECRET_ACCESS_KEY: "secret",
      VIDEO_S3_FORCE_PATH_STYLE: "false",
    });
    expect(config).toMatchObject({
      VIDEO_STORAGE: "s3",
      VIDEO_S3_REGION: "us-east-1",
      VIDEO_S3_FORCE_PATH_STYLE: false,
      VIDEO_S3_PREFIX: "",
    });
  });
});
