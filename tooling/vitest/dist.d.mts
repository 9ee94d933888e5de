import type { ChildProcess } from "node:child_process";

export declare const ROOT: string;
export declare const DIST: string;
export declare const DIST_SECRETS: Record<
  "OAUTH_JWT_SECRET" | "PLUGIN_JWT_SECRET" | "ENCRYPTION_KEY",
  string
>;
export declare function requireDist(): string;
export declare function freePort(): Promise<number>;

export interface DistProcess {
  child: ChildProcess;
  entry: string;
  exited: Promise<number | string | null>;
  output(): string;
}
export declare function startProcess(
  entry: "server" | "worker" | "migrate" | "admin",
  env: Record<string, string>,
  opts?: { dist?: string },
): DistProcess;
export declare function stopProcess(proc: DistProcess, graceMs?: number): Promise<number | string | null>;
export declare function waitForReady(url: string, proc: DistProcess, timeoutMs?: number): Promise<void>;

export interface Deployment {
  url: string;
  api: string;
  databaseUrl: string | undefined;
  dataDir: string;
  env: Record<string, string>;
  processes: DistProcess[];
  workerHealthUrl: string | undefined;
  output(): string;
  admin(args: string[], input?: string): { code: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}
export declare function startDeployment(opts?: {
  env?: Record<string, string>;
  worker?: boolean;
  databaseUrl?: string;
  port?: number;
}): Promise<Deployment>;
