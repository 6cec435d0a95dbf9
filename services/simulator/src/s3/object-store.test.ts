import { describe, expect, it } from "vitest";
import { ObjectStore } from "./object-store.js";

const store = (maxBytes = 1_000) => new ObjectStore({ buckets: ["b"], maxBytes });

describe("ObjectStore", () => {
  it("joins the listed parts in order with S3's multipart ETag", () => {
    const objects = store();
    const id = objects.createUpload("b", "k", "video/mp4");
    const first = objects.putPart("b", "k", id, 1, Buffer.from("abc"));
    const second = objects.putPart("b", "k", id, 2, Buffer.from("def"));
    const object = objects.complete("b", "k", id, [
      { partNumber: 1, etag: first },
      { partNumber: 2, etag: second },
    ]);
    expect(object.body.toString()).toBe("abcdef");
    // md5(md5("abc") ‖ md5("def")), then the part count.
    expect(object.etag).toBe('"4c8e93283780e078db9e0c6b9b3f8043-2"');
    expect(objects.pendingUploads()).toBe(0);
  });

  it("refuses unknown or misordered parts and unknown uploads", () => {
    const objects = store();
    const id = objects.createUpload("b", "k", "video/mp4");
    const etag = objects.putPart("b", "k", id, 1, Buffer.from("abc"));
    const second = objects.putPart("b", "k", id, 2, Buffer.from("def"));
    expect(() => objects.complete("b", "k", id, [{ partNumber: 1, etag: '"0000"' }])).toThrow(/could not be found/);
    expect(() =>
      objects.complete("b", "k", id, [
        { partNumber: 2, etag: second },
        { partNumber: 1, etag },
      ]),
    ).toThrow(/ascending/);
    expect(() => objects.complete("b", "other", id, [{ partNumber: 1, etag }])).toThrow(/upload does not exist/);
    expect(() => objects.createUpload("nope", "k", "video/mp4")).toThrow(/bucket does not exist/);
  });

  it("stays within its byte bound, counting open parts and freeing what is removed", () => {
    const objects = store(10);
    objects.put("b", "one", Buffer.alloc(6), "video/mp4");
    expect(() => objects.put("b", "two", Buffer.alloc(5), "video/mp4")).toThrow(/full/);
    // Replacing an object only needs the difference.
    objects.put("b", "one", Buffer.alloc(10), "video/mp4");
    objects.delete("b", "one");
    const id = objects.createUpload("b", "k", "video/mp4");
    objects.putPart("b", "k", id, 1, Buffer.alloc(8));
    expect(() => objects.put("b", "two", Buffer.alloc(3), "video/mp4")).toThrow(/full/);
    objects.abort("b", "k", id);
    objects.put("b", "two", Buffer.alloc(10), "video/mp4");
    expect(objects.list()).toEqual([{ bucket: "b", key: "two", size: 10, contentType: "video/mp4" }]);
  });
});
