import { baseTestConfig } from "@rubricon/vitest-config";
import { mergeConfig } from "vitest/config";

// Browser tests drive a real Chromium (axe-core alone takes seconds on a busy machine).
export default mergeConfig(baseTestConfig, { test: { testTimeout: 90_000 } });
