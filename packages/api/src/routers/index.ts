import { router } from "../trpc/init";
import { validateSynchronously } from "../trpc/sync-validation";
import { apiKeysRouter } from "./api-keys";
import { authRouter } from "./auth";
import { evaluationsRouter } from "./evaluations";
import { eventsRouter } from "./events";
import { ratingsRouter } from "./ratings";
import { resultsRouter } from "./results";
import { teamsRouter } from "./teams";
import { dimensionsRouter, templatesRouter } from "./templates";
import { usageRouter } from "./usage";
import { webhooksRouter } from "./webhooks";

export const appRouter = validateSynchronously(
  router({
    auth: authRouter,
    apiKeys: apiKeysRouter,
    teams: teamsRouter,
    evaluations: evaluationsRouter,
    ratings: ratingsRouter,
    results: resultsRouter,
    templates: templatesRouter,
    dimensions: dimensionsRouter,
    usage: usageRouter,
    webhooks: webhooksRouter,
    events: eventsRouter,
  }),
);

export type AppRouter = typeof appRouter;
