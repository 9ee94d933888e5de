import { spawnSync } from "node:child_process";

/** Runs git with paths printed as they are; answers its exit status and output. */
export function git(cwd: string, args: string[]): { status: number; stdout: string; stderr: string } {
  const result = spawnSync("git", ["-c", "core.quotePath=false", ...args], { cwd, encoding: "utf8" });
  if (result.error) throw result.error;
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}
