import { Rating } from "@rubricon/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { expectError, expectStatus } from "./helpers/assertions";
import { bearer, call, mintApiKey, signUp, type TestUser } from "./helpers/clients";
import { runningEvaluation } from "./helpers/ratings";
import { startTestServer, type TestServer } from "./helpers/server";

let server: TestServer;
let user: TestUser;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  user = await signUp(server, "report");
  key = await mintApiKey(server, user, ["evaluations:*", "ratings:*"]);
}, 240_000);
afterAll(() => server?.close());

const rate = async (evaluationId: string, body: unknown) =>
  expectStatus(
    await call(Rating, `${server.api}/evaluations/${evaluationId}/ratings`, {
      method: "POST",
      headers: bearer(key),
      body,
    }),
    201,
  );
const report = (id: string, headers = bearer(key)) =>
  fetch(`${server.api}/evaluations/${id}/export?format=md`, { headers });

describe("GET /evaluations/{id}/export?format=md", () => {
  it("reports the summary, results per template and comparison, agreement and the comments at both ends", async () => {
    const { evaluation, comparisonIds } = await runningEvaluation(server, bearer(key), {
      extra: { allowMultipleRatings: true },
    });
    const scores = [
      [7, "Clear and calm, the button is where I looked first."],
      [6, "Good."],
      [2, "# Heading <script>alert(1)</script> | a cell [link](http://evil.example)"],
      [1, "Could not find the price at all."],
    ] as const;
    for (const [i, [value, justification]] of scores.entries()) {
      await rate(evaluation.id, {
        comparisonId: comparisonIds[i % 2],
        dimensionRatings: { overall: value },
        justification,
      });
    }
    await rate(evaluation.id, { comparisonId: comparisonIds[1], skipReason: "Did not load" });

    const res = await report(evaluation.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(res.headers.get("content-disposition")).toContain(`${evaluation.id}-report.md`);
    const md = await res.text();
    expect(md.startsWith("# Rated SSE\n")).toBe(true);
    expect(md).toContain("- Ratings: 5 (5 human, 0 autouser), 1 skipped");
    expect(md).toContain("## Results per template");
    // Mean of 7, 6, 2 and 1 on the overall 1 to 7 scale; its t-interval (-0.68 to 8.68) is cut to the scale.
    expect(md).toMatch(
      /\| Overall quality \(v\d+\) \| 1 to 7 \| 4 \| 4\.00 \| 2\.94 \| 1\.00 to 7\.00 \(cut to the scale\) \|/,
    );
    expect(md).toContain("### Per comparison");
    expect(md).toMatch(/\| 1 \| Design 0 \| 2 \| 4\.50 \(n=2\) \|/);
    expect(md).toContain("## Agreement");
    expect(md).toContain("| All raters |");
    expect(md).toContain("## Top comments");
    const highest = md.slice(md.indexOf("### Highest rated"), md.indexOf("### Lowest rated"));
    expect(highest).toContain("Clear and calm");
    const lowest = md.slice(md.indexOf("### Lowest rated"));
    expect(lowest.indexOf("Could not find the price")).toBeLessThan(lowest.indexOf("Heading"));
    // A rater's words never become markup: no heading, tag, link or table cell of theirs survives.
    expect(md).not.toMatch(/^# Heading/m);
    expect(md).not.toContain("<script>");
    expect(md).not.toContain("](http://evil.example)");
    expect(md).toContain("\\# Heading \\<script\\>");
    expect(md).toContain("\\| a cell");
  });

  it("reads well for an evaluation nobody has rated yet", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key), { type: "SxS" });
    const res = await report(evaluation.id);
    expect(res.status).toBe(200);
    const md = await res.text();
    expect(md).toContain("- Type: side by side (SxS)");
    expect(md).toContain("- Ratings: 0 (0 human, 0 autouser), 0 skipped");
    expect(md).toContain("No rater has left a comment yet.");
    expect(md).toContain("- Overall agreement: not yet measured (no ratings to compare)");
    expect(md).toContain("not measurable: too few paired values");
    expect(md).not.toContain("undefined");
  });

  it("refuses an unknown format, a missing scope and another team's evaluation with their codes", async () => {
    const { evaluation } = await runningEvaluation(server, bearer(key));
    expectError(
      await call(z.never(), `${server.api}/evaluations/${evaluation.id}/export?format=pdf`, {
        headers: bearer(key),
      }),
      400,
      { type: "invalid_request_error", code: "parameter_invalid", param: "format" },
    );
    const noRatings = await mintApiKey(server, user, ["evaluations:read"]);
    expectError(
      await call(z.never(), `${server.api}/evaluations/${evaluation.id}/export?format=md`, {
        headers: bearer(noRatings),
      }),
      403,
      { type: "authorization_error", code: "missing_required_scope" },
    );
    const other = await signUp(server, "report-other");
    const otherKey = await mintApiKey(server, other, ["evaluations:*", "ratings:*"]);
    expectError(
      await call(z.never(), `${server.api}/evaluations/${evaluation.id}/export?format=md`, {
        headers: bearer(otherKey),
      }),
      404,
      { type: "not_found_error", code: "evaluation_not_found" },
    );
  });
});
