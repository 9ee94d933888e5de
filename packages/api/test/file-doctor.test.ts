import { FileDoctorReport, FileUploadTicket, UploadedFile } from "@rubricon/contracts";
import { files } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, bodyOf, call, mintApiKey, readAnswer, signUp, type TestUser } from "./helpers/clients";
import { GIF, type LocalS3, PNG, startLocalS3, uploadFile } from "./helpers/files";
import { startTestServer, type TestServer } from "./helpers/server";

for (const storage of ["local", "s3"] as const) {
  describe(`GET /files/{id}/doctor on ${storage} storage`, () => {
    let server: TestServer;
    let s3: LocalS3 | undefined;
    let user: TestUser;
    let key: string;

    beforeAll(async () => {
      s3 = storage === "s3" ? await startLocalS3() : undefined;
      server = await startTestServer({
        env: s3?.env ?? {},
        sources: "it damages stored files through the app's own file store",
      });
      user = await signUp(server, `doctor-${storage}`);
      key = await mintApiKey(server, user, ["evaluations:*"]);
    }, 240_000);
    afterAll(async () => {
      await server?.close();
      await s3?.close();
    });

    const upload = async () => {
      const res = await readAnswer(
        UploadedFile,
        await uploadFile(server.api, bearer(key), { bytes: PNG, filename: "shot.png", type: "image/png" }),
      );
      expectStatus(res, 201);
      return res.body;
    };
    const doctor = (id: string, headers = bearer(key)) =>
      call(FileDoctorReport, `${server.api}/files/${id}/doctor`, { headers });
    const storageKeyOf = async (id: string) => {
      const [row] = await server.database.db.select().from(files).where(eq(files.id, id));
      return row!.storageKey;
    };
    const statusOf = (report: FileDoctorReport) =>
      Object.fromEntries(report.checks.map((c) => [c.name, c.status]));

    it("finds a freshly uploaded file healthy, its signed URL answering", async () => {
      const file = await upload();
      const res = await doctor(file.id);
      expectStatus(res, 200);
      expect(res.body).toMatchObject({ object: "file_doctor", fileId: file.id, storage, healthy: true });
      expect(statusOf(res.body)).toEqual({
        record: "ok",
        object_exists: "ok",
        size: "ok",
        content_type: "ok",
        signed_url: "ok",
      });
    });

    it("says in words when the stored bytes are another type and size than recorded", async () => {
      const file = await upload();
      await server.app.services.storage.putBytes(await storageKeyOf(file.id), GIF, "image/gif");
      const res = await doctor(file.id);
      expectStatus(res, 200);
      expect(res.body.healthy).toBe(false);
      expect(statusOf(res.body)).toMatchObject({
        object_exists: "ok",
        size: "failed",
        content_type: "failed",
      });
      expect(res.body.summary).toContain(
        `The object is ${GIF.length} bytes, but the file is recorded as ${PNG.length} bytes.`,
      );
      expect(res.body.summary).toContain(
        "The stored bytes are image/gif, but the file is recorded as image/png.",
      );
    });

    it("says the object is missing and skips what depends on it", async () => {
      const file = await upload();
      await server.app.services.storage.delete(await storageKeyOf(file.id));
      const res = await doctor(file.id);
      expectStatus(res, 200);
      expect(res.body.healthy).toBe(false);
      expect(statusOf(res.body)).toEqual({
        record: "ok",
        object_exists: "failed",
        size: "skipped",
        content_type: "skipped",
        signed_url: "skipped",
      });
      expect(res.body.summary).toContain(`No object is stored under the file's key in ${storage} storage.`);
    });

    it("says a direct upload was never finalized", async () => {
      const ticket = bodyOf(
        await call(FileUploadTicket, `${server.api}/files/init`, {
          method: "POST",
          headers: bearer(key),
          body: { size: PNG.length, filename: "late.png", contentType: "image/png" },
        }),
      );
      const res = await doctor(ticket.fileId);
      expectStatus(res, 200);
      expect(res.body.healthy).toBe(false);
      expect(res.body.checks[0]).toMatchObject({ name: "record", status: "failed" });
      expect(res.body.summary).toContain("never finalized");
    });

    it("answers another team's file and an unknown one 404, and a key without the scope 403", async () => {
      const file = await upload();
      const stranger = await signUp(server, `doctor-${storage}-other`);
      const strangerKey = await mintApiKey(server, stranger, ["evaluations:*"]);
      expectError(await doctor(file.id, bearer(strangerKey)), 404, {
        type: "not_found_error",
        code: "file_not_found",
      });
      expectError(await doctor("file_doesnotexist"), 404, {
        type: "not_found_error",
        code: "file_not_found",
      });
      const noScope = await mintApiKey(server, user, ["templates:read"]);
      expectError(
        await call(z.never(), `${server.api}/files/${file.id}/doctor`, { headers: bearer(noScope) }),
        403,
        { type: "authorization_error", code: "missing_required_scope" },
      );
    });
  });
}
