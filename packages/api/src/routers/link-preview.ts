import { LinkPreview, LinkPreviewQuery } from "@rubricon/contracts";
import { LinkPreviewer } from "@rubricon/core";
import type { AppServices } from "../request/context";
import { apiProcedure, router } from "../trpc/init";

/** One previewer (and its hour-long cache) per app instance. */
const previewers = new WeakMap<AppServices, LinkPreviewer>();

function previewerFor(services: AppServices): LinkPreviewer {
  let previewer = previewers.get(services);
  if (!previewer) {
    previewer = new LinkPreviewer({
      allowPrivate: services.env.webhooksAllowPrivateUrls,
      clock: services.clock,
    });
    previewers.set(services, previewer);
  }
  return previewer;
}

export const linkPreviewRouter = router({
  // GET /link-preview?url= — title, description, image and site name of a public page
  get: apiProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/link-preview",
        tags: ["Link Preview"],
        summary: "Preview a link",
        description:
          "Reads a public page's Open Graph and HTML meta (for design-tool links). Pages on private or loopback " +
          "addresses are refused, redirects are checked the same way, and the fetch stops after 5 s or 1 MB. " +
          "A URL's preview is kept for an hour.",
      },
      scope: "evaluations:read",
      // Each miss costs an outbound fetch of up to five seconds.
      routeLimit: { key: "user", limit: 60, windowSec: 60, bucket: "link-preview" },
    })
    .input(LinkPreviewQuery)
    .output(LinkPreview)
    .query(({ ctx, input }) => previewerFor(ctx.services).preview(input.url)),
});
