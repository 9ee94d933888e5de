import { router } from "../trpc/init";
import { apiKeysRouter } from "./api-keys";
import { authRouter } from "./auth";
import { evaluationsRouter } from "./evaluations";
import { ratingsRouter } from "./ratings";
import { resultsRouter } from "./results";
import { teamsRouter } from "./teams";
import { dimensionsRouter, templatesRouter } from "./templates";
import { usageRouter } from "./usage";

export const appRouter = router({
  auth: authRouter,
  apiKeys: apiKeysRouter,
  teams: teamsRouter,
  evaluations: evaluationsRouter,
  ratings: ratingsRouter,
  results: resultsRouter,
  templates: templatesRouter,
  dimensions: dimensionsRouter,
  usage: usageRouter,
});

export type AppRouter = typeof appRouter;
