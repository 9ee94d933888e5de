import { baseTestConfig } from "@rubricon/vitest-config";

export default baseTestConfig;
