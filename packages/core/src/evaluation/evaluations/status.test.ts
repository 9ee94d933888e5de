import { EVALUATION_STATUSES, type EvaluationStatus } from "@rubricon/contracts";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../kernel";
import { assertTransition, isEditable } from "./status";

const ALLOWED: Record<EvaluationStatus, EvaluationStatus[]> = {
  Draft: ["Running", "Archived"],
  Running: ["Ended", "Archived"],
  Ended: ["Archived"],
  Archived: [],
};

describe("evaluation status transitions", () => {
  for (const from of EVALUATION_STATUSES) {
    for (const to of EVALUATION_STATUSES) {
      if (from === to) continue;
      const allowed = ALLOWED[from].includes(to);
      it(`${allowed ? "allows" : "refuses"} ${from} → ${to}`, () => {
        if (allowed) {
          expect(() => assertTransition(from, to)).not.toThrow();
          return;
        }
        let error: unknown;
        try {
          assertTransition(from, to);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ApiError);
        expect(error).toMatchObject({
          code: "illegal_status_transition",
          param: "status",
          status: 400,
          type: "invalid_request_error",
        });
        expect((error as ApiError).message).toContain(`${from} to ${to}`);
      });
    }
  }

  it("says Archived is final", () => {
    expect(() => assertTransition("Archived", "Draft")).toThrow(/final/);
  });

  it("never allows going back to Draft", () => {
    for (const from of EVALUATION_STATUSES)
      if (from !== "Draft") expect(() => assertTransition(from, "Draft")).toThrow(ApiError);
  });

  it("treats only Draft and Running as editable", () => {
    expect(EVALUATION_STATUSES.filter(isEditable)).toEqual(["Draft", "Running"]);
  });
});
