import { readFileSync } from "node:fs";
import { qualityV2 } from "./src/judge/v2";
const caps = JSON.parse(readFileSync(process.argv[2]!, "utf8")).captures;
const key = process.argv[3]!;
for (const k of Object.keys(caps).filter((k) => k.includes(key))) {
  const p = { accessibilityNeeds: [], device: { kind: "desktop", viewport: { width: 1280, height: 800 }, network: "fast" }, expertise: "novice" };
  const q = qualityV2(caps[k].signals, { sourceBuiltInId: "overall" }, p as never);
  console.log(k, q.quality, q.base, q.gates.map((g) => `${g.name} ${g.factor}`).join(", "));
}
