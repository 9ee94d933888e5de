import { request } from "node:http";
import {
  type Comparison,
  ComparisonList,
  DeletedObject,
  FileUploadTicket,
  UploadedFile,
} from "@rubricon/contracts";
import { fixedClock, removeOrphanedFiles } from "@rubricon/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import {
  bearer,
  bodyOf,
  call,
  errorOf,
  mintApiKey,
  readAnswer,
  signUp,
  type TestUser,
} from "./helpers/clients";
import { GIF, HTML, type LocalS3, MP4, PDF, PNG, startLocalS3, uploadFile } from "./helpers/files";
import { startTestServer, type TestServer } from "./helpers/server";

const clock = fixedClock(new Date());

for (const storage of ["local", "s3"] as const) {
  describe(`files on ${storage} storage`, () => {
    let server: TestServer;
    let s3: LocalS3 | undefined;
    let user: TestUser;
    let key: string;
    let other: string;

    beforeAll(async () => {
      s3 = storage === "s3" ? await startLocalS3() : undefined;
      server = await startTestServer({ clock, env: s3?.env ?? {} });
      user = await signUp(server, `files-${storage}`);
      key = await mintApiKey(server, user, ["evaluations:*", "ratings:*"]);
      const stranger = await signUp(server, `files-${storage}-other`);
      other = await mintApiKey(server, stranger, ["evaluations:*"]);
    });
    afterAll(async () => {
      await server?.close();
      await s3?.close();
    });

    const upload = async (bytes: Uint8Array, filename: string, type: string, fields = {}, as = key) =>
      readAnswer(UploadedFile, await uploadFile(server.api, bearer(as), { bytes, filename, type }, fields));

    const directUpload = async (
      bytes: Uint8Array,
      declared: { filename: string; contentType: string; size?: number },
    ) => {
      const ticket = bodyOf(
        await call(FileUploadTicket, `${server.api}/files/init`, {
          method: "POST",
          headers: bearer(key),
          body: { size: bytes.length, ...declared },
        }),
      );
      const put = await fetch(ticket.uploadUrl, {
        method: "PUT",
        headers: ticket.headers,
        body: new Blob([new Uint8Array(bytes)]),
      });
      expect(put.status).toBe(200);
      return ticket;
    };

    const finalize = (fileId: string, as = key) =>
      call(UploadedFile, `${server.api}/files/${fileId}/finalize`, { method: "POST", headers: bearer(as) });

    /** Follows the 302 as a browser would, and answers the redirect and the bytes behind it. */
    const download = async (fileId: string, as = key) => {
      const redirect = await fetch(`${server.api}/files/${fileId}`, {
        headers: bearer(as),
        redirect: "manual",
      });
      const location = redirect.headers.get("location");
      const target = location ? await fetch(location) : null;
      return { redirect, location, target, bytes: target ? Buffer.from(await target.arrayBuffer()) : null };
    };

    it("takes a multipart upload, reads its type from its bytes, and serves it behind a signed redirect", async () => {
      const res = await upload(PNG, "home.png", "image/png");
      expectStatus(res, 201);
      expect(res.body).toMatchObject({
        object: "file",
        filename: "home.png",
        contentType: "image/png",
        status: "ready",
        size: PNG.length,
        evaluationId: null,
      });
      expect(res.body.id).toMatch(/^file_/);

      const got = await download(res.body.id);
      expect(got.redirect.status).toBe(302);
      expect(got.redirect.headers.get("cache-control")).toBe("no-store");
      expect(await got.redirect.text()).toBe("");
      expect(got.target?.status).toBe(200);
      expect(got.target?.headers.get("content-type")).toBe("image/png");
      expect(got.bytes?.equals(PNG)).toBe(true);
    });

    it("takes a large file as init, PUT and finalize", async () => {
      const ticket = await directUpload(MP4, { filename: "flow.mp4", contentType: "video/mp4" });
      expect(ticket.file.status).toBe("pending");
      expect(ticket.method).toBe("PUT");
      expect(ticket.headers["Content-Type"]).toBe("video/mp4");
      expect(Date.parse(ticket.expiresAt)).toBeGreaterThan(clock.now().getTime());

      const pending = await download(ticket.fileId);
      expectError(await readAnswer(UploadedFile, pending.redirect), 400, {
        type: "invalid_request_error",
        code: "file_not_ready",
      });

      const done = await finalize(ticket.fileId);
      expectStatus(done, 200);
      expect(done.body).toMatchObject({ status: "ready", contentType: "video/mp4", size: MP4.length });
      expect((await download(ticket.fileId)).bytes?.equals(MP4)).toBe(true);
      // Finalizing again answers the file as it is.
      expect(bodyOf(await finalize(ticket.fileId)).status).toBe("ready");
    });

    it("refuses a PNG named .mp4 and an HTML page named .png, both ways", async () => {
      expectError(await upload(PNG, "clip.mp4", "video/mp4"), 400, {
        type: "invalid_request_error",
        code: "file_type_mismatch",
        param: "file",
      });
      expectError(await upload(PNG, "clip.mp4", "application/octet-stream"), 400, {
        type: "invalid_request_error",
        code: "file_type_mismatch",
      });
      expectError(await upload(HTML, "page.png", "image/png"), 400, {
        type: "invalid_request_error",
        code: "file_type_not_allowed",
        param: "file",
      });

      const ticket = await directUpload(PNG, { filename: "clip.mp4", contentType: "video/mp4" });
      expectError(await finalize(ticket.fileId), 400, {
        type: "invalid_request_error",
        code: "file_type_mismatch",
        param: "contentType",
      });
      // The file is rejected for good, and its bytes are gone.
      expectError(await finalize(ticket.fileId), 400, {
        type: "invalid_request_error",
        code: "file_not_ready",
      });

      const html = await directUpload(HTML, { filename: "page.png", contentType: "image/png" });
      expectError(await finalize(html.fileId), 400, {
        type: "invalid_request_error",
        code: "file_type_not_allowed",
      });
    });

    it("accepts every allowed type by its bytes", async () => {
      for (const [bytes, name, type] of [
        [GIF, "spinner.gif", "image/gif"],
        [PDF, "brief.pdf", "application/pdf"],
        [MP4, "walkthrough.mp4", "video/mp4"],
      ] as const) {
        const res = await upload(bytes, name, "application/octet-stream");
        expectStatus(res, 201);
        expect(res.body.contentType).toBe(type);
      }
    });

    it("refuses a direct upload whose size is not the declared one", async () => {
      const ticket = bodyOf(
        await call(FileUploadTicket, `${server.api}/files/init`, {
          method: "POST",
          headers: bearer(key),
          body: { filename: "a.png", contentType: "image/png", size: PNG.length + 10 },
        }),
      );
      const put = await fetch(ticket.uploadUrl, { method: "PUT", headers: ticket.headers, body: PNG });
      if (storage === "local") {
        // Our own upload URL counts the bytes: a short upload is refused at once, and nothing is kept.
        expectError(await readAnswer(UploadedFile, put), 400, {
          type: "invalid_request_error",
          code: "file_size_mismatch",
        });
        expectError(await finalize(ticket.fileId), 400, {
          type: "invalid_request_error",
          code: "file_not_ready",
        });
      } else {
        // A bucket's presigned PUT is checked by the bucket; whatever it stored, finalize checks the size.
        expect(put.status).toBe(200);
        expectError(await finalize(ticket.fileId), 400, {
          type: "invalid_request_error",
          code: "file_size_mismatch",
          param: "size",
        });
      }
    });

    it("names a file by the type of its bytes: a PNG sent as x.html is stored and served as x.png", async () => {
      const res = await upload(PNG, "x.html", "image/png");
      expectStatus(res, 201);
      expect(res.body).toMatchObject({ filename: "x.png", contentType: "image/png" });
      const got = await download(res.body.id);
      expect(got.target?.status).toBe(200);
      expect(got.target?.headers.get("content-disposition")).toContain('filename="x.png"');
      expect(got.target?.headers.get("content-disposition")).not.toContain("html");

      // No extension gets one; a known one of the same type stays as it is.
      expect(bodyOf(await upload(PNG, "screenshot", "image/png")).filename).toBe("screenshot.png");
      expect(bodyOf(await upload(MP4, "Clip.M4V", "video/mp4")).filename).toBe("Clip.M4V");

      const ticket = await directUpload(PNG, { filename: "shot.svg", contentType: "image/png" });
      expect(bodyOf(await finalize(ticket.fileId)).filename).toBe("shot.png");
      const direct = await download(ticket.fileId);
      expect(direct.target?.headers.get("content-disposition")).toContain('filename="shot.png"');
    });

    it("keeps a direct upload within the plan's size (Pro: 500 MB)", async () => {
      const res = await call(FileUploadTicket, `${server.api}/files/init`, {
        method: "POST",
        headers: bearer(key),
        body: { filename: "huge.mp4", contentType: "video/mp4", size: 501 * 1024 * 1024 },
      });
      expectError(res, 413, { type: "invalid_request_error", code: "file_too_large", param: "size" });
    });

    it("hides another team's file (404) and refuses it in an evaluation", async () => {
      const mine = bodyOf(await upload(PNG, "mine.png", "image/png"));
      const got = await download(mine.id, other);
      expectError(await readAnswer(UploadedFile, got.redirect), 404, {
        type: "not_found_error",
        code: "file_not_found",
      });
      expectError(await finalize(mine.id, other), 404, { type: "not_found_error", code: "file_not_found" });
      expectError(
        await call(DeletedObject, `${server.api}/files/${mine.id}`, {
          method: "DELETE",
          headers: bearer(other),
        }),
        404,
        { type: "not_found_error", code: "file_not_found" },
      );
      const res = await call(UploadedFile, `${server.api}/evaluations`, {
        method: "POST",
        headers: bearer(other),
        body: {
          name: "Borrowed",
          type: "SSE",
          designUrls: [{ url: "https://example.com" }, { fileId: mine.id }],
        },
      });
      expectError(res, 400, {
        type: "invalid_request_error",
        code: "parameter_invalid",
        param: "designUrls[1].fileId",
      });
    });

    it("builds an SxS evaluation from uploaded mock-ups, refusing unfinished files", async () => {
      const a = bodyOf(await upload(PNG, "current.png", "image/png"));
      const b = bodyOf(await upload(GIF, "variant.gif", "image/gif"));
      const pending = await directUpload(PNG, { filename: "later.png", contentType: "image/png" });
      const refused = await call(UploadedFile, `${server.api}/evaluations`, {
        method: "POST",
        headers: bearer(key),
        body: {
          name: "Mock-ups",
          type: "SxS",
          comparisonPairs: [{ sideAFileId: a.id, sideBFileId: pending.fileId }],
        },
      });
      expectError(refused, 400, {
        type: "invalid_request_error",
        code: "file_not_ready",
        param: "comparisonPairs[0].sideBFileId",
      });

      const created = await fetch(`${server.api}/evaluations`, {
        method: "POST",
        headers: { ...bearer(key), "Content-Type": "application/json" },
        body: JSON.stringify({
          name: "Mock-ups",
          type: "SxS",
          status: "Running",
          comparisonPairs: [{ sideAFileId: a.id, sideBFileId: b.id, label: "Home" }],
        }),
      });
      expect(created.status).toBe(201);
      const evaluation = (await created.json()) as { id: string };
      const list = bodyOf(
        await call(ComparisonList, `${server.api}/evaluations/${evaluation.id}/comparisons`, {
          headers: bearer(key),
        }),
      );
      const comparison: Comparison = list.data[0]!;
      expect(comparison.stimulus).toEqual({
        kind: "pair",
        sideA: { url: null, fileId: a.id, contentType: "image/png" },
        sideB: { url: null, fileId: b.id, contentType: "image/gif" },
      });
      expect((await download(b.id)).bytes?.equals(GIF)).toBe(true);
    });

    it("deletes a file and its bytes", async () => {
      const file = bodyOf(await upload(PNG, "gone.png", "image/png"));
      const before = await download(file.id);
      const res = await call(DeletedObject, `${server.api}/files/${file.id}`, {
        method: "DELETE",
        headers: bearer(key),
      });
      expect(bodyOf(res)).toEqual({ id: file.id, deleted: true });
      expect((await download(file.id)).redirect.status).toBe(404);
      // A link handed out before the deletion serves nothing any more.
      expect((await fetch(before.location!)).status).toBe(404);
    });
  });
}

describe("clean-up", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ clock });
    key = await mintApiKey(server, await signUp(server, "files-cleanup"), ["evaluations:*"]);
  });
  afterAll(() => server?.close());

  it("removes abandoned uploads and the files of deleted evaluations, keeping files in use", async () => {
    const { db, storage } = server.app.services;
    const up = async (name: string) =>
      bodyOf(
        await readAnswer(
          UploadedFile,
          await uploadFile(server.api, bearer(key), { bytes: PNG, filename: name, type: "image/png" }),
        ),
      );
    const kept = await up("kept.png");
    const orphan = await up("orphan.png");
    const pending = bodyOf(
      await call(FileUploadTicket, `${server.api}/files/init`, {
        method: "POST",
        headers: bearer(key),
        body: { filename: "never.png", contentType: "image/png", size: 10 },
      }),
    );
    const make = async (fileId: string) => {
      const res = await fetch(`${server.api}/evaluations`, {
        method: "POST",
        headers: bearer(key),
        body: JSON.stringify({ name: "E", type: "SSE", designUrls: [{ fileId }] }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    await make(kept.id);
    const doomed = await make(orphan.id);
    await fetch(`${server.api}/evaluations/${doomed}`, { method: "DELETE", headers: bearer(key) });

    expect(await removeOrphanedFiles(db, storage, clock.now())).toBe(1);
    const status = async (id: string) =>
      (await fetch(`${server.api}/files/${id}`, { headers: bearer(key), redirect: "manual" })).status;
    expect(await status(orphan.id)).toBe(404);
    expect(await status(kept.id)).toBe(302);
    expect(await status(pending.fileId)).toBe(400);

    expect(
      await removeOrphanedFiles(db, storage, new Date(clock.now().getTime() + 25 * 60 * 60 * 1000)),
    ).toBe(1);
    expect(await status(pending.fileId)).toBe(404);
    expect(await status(kept.id)).toBe(302);
  });
});

describe("files behind a share link", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ clock });
    key = await mintApiKey(server, await signUp(server, "files-share"), ["evaluations:*"]);
  });
  afterAll(() => server?.close());

  it("serve a started rater the evaluation's files, and nothing else", async () => {
    const up = async (name: string) =>
      bodyOf(
        await readAnswer(
          UploadedFile,
          await uploadFile(server.api, bearer(key), { bytes: PNG, filename: name, type: "image/png" }),
        ),
      );
    const [a, b, unrelated] = [await up("a.png"), await up("b.png"), await up("c.png")];
    const created = await fetch(`${server.api}/evaluations`, {
      method: "POST",
      headers: bearer(key),
      body: JSON.stringify({
        name: "Shared mock-ups",
        type: "SxS",
        status: "Running",
        shareAccess: "ANYONE_WITH_LINK",
        comparisonPairs: [{ sideAFileId: a.id, sideBFileId: b.id }],
      }),
    });
    const evaluation = (await created.json()) as { links: { share: string } };
    const token = evaluation.links.share.split("/").pop()!;
    const fileUrl = (id: string) => `${server.url}/api/share/${token}/files/${id}`;

    // Before starting, the link shows no comparisons, so no files.
    expect((await fetch(fileUrl(a.id), { redirect: "manual" })).status).toBe(404);
    const start = await fetch(`${server.url}/api/share/${token}/start`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: "{}",
    });
    expect(start.status).toBe(201);
    const cookie = start.headers.getSetCookie()[0]!.split(";")[0]!;
    const shown = await fetch(fileUrl(b.id), { headers: { Cookie: cookie }, redirect: "manual" });
    expect(shown.status).toBe(302);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    expect(Buffer.from(await (await fetch(shown.headers.get("location")!)).arrayBuffer()).equals(PNG)).toBe(
      true,
    );
    const other = await fetch(fileUrl(unrelated.id), { headers: { Cookie: cookie }, redirect: "manual" });
    expect(other.status).toBe(404);
  });
});

describe("forged signed links", () => {
  let server: TestServer;
  let key: string;
  const linkClock = fixedClock(new Date());
  beforeAll(async () => {
    // One trusted proxy (the test, sending Web requests straight to the pipeline) names each client.
    server = await startTestServer({ clock: linkClock, env: { TRUSTED_PROXY_COUNT: "1" } });
    const user = await signUp(server, "files-forged");
    key = await mintApiKey(server, user, ["evaluations:*"]);
  });
  afterAll(() => server?.close());

  it("are paced per client address: past 30 failures a minute the address waits, others do not", async () => {
    const file = bodyOf(
      await readAnswer(
        UploadedFile,
        await uploadFile(server.api, bearer(key), { bytes: PNG, filename: "x.png", type: "image/png" }),
      ),
    );
    const res = await fetch(`${server.api}/files/${file.id}`, { headers: bearer(key), redirect: "manual" });
    const url = new URL(res.headers.get("location")!);
    const forged = new URL(url);
    forged.searchParams.set("sig", "A".repeat(43));
    const send = (address: string, target: URL) =>
      server.app.handle(new Request(target, { headers: { "X-Forwarded-For": address } }));
    const from = (address: string, target: URL) =>
      send(address, target).then((r) => readAnswer(UploadedFile, r));

    for (let i = 0; i < 30; i++) {
      expectError(await from("192.0.2.7", forged), 403, {
        type: "authorization_error",
        code: "signed_url_invalid",
      });
    }
    const paced = await from("192.0.2.7", forged);
    expectError(paced, 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect(Number(paced.headers.get("retry-after"))).toBeGreaterThan(0);
    // The paced address waits even with a good link; another address is served, and the minute passing frees it.
    expectError(await from("192.0.2.7", url), 429, { type: "rate_limit_error", code: "rate_limit_exceeded" });
    expect((await send("192.0.2.8", url)).status).toBe(200);
    linkClock.advance(61_000);
    try {
      expect((await send("192.0.2.7", url)).status).toBe(200);
    } finally {
      linkClock.set(new Date());
    }
  });
});

describe("local signed URLs and upload limits", () => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer({ clock });
    const user = await signUp(server, "files-limits");
    key = await mintApiKey(server, user, ["evaluations:*"]);
  });
  afterAll(() => server?.close());

  const locationOf = async (bytes: Uint8Array, name: string, type: string) => {
    const file = bodyOf(
      await readAnswer(
        UploadedFile,
        await uploadFile(server.api, bearer(key), { bytes, filename: name, type }),
      ),
    );
    const res = await fetch(`${server.api}/files/${file.id}`, { headers: bearer(key), redirect: "manual" });
    return new URL(res.headers.get("location")!);
  };

  it("refuses an expired or tampered signed URL", async () => {
    const form = await uploadFile(server.api, bearer(key), {
      bytes: PNG,
      filename: "x.png",
      type: "image/png",
    });
    const file = bodyOf(await readAnswer(UploadedFile, form));
    const res = await fetch(`${server.api}/files/${file.id}`, { headers: bearer(key), redirect: "manual" });
    const url = new URL(res.headers.get("location")!);
    expect(url.origin).toBe(server.url);
    expect(Number(url.searchParams.get("exp")) * 1000 - clock.now().getTime()).toBeLessThanOrEqual(
      5 * 60 * 1000,
    );
    expect((await fetch(url)).status).toBe(200);

    const tampered = new URL(url);
    tampered.searchParams.set("ct", "text/html");
    const refused = await readAnswer(UploadedFile, await fetch(tampered));
    expectError(refused, 403, { type: "authorization_error", code: "signed_url_invalid" });
    const otherFile = new URL(url);
    otherFile.pathname = otherFile.pathname.replace(/file_\w+$/, "file_aaaaaaaaaaaaaaaaaaaaaaaa");
    expectError(await readAnswer(UploadedFile, await fetch(otherFile)), 403, {
      type: "authorization_error",
      code: "signed_url_invalid",
    });
    // A download URL cannot be used to upload.
    const put = await fetch(url, { method: "PUT", headers: { "Content-Type": "image/png" }, body: PNG });
    expectError(await readAnswer(UploadedFile, put), 403, {
      type: "authorization_error",
      code: "signed_url_invalid",
    });

    clock.advance(5 * 60 * 1000 + 1000);
    try {
      expectError(await readAnswer(UploadedFile, await fetch(url)), 403, {
        type: "authorization_error",
        code: "signed_url_invalid",
      });
    } finally {
      clock.set(new Date());
    }
  });

  it("serves files with headers that keep them inert", async () => {
    const url = await locationOf(PNG, "x.png", "image/png");
    const res = await fetch(url);
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-disposition")).toContain('filename="x.png"');
  });

  it("cuts a multipart upload off at 10 MB as it streams, with the error envelope", async () => {
    // Sent chunked, with no declared length, so only counting the bytes can stop it.
    const boundary = "----rubricon";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const status = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      const req = request(`${server.api}/files`, {
        method: "POST",
        headers: { ...bearer(key), "Content-Type": `multipart/form-data; boundary=${boundary}` },
      });
      let sent = 0;
      let answered = false;
      req.on("response", (res) => {
        answered = true;
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, body, sent }));
      });
      req.on("error", (err) => (answered ? undefined : reject(err)));
      req.write(Buffer.concat([head, PNG]));
      const chunk = Buffer.alloc(256 * 1024, 1);
      const pump = () => {
        while (!answered && sent < 14 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!answered) req.end();
      };
      pump();
    });
    expect(status.status).toBe(413);
    expect(JSON.parse(status.body).error).toMatchObject({
      type: "invalid_request_error",
      code: "file_too_large",
      param: "file",
    });
    // Past the 10 MB cap, within the 16 MB the server reads and discards so that the client reads its answer
    // (beyond that bound the connection is closed and a client still sending may lose the answer).
    expect(status.sent).toBeGreaterThan(10 * 1024 * 1024);
  });

  it("refuses a declared length past the cap before reading, and a PUT past the signed size", async () => {
    const res = await fetch(`${server.api}/files`, {
      method: "POST",
      headers: {
        ...bearer(key),
        "Content-Type": "multipart/form-data; boundary=x",
        "Content-Length": String(11 * 1024 * 1024),
      },
      body: Buffer.alloc(11 * 1024 * 1024),
    });
    expect(res.status).toBe(413);

    const ticket = bodyOf(
      await call(FileUploadTicket, `${server.api}/files/init`, {
        method: "POST",
        headers: bearer(key),
        body: { filename: "a.png", contentType: "image/png", size: 10 },
      }),
    );
    const put = await fetch(ticket.uploadUrl, { method: "PUT", headers: ticket.headers, body: PNG });
    expect(put.status).toBe(413);
    const wrongType = await fetch(ticket.uploadUrl, {
      method: "PUT",
      headers: { "Content-Type": "text/html" },
      body: PNG.subarray(0, 10),
    });
    expectError(await readAnswer(UploadedFile, wrongType), 403, {
      type: "authorization_error",
      code: "signed_url_invalid",
    });
  });

  it("takes exactly the declared bytes on an upload URL, and none once the file is settled", async () => {
    const init = async (size: number, contentType = "image/png") =>
      bodyOf(
        await call(FileUploadTicket, `${server.api}/files/init`, {
          method: "POST",
          headers: bearer(key),
          body: { filename: "a.png", contentType, size },
        }),
      );
    const finalize = (fileId: string) =>
      call(UploadedFile, `${server.api}/files/${fileId}/finalize`, { method: "POST", headers: bearer(key) });
    const put = (url: string, body: Uint8Array | ReadableStream<Uint8Array>) =>
      fetch(url, {
        method: "PUT",
        headers: { "Content-Type": "image/png" },
        body,
        duplex: "half",
      } as RequestInit);

    // Too many bytes: the message names the size in bytes, declared or streamed without a length.
    const small = await init(PNG.length);
    for (const body of [Buffer.concat([PNG, PNG]), new Blob([PNG, PNG]).stream()]) {
      const refused = await readAnswer(UploadedFile, await put(small.uploadUrl, body));
      expectError(refused, 413, { type: "invalid_request_error", code: "file_too_large" });
      expect(errorOf(refused).message).toContain(`${PNG.length} bytes`);
      expect(errorOf(refused).message).not.toContain("0 KB");
    }
    // Too few: refused at the PUT, not only at finalize; the full upload then goes through.
    const short = await readAnswer(UploadedFile, await put(small.uploadUrl, PNG.subarray(0, 20)));
    expectError(short, 400, { type: "invalid_request_error", code: "file_size_mismatch" });
    expect(errorOf(short).message).toContain(`has 20 bytes, but ${PNG.length}`);
    expect((await put(small.uploadUrl, PNG)).status).toBe(200);
    expectStatus(await finalize(small.fileId), 200);
    // Ready: the URL takes no more bytes, and the file keeps its own.
    const afterReady = await readAnswer(UploadedFile, await put(small.uploadUrl, PNG));
    expectError(afterReady, 403, { type: "authorization_error", code: "signed_url_invalid" });

    // Rejected (an HTML page declared as a PNG): the URL takes nothing more.
    const html = await init(HTML.length);
    expect((await put(html.uploadUrl, HTML)).status).toBe(200);
    expectError(await finalize(html.fileId), 400, {
      type: "invalid_request_error",
      code: "file_type_not_allowed",
    });
    const afterRejected = await readAnswer(UploadedFile, await put(html.uploadUrl, HTML));
    expectError(afterRejected, 403, { type: "authorization_error", code: "signed_url_invalid" });
    expect(errorOf(afterRejected).message).toContain("rejected");
  });

  it("refuses uploads that are not multipart, or have no file", async () => {
    const json = await call(UploadedFile, `${server.api}/files`, {
      method: "POST",
      headers: bearer(key),
      body: { a: 1 },
    });
    expectError(json, 415, { type: "invalid_request_error", code: "unsupported_media_type" });
    const form = new FormData();
    form.append("teamId", "team_x");
    const empty = await readAnswer(
      UploadedFile,
      await fetch(`${server.api}/files`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}` },
        body: form,
      }),
    );
    expect(empty.status).toBeGreaterThanOrEqual(400);
    expect(empty.status).toBeLessThan(500);
  });
});
