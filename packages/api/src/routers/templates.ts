import {
  DeletedObject,
  IdParam,
  PageQueryShape,
  Template,
  TemplateCreateInput,
  TemplateList,
  TemplateListQuery,
  TemplateUpdateInput,
  TemplateVersionList,
  withCursorRules,
} from "@rubricon/contracts";
import * as core from "@rubricon/core";
import { z } from "zod";
import { apiProcedure, type RouteMeta, router } from "../trpc/init";
import { toList } from "./list";

/** `/dimensions` is the legacy name of `/templates`; it answers the same until its sunset, then 410. */
export const DIMENSIONS_SUNSET = new Date("2027-04-04T00:00:00Z");

const ById = z.object({ id: IdParam });

/**
 * The template routes under one prefix. Mounted twice: `/templates`, and `/dimensions` with deprecation meta, so
 * the alias is the same code and its deprecation is one line of meta.
 */
function templateRoutes(prefix: "/templates" | "/dimensions") {
  const deprecated = prefix === "/dimensions";
  const tags = [deprecated ? "Dimensions (deprecated)" : "Templates"];
  const meta = (
    method: "GET" | "POST" | "PATCH" | "DELETE",
    path: string,
    summary: string,
    extra: Omit<RouteMeta, "openapi"> = {},
  ): RouteMeta => ({
    openapi: {
      method,
      path: `${prefix}${path}` as `/${string}`,
      tags,
      summary,
      ...(deprecated ? { deprecated: true } : {}),
    },
    ...extra,
    ...(deprecated
      ? {
          deprecation: {
            sunset: DIMENSIONS_SUNSET,
            successor: `/templates${path}`,
          },
        }
      : {}),
  });

  return router({
    // GET /templates — the team's templates and the system ones
    list: apiProcedure
      .meta(meta("GET", "", "List templates", { scope: "templates:read" }))
      .input(TemplateListQuery)
      .output(TemplateList)
      .query(async ({ ctx, input }) => toList(ctx, await core.listTemplates(ctx.core, ctx.actor, input))),

    // POST /templates — create a template (version 1)
    create: apiProcedure
      .meta(
        meta("POST", "", "Create a template", {
          scope: "templates:write",
          successStatus: 201,
        }),
      )
      .input(TemplateCreateInput)
      .output(Template)
      .mutation(({ ctx, input }) => core.createTemplate(ctx.core, ctx.actor, input)),

    // GET /templates/{id} — one template
    get: apiProcedure
      .meta(
        meta("GET", "/{id}", "Retrieve a template", {
          scope: "templates:read",
        }),
      )
      .input(ById)
      .output(Template)
      .query(({ ctx, input }) => core.getTemplate(ctx.core, ctx.actor, input.id)),

    // PATCH /templates/{id} — change fields; writes the next version
    update: apiProcedure
      .meta(
        meta("PATCH", "/{id}", "Update a template", {
          scope: "templates:write",
        }),
      )
      .input(TemplateUpdateInput.extend({ id: IdParam }))
      .output(Template)
      .mutation(({ ctx, input: { id, ...patch } }) => core.updateTemplate(ctx.core, ctx.actor, id, patch)),

    // DELETE /templates/{id} — delete a template no evaluation uses
    delete: apiProcedure
      .meta(
        meta("DELETE", "/{id}", "Delete a template", {
          scope: "templates:write",
        }),
      )
      .input(ById)
      .output(DeletedObject)
      .mutation(({ ctx, input }) => core.deleteTemplate(ctx.core, ctx.actor, input.id)),

    // POST /templates/{id}/duplicate — copy a template (system ones included) into a team
    duplicate: apiProcedure
      .meta(
        meta("POST", "/{id}/duplicate", "Duplicate a template", {
          scope: "templates:write",
          successStatus: 201,
        }),
      )
      .input(
        z
          .object({
            id: IdParam,
            teamId: IdParam.optional(),
            name: z.string().trim().min(1).max(200).optional(),
          })
          .strict(),
      )
      .output(Template)
      .mutation(({ ctx, input: { id, ...rest } }) => core.duplicateTemplate(ctx.core, ctx.actor, id, rest)),

    // GET /templates/{id}/versions — the version history, newest first
    versions: apiProcedure
      .meta(
        meta("GET", "/{id}/versions", "List template versions", {
          scope: "templates:read",
        }),
      )
      .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
      .output(TemplateVersionList)
      .query(async ({ ctx, input: { id, ...page } }) =>
        toList(ctx, await core.listTemplateVersions(ctx.core, ctx.actor, id, page)),
      ),

    // POST /templates/{id}/revert — restore an earlier version as a new one
    revert: apiProcedure
      .meta(
        meta("POST", "/{id}/revert", "Revert a template to a version", {
          scope: "templates:write",
          idempotent: false,
        }),
      )
      .input(z.object({ id: IdParam, versionId: IdParam }).strict())
      .output(Template)
      .mutation(({ ctx, input }) => core.revertTemplate(ctx.core, ctx.actor, input.id, input.versionId)),
  });
}

export const templatesRouter = templateRoutes("/templates");
export const dimensionsRouter = templateRoutes("/dimensions");
