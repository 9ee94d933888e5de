import { router } from "../trpc/init";
import { apiKeysRouter } from "./api-keys";
import { authRouter } from "./auth";
import { evaluationsRouter } from "./evaluations";
import { teamsRouter } from "./teams";

export const appRouter = router({
  auth: authRouter,
  apiKeys: apiKeysRouter,
  teams: teamsRouter,
  evaluations: evaluationsRouter,
});

export type AppRouter = typeof appRouter;
