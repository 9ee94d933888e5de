import type { UserConfig } from "vitest/config";
export declare const baseTestConfig: UserConfig;
export declare const redisGlobalSetup: string;
export declare function testWorkers(perCore?: number): number | undefined;
