import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HERE = dirname(fileURLToPath(import.meta.url));
const COUNT = 30_000;

/** The child's stdout, read only after it has filled the pipe many times over. */
async function linesOf(ending: "return" | "exit"): Promise<{ i: number; msg: string }[]> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(HERE, "helpers/log-lines-main.ts"), String(COUNT), ending],
    { cwd: join(HERE, ".."), stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.pause();
  const chunks: Buffer[] = [];
  setTimeout(() => {
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stdout.resume();
  }, 1_500);
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return Buffer.concat(chunks)
    .toString("utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
}

// JSON lines leave once per event-loop turn; a reader that falls behind must cost neither a line nor their order.
describe("log lines on stdout", () => {
  for (const ending of ["return", "exit"] as const) {
    it(`reach a slow reader whole and in order (process ${ending === "exit" ? "exits" : "ends on its own"})`, async () => {
      const lines = await linesOf(ending);
      expect(lines).toHaveLength(COUNT + 10);
      expect(lines.every((line, index) => line.i === index)).toBe(true);
      expect(lines[0]!.msg).toBe("line");
      expect(lines.at(-1)!.msg).toBe("later");
    }, 60_000);
  }
});
