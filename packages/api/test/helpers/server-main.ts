/** The web process as `pnpm start` runs it, without the dashboard: settings come from the environment. */
import { serverMain } from "../../src/server-main";

serverMain({ host: "127.0.0.1" });
