import { router } from "../trpc/init";
import { apiKeysRouter } from "./api-keys";
import { authRouter } from "./auth";
import { evaluationsRouter } from "./evaluations";
import { teamsRouter } from "./teams";
import { dimensionsRouter, templatesRouter } from "./templates";

export const appRouter = router({
  auth: authRouter,
  apiKeys: apiKeysRouter,
  teams: teamsRouter,
  evaluations: evaluationsRouter,
  templates: templatesRouter,
  dimensions: dimensionsRouter,
});

export type AppRouter = typeof appRouter;
