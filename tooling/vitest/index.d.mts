import type { UserConfig } from "vitest/config";
export declare const baseTestConfig: UserConfig;
export declare const redisGlobalSetup: string;
