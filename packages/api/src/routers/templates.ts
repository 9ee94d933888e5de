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
import type { RouteMeta } from "../request/route-meta";
import { apiProcedure, router } from "../trpc/init";
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
    description: string,
    extra: Omit<RouteMeta, "openapi"> = {},
  ): RouteMeta => ({
    openapi: {
      method,
      path: `${prefix}${path}` as `/${string}`,
      tags,
      summary,
      description,
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
      .meta(
        meta("GET", "", "List templates", "The team's templates and the system ones, newest first.", {
          scope: "templates:read",
        }),
      )
      .input(TemplateListQuery)
      .output(TemplateList)
      .query(async ({ ctx, input }) => toList(ctx, await core.listTemplates(ctx.core, ctx.actor, input))),

    // POST /templates — create a template (version 1)
    create: apiProcedure
      .meta(
        meta(
          "POST",
          "",
          "Create a template",
          "Creates a template (version 1): the questions and scales raters answer.",
          {
            scope: "templates:write",
            successStatus: 201,
          },
        ),
      )
      .input(TemplateCreateInput)
      .output(Template)
      .mutation(({ ctx, input }) => core.createTemplate(ctx.core, ctx.actor, input)),

    // GET /templates/{id} — one template
    get: apiProcedure
      .meta(
        meta("GET", "/{id}", "Retrieve a template", "One template at its current version.", {
          scope: "templates:read",
        }),
      )
      .input(ById)
      .output(Template)
      .query(({ ctx, input }) => core.getTemplate(ctx.core, ctx.actor, input.id)),

    // PATCH /templates/{id} — change fields; writes the next version
    update: apiProcedure
      .meta(
        meta(
          "PATCH",
          "/{id}",
          "Update a template",
          "Changes a template's fields and writes its next version. System templates are read-only (400 `template_read_only`): duplicate one to change it.",
          {
            scope: "templates:write",
          },
        ),
      )
      .input(TemplateUpdateInput.extend({ id: IdParam }))
      .output(Template)
      .mutation(({ ctx, input: { id, ...patch } }) => core.updateTemplate(ctx.core, ctx.actor, id, patch)),

    // DELETE /templates/{id} — delete a template no evaluation uses
    delete: apiProcedure
      .meta(
        meta(
          "DELETE",
          "/{id}",
          "Delete a template",
          "Deletes a template no evaluation uses; one in use answers 400 `template_in_use`.",
          {
            scope: "templates:write",
          },
        ),
      )
      .input(ById)
      .output(DeletedObject)
      .mutation(({ ctx, input }) => core.deleteTemplate(ctx.core, ctx.actor, input.id)),

    // POST /templates/{id}/duplicate — copy a template (system ones included) into a team
    duplicate: apiProcedure
      .meta(
        meta(
          "POST",
          "/{id}/duplicate",
          "Duplicate a template",
          "Copies a template, system ones included, into a team as a new template at version 1.",
          {
            scope: "templates:write",
            successStatus: 201,
          },
        ),
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
        meta(
          "GET",
          "/{id}/versions",
          "List template versions",
          "The template's version history, newest first.",
          {
            scope: "templates:read",
          },
        ),
      )
      .input(withCursorRules(z.object({ ...PageQueryShape, id: IdParam })))
      .output(TemplateVersionList)
      .query(async ({ ctx, input: { id, ...page } }) =>
        toList(ctx, await core.listTemplateVersions(ctx.core, ctx.actor, id, page)),
      ),

    // POST /templates/{id}/revert — restore an earlier version as a new one
    revert: apiProcedure
      .meta(
        meta(
          "POST",
          "/{id}/revert",
          "Revert a template to a version",
          "Restores an earlier version's content as a new, latest version; the history is kept.",
          {
            scope: "templates:write",
            idempotent: false,
          },
        ),
      )
      .input(z.object({ id: IdParam, versionId: IdParam }).strict())
      .output(Template)
      .mutation(({ ctx, input }) => core.revertTemplate(ctx.core, ctx.actor, input.id, input.versionId)),
  });
}

export const templatesRouter = templateRoutes("/templates");
export const dimensionsRouter = templateRoutes("/dimensions");
