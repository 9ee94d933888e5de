import { router } from "../trpc/init";
import { validateSynchronously } from "../trpc/sync-validation";
import { accessRequestsRouter } from "./access-requests";
import { apiKeysRouter } from "./api-keys";
import { authRouter } from "./auth";
import { autouserRunsRouter } from "./autouser-runs";
import { autousersRouter } from "./autousers";
import { byokRouter } from "./byok";
import { conversationsRouter } from "./conversations";
import { evaluationsRouter } from "./evaluations";
import { eventsRouter } from "./events";
import { figmaRouter } from "./figma";
import { filesRouter } from "./files";
import { invitesRouter } from "./invites";
import { linkPreviewRouter } from "./link-preview";
import { notificationsRouter } from "./notifications";
import { oauthRouter } from "./oauth";
import { templateDraftsRouter } from "./prompt-drafts";
import { ratingsRouter } from "./ratings";
import { resultsRouter } from "./results";
import { sharesRouter } from "./shares";
import { teamsRouter, usersRouter } from "./teams";
import { dimensionsRouter, templatesRouter } from "./templates";
import { usageRouter } from "./usage";
import { webhooksRouter } from "./webhooks";

export const appRouter = validateSynchronously(
  router({
    auth: authRouter,
    apiKeys: apiKeysRouter,
    teams: teamsRouter,
    users: usersRouter,
    shares: sharesRouter,
    invites: invitesRouter,
    accessRequests: accessRequestsRouter,
    notifications: notificationsRouter,
    evaluations: evaluationsRouter,
    ratings: ratingsRouter,
    autouserRuns: autouserRunsRouter,
    results: resultsRouter,
    templates: templatesRouter,
    dimensions: dimensionsRouter,
    templateDrafts: templateDraftsRouter,
    autousers: autousersRouter,
    usage: usageRouter,
    oauth: oauthRouter,
    figma: figmaRouter,
    webhooks: webhooksRouter,
    byok: byokRouter,
    events: eventsRouter,
    files: filesRouter,
    linkPreview: linkPreviewRouter,
    conversations: conversationsRouter,
  }),
);

export type AppRouter = typeof appRouter;
