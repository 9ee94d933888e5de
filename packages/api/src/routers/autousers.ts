import {
  Autouser,
  AutouserCreateInput,
  AutouserDuplicateInput,
  AutouserList,
  AutouserListQuery,
  AutouserRubric,
  AutouserRubricCreateInput,
  AutouserRubricList,
  AutouserRubricUpdateInput,
  AutouserUpdateInput,
  DeletedObject,
  IdParam,
  PageQueryShape,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import type { RouteMeta } from "../request/route-meta";
import { apiProcedure, router } from "../trpc/init";
import { toList } from "./list";
import { autouserPromptDraft } from "./prompt-drafts";

const ById = z.object({ id: IdParam });
const ByRubric = z.object({ id: IdParam, rubricId: IdParam });

const meta = (
  method: "GET" | "POST" | "PATCH" | "DELETE",
  path: string,
  summary: string,
  description: string,
  extra: Omit<RouteMeta, "openapi">,
): RouteMeta => ({
  openapi: { method, path: `/autousers${path}` as `/${string}`, tags: ["Autousers"], summary, description },
  ...extra,
});

export const autousersRouter = router({
  draftFromPrompt: autouserPromptDraft,

  // GET /autousers — the team's autousers and the system personas
  list: apiProcedure
    .meta(
      meta("GET", "", "List autousers", "The team's autousers and the system personas, newest first.", {
        scope: "autousers:read",
      }),
    )
    .input(AutouserListQuery)
    .output(AutouserList)
    .query(async ({ ctx, input }) => toList(ctx, await core.listAutousers(ctx.core, ctx.actor, input))),

  // POST /autousers — create a persona in a team
  create: apiProcedure
    .meta(
      meta(
        "POST",
        "",
        "Create an autouser",
        "Creates an autouser: a persona (role, goals, traits, expertise, accessibility needs) that rates evaluations as a simulated rater.",
        { scope: "autousers:write", successStatus: 201 },
      ),
    )
    .input(AutouserCreateInput)
    .output(Autouser)
    .mutation(({ ctx, input }) => core.createAutouser(ctx.core, ctx.actor, input)),

  // GET /autousers/{id}
  get: apiProcedure
    .meta(
      meta("GET", "/{id}", "Retrieve an autouser", "One autouser with its persona and device settings.", {
        scope: "autousers:read",
      }),
    )
    .input(ById)
    .output(Autouser)
    .query(({ ctx, input }) => core.getAutouser(ctx.core, ctx.actor, input.id)),

  // PATCH /autousers/{id} — system personas are read-only
  update: apiProcedure
    .meta(
      meta(
        "PATCH",
        "/{id}",
        "Update an autouser",
        "Changes an autouser's fields. System personas are read-only (400 `autouser_read_only`): duplicate one to change it.",
        { scope: "autousers:write" },
      ),
    )
    .input(AutouserUpdateInput.extend({ id: IdParam }))
    .output(Autouser)
    .mutation(({ ctx, input: { id, ...patch } }) => core.updateAutouser(ctx.core, ctx.actor, id, patch)),

  // DELETE /autousers/{id} — refused while a Draft or Running evaluation selects it
  delete: apiProcedure
    .meta(
      meta(
        "DELETE",
        "/{id}",
        "Delete an autouser",
        "Deletes an autouser and its rubrics. Refused with 400 `autouser_in_use` while a Draft or Running evaluation selects it.",
        { scope: "autousers:write" },
      ),
    )
    .input(ById)
    .output(DeletedObject)
    .mutation(({ ctx, input }) => core.deleteAutouser(ctx.core, ctx.actor, input.id)),

  // POST /autousers/{id}/duplicate — copy a persona (system ones included) and its rubrics into a team
  duplicate: apiProcedure
    .meta(
      meta(
        "POST",
        "/{id}/duplicate",
        "Duplicate an autouser",
        "Copies an autouser, system personas included, and its rubrics into a team.",
        {
          scope: "autousers:write",
          successStatus: 201,
        },
      ),
    )
    .input(AutouserDuplicateInput.extend({ id: IdParam }))
    .output(Autouser)
    .mutation(({ ctx, input: { id, ...rest } }) => core.duplicateAutouser(ctx.core, ctx.actor, id, rest)),

  // GET /autousers/{id}/rubrics — every version, newest first
  rubrics: apiProcedure
    .meta(
      meta(
        "GET",
        "/{id}/rubrics",
        "List an autouser's rubrics",
        "Every version of the autouser's rubrics, newest first.",
        { scope: "autousers:read" },
      ),
    )
    .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
    .output(AutouserRubricList)
    .query(async ({ ctx, input: { id, ...page } }) =>
      toList(ctx, await core.listAutouserRubrics(ctx.core, ctx.actor, id, page)),
    ),

  // POST /autousers/{id}/rubrics — how the persona rates one template (version 1)
  createRubric: apiProcedure
    .meta(
      meta(
        "POST",
        "/{id}/rubrics",
        "Create a rubric",
        "Creates a rubric (version 1): how the persona rates one template.",
        { scope: "autousers:write", successStatus: 201 },
      ),
    )
    .input(AutouserRubricCreateInput.extend({ id: IdParam }))
    .output(AutouserRubric)
    .mutation(({ ctx, input: { id, ...body } }) => core.createAutouserRubric(ctx.core, ctx.actor, id, body)),

  // GET /autousers/{id}/rubrics/{rubricId}
  getRubric: apiProcedure
    .meta(
      meta("GET", "/{id}/rubrics/{rubricId}", "Retrieve a rubric", "One rubric version of the autouser.", {
        scope: "autousers:read",
      }),
    )
    .input(ByRubric)
    .output(AutouserRubric)
    .query(({ ctx, input }) => core.getAutouserRubric(ctx.core, ctx.actor, input.id, input.rubricId)),

  // PATCH /autousers/{id}/rubrics/{rubricId} — a frozen rubric answers its next version
  updateRubric: apiProcedure
    .meta(
      meta(
        "PATCH",
        "/{id}/rubrics/{rubricId}",
        "Update a rubric",
        "Changes a rubric. A frozen (calibrated) rubric is kept as it was: the change is written as its next version, which the answer holds.",
        { scope: "autousers:write" },
      ),
    )
    .input(AutouserRubricUpdateInput.extend({ id: IdParam, rubricId: IdParam }))
    .output(AutouserRubric)
    .mutation(({ ctx, input: { id, rubricId, ...patch } }) =>
      core.updateAutouserRubric(ctx.core, ctx.actor, id, rubricId, patch),
    ),
});
