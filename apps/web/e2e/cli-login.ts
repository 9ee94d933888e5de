import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { expect } from "@playwright/test";

export interface CliLogin {
  /** The sign-in address the CLI printed (the authorization request, with PKCE). */
  address: string;
  /** The CLI's exit code, once it has its tokens (or gave up). */
  exited: Promise<number>;
  stdout(): string;
}

/**
 * Starts `rubricon login --no-browser …` (the installed bin, or `node rubricon.js`) and reads the sign-in address
 * it prints; the test then plays the browser's part on the consent page.
 */
export async function startCliLogin(
  command: string,
  opts: { prefix?: string[]; options?: string[]; env: NodeJS.ProcessEnv },
): Promise<CliLogin> {
  const child = spawn(command, [...(opts.prefix ?? []), "login", "--no-browser", ...(opts.options ?? [])], {
    env: opts.env,
  });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  const exited = new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? -1)));
  const lines = createInterface({ input: child.stderr })[Symbol.asyncIterator]();
  let address = "";
  while (!address) {
    const next = await lines.next();
    if (next.done) throw new Error("rubricon login ended without printing the sign-in address");
    if (String(next.value).startsWith("http")) address = String(next.value);
  }
  expect(new URL(address).searchParams.get("code_challenge_method")).toBe("S256");
  return { address, exited, stdout: () => stdout };
}
