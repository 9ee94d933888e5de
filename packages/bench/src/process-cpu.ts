import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on Linux unless built otherwise). */
const TICKS_PER_S = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/**
 * CPU time a process has used so far, in milliseconds: user plus system time of all its threads (the event
 * loop, the garbage collector's and libuv's), as the kernel counts it (utime + stime of /proc/<pid>/stat).
 */
export function processCpuMs(pid: number): number {
  const f = statFields(pid);
  // utime and stime are fields 14 and 15 of stat(5); the slice above starts at field 3 (state).
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_S;
}

/**
 * Write system calls a process has made so far (`syscw` of /proc/<pid>/io: write, writev, send and the like on any
 * file or socket). A server's writes per request are mostly its round trips: each answer and each batch of
 * statements sent to Postgres is one or two.
 */
export function processWriteCalls(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("syscw:"));
  return line ? Number(line.slice("syscw:".length).trim()) : Number.NaN;
}

/**
 * The process of a process group whose command line contains `marker`: the server a launcher (pnpm, a shell)
 * started, found from outside. Undefined off Linux or when no such process runs.
 */
export function findProcessInGroup(groupId: number, marker: string): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      // Field 5 of stat(5) is the process group.
      if (Number(statFields(pid)[2]) !== groupId) continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (cmdline[0]?.endsWith("node") && cmdline.some((arg) => arg.includes(marker))) return pid;
    } catch {
      // the process ended while being looked at
    }
  }
  return undefined;
}
