import { AutouserRun, AutouserRunTurns, RatingList, RunArtifacts, UploadedFile } from "@rubricon/contracts";
import { autouserRunTurns } from "@rubricon/db";
import { isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectError, expectStatus } from "./helpers/assertions";
import {
  createEvaluationFor,
  insertAutouser,
  openRunStream,
  readUntilEnd,
  runAutousers,
  startAutouserServer,
  startRunLoop,
} from "./helpers/autousers";
import { bearer, bodyOf, call, mintApiKey, readAnswer, signUp, type TestUser } from "./helpers/clients";
import { GIF, type LocalS3, PNG, startLocalS3, uploadFile } from "./helpers/files";
import type { TestServer } from "./helpers/server";

/** Autousers rate uploaded mock-ups as they rate web pages, on either storage, and keep screenshots as files. */
describe.each(["local", "s3"] as const)("autouser runs on file stimuli (%s storage)", (storage) => {
  let server: TestServer;
  let s3: LocalS3 | null = null;
  let owner: TestUser;
  let key: string;
  let autouserId: string;

  beforeAll(async () => {
    s3 = storage === "s3" ? await startLocalS3() : null;
    server = await startAutouserServer({ env: { ...s3?.env } });
    owner = await signUp(server, `runfiles${storage}`);
    key = await mintApiKey(server, owner, ["evaluations:*", "autousers:*", "ratings:read"]);
    autouserId = await insertAutouser(server, owner.teamId);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  const get = <S extends Parameters<typeof call>[0]>(schema: S, path: string) =>
    call(schema, `${server.api}${path}`, { headers: bearer(key) });

  const upload = async (bytes: Uint8Array, filename: string, type: string) => {
    const res = await uploadFile(server.api, bearer(key), { bytes, filename, type });
    expect(res.status).toBe(201);
    return UploadedFile.parse(await res.json());
  };

  it("opens both uploaded sides in the browser, rates the pair and keeps each screenshot as a file", async () => {
    const current = await upload(PNG, "current.png", "image/png");
    const variant = await upload(GIF, "variant.gif", "image/gif");
    const evaluation = await createEvaluationFor(server, key, {
      name: "Mock-ups",
      type: "SxS",
      status: "Running",
      comparisonPairs: [{ sideAFileId: current.id, sideBFileId: variant.id }],
    });
    const queued = await runAutousers(server, key, evaluation.id, { autouserIds: [autouserId] });
    expectStatus(queued, 202);
    const runId = queued.body.data.runs[0]!.id;
    const loop = startRunLoop(server);
    try {
      await readUntilEnd(await openRunStream(server, key, evaluation.id));
    } finally {
      await loop.stop();
    }

    const run = bodyOf(await get(AutouserRun, `/evaluations/${evaluation.id}/autouser-runs/${runId}`));
    expect(run).toMatchObject({ status: "completed", ratingsCreated: 1, error: null });
    expect(run.artifactsPath).toBe(`/api/v1/evaluations/${evaluation.id}/autouser-runs/${runId}/artifacts`);

    const turns = bodyOf(
      await get(AutouserRunTurns, `/evaluations/${evaluation.id}/autouser-runs/${runId}/turns`),
    );
    expect(turns.data.map((t) => [t.action.type, t.side])).toEqual([
      ["visit", "A"],
      ["visit", "B"],
      ["rate", null],
    ]);
    // The agent opened signed links to the files, never a stored address of their bytes.
    const [visitA, visitB] = turns.data;
    for (const t of [visitA!, visitB!]) {
      expect(t.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(t.detail).not.toMatch(/error|failed/i);
      expect(t.screenshotFileId).toMatch(/^file_/);
    }

    const ratings = bodyOf(
      await call(RatingList, `${server.api}/evaluations/${evaluation.id}/ratings`, { headers: bearer(key) }),
    );
    expect(ratings.data).toHaveLength(1);
    expect(ratings.data[0]).toMatchObject({ raterType: "autouser", autouserRunId: runId });

    // Each screenshot is a file of the evaluation: listed with a signed link that serves a PNG.
    const artifacts = bodyOf(await get(RunArtifacts, run.artifactsPath!.replace("/api/v1", "")));
    expect(artifacts.data.map((a) => [a.name, a.fileId, a.turn])).toEqual([
      ["turn-1-1.png", visitA!.screenshotFileId, 1],
      ["turn-1-2.png", visitB!.screenshotFileId, 2],
    ]);
    const shot = artifacts.data[0]!;
    expect(shot.contentType).toBe("image/png");
    expect(Date.parse(shot.expiresAt)).toBeGreaterThan(Date.now());
    const bytes = Buffer.from(await (await fetch(shot.url)).arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    expect(bytes.length).toBe(shot.size);

    // The same bytes through the files API, as any screenshot's file id is read.
    const redirect = await fetch(`${server.api}/files/${shot.fileId}`, {
      headers: bearer(key),
      redirect: "manual",
    });
    expect(redirect.status).toBe(302);
    const viaFiles = Buffer.from(await (await fetch(redirect.headers.get("location")!)).arrayBuffer());
    expect(viaFiles.equals(bytes)).toBe(true);
  }, 120_000);

  it("hides another team's run screenshots", async () => {
    const stranger = await signUp(server, `runfilesx${storage}`);
    const strangerKey = await mintApiKey(server, stranger, ["evaluations:*", "autousers:*"]);
    const [turn] = await server.database.db
      .select({ fileId: autouserRunTurns.screenshotFileId })
      .from(autouserRunTurns)
      .where(isNotNull(autouserRunTurns.screenshotFileId))
      .limit(1);
    expect(turn?.fileId).toMatch(/^file_/);
    const res = await fetch(`${server.api}/files/${turn!.fileId}`, {
      headers: bearer(strangerKey),
      redirect: "manual",
    });
    expectError(await readAnswer(UploadedFile, res), 404, {
      type: "not_found_error",
      code: "file_not_found",
    });
  });
});
