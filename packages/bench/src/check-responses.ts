/**
 * Holds the yardstick to Rubricon's answers: the same request to both servers must come back with the same status,
 * the same headers (bar the date, request id and the window's moving counts) and the same JSON, field by field and
 * in the same order. A read of the same rows must be byte for byte the same; a create may differ only in what each
 * create draws anew (ids, share token, timestamps), which are checked for their form instead.
 */

export interface Probe {
  route: string;
  method: "GET" | "POST";
  /** Path and query under the servers' origin, e.g. `/api/v1/evaluations?limit=20`. */
  path: string;
  body?: string;
  status: number;
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  text: string;
}

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WHOLE_NUMBER = /^\d+$/;
/** Headers whose values differ by nature; only their form is compared. */
const HEADER_FORMS: Record<string, RegExp | null> = {
  date: null,
  "x-request-id": UUID_V7,
  "x-ratelimit-remaining": WHOLE_NUMBER,
  "x-ratelimit-reset": WHOLE_NUMBER,
};
const MAX_DIFFERENCES = 20;

async function ask(base: string, probe: Probe, auth: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${base}${probe.path}`, {
    method: probe.method,
    headers: probe.body ? { ...auth, "content-type": "application/json" } : auth,
    body: probe.body,
  });
  const headers = new Map<string, string>();
  for (const [name, value] of res.headers) headers.set(name.toLowerCase(), value);
  return { status: res.status, headers, text: await res.text() };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  const s = JSON.stringify(v);
  return s === undefined ? "(absent)" : s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

/** Differences between two JSON values, path by path, including the order of an object's fields. */
export function jsonDifferences(a: unknown, b: unknown, path = "body", out: string[] = []): string[] {
  if (out.length >= MAX_DIFFERENCES) return out;
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join(",") !== kb.join(",")) out.push(`${path}: fields [${ka.join(", ")}] vs [${kb.join(", ")}]`);
    for (const k of ka) if (k in b) jsonDifferences(a[k], b[k], `${path}.${k}`, out);
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.push(`${path}: ${a.length} items vs ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) jsonDifferences(a[i], b[i], `${path}[${i}]`, out);
    return out;
  }
  if (a !== b) out.push(`${path}: ${show(a)} vs ${show(b)}`);
  return out;
}

/**
 * A created object with what each create draws anew replaced by placeholders, once its form is right: its id and
 * share token (also inside its links) and its timestamps.
 */
function withoutDrawnValues(value: unknown, problems: string[], label: string): unknown {
  if (!isObject(value)) return value;
  const id = typeof value.id === "string" ? value.id : "";
  const token = typeof value.shareToken === "string" ? value.shareToken : "";
  if (!/^eval_[a-z][a-z0-9]{23}$/.test(id))
    problems.push(`${label}: id ${show(value.id)} is not an evaluation id`);
  if (!/^[\w-]{24}$/.test(token))
    problems.push(`${label}: shareToken ${show(value.shareToken)} is malformed`);
  const replace = (v: unknown, key: string): unknown => {
    if (typeof v === "string") {
      if (key === "createdAt" || key === "updatedAt") {
        if (!ISO_TIME.test(v)) problems.push(`${label}: ${key} ${show(v)} is not an ISO time`);
        return "<time>";
      }
      return v.split(id).join("<id>").split(token).join("<shareToken>");
    }
    if (Array.isArray(v)) return v.map((item) => replace(item, ""));
    if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, replace(item, k)]));
    return v;
  };
  return replace(value, "");
}

function headerDifferences(route: string, a: Answer, b: Answer): string[] {
  const out: string[] = [];
  const names = [...new Set([...a.headers.keys(), ...b.headers.keys()])];
  for (const name of names) {
    const va = a.headers.get(name);
    const vb = b.headers.get(name);
    if (va === undefined || vb === undefined) {
      out.push(`${route}: header ${name} only on ${va === undefined ? "the yardstick" : "Rubricon"}`);
      continue;
    }
    const form = HEADER_FORMS[name];
    if (form !== undefined) {
      if (form && !(form.test(va) && form.test(vb))) out.push(`${route}: header ${name}: ${va} vs ${vb}`);
      continue;
    }
    // Content-Length too: a create's drawn values (ids, token, times) have fixed lengths.
    if (va !== vb) out.push(`${route}: header ${name}: ${va} vs ${vb}`);
  }
  return out;
}

/**
 * Sends every probe to Rubricon and then to the yardstick (reads before writes, in the order given) and answers
 * the differences found; an empty answer means the yardstick answers as Rubricon does.
 */
export async function compareResponses(
  rubriconUrl: string,
  yardstickUrl: string,
  auth: Record<string, string>,
  probes: Probe[],
): Promise<string[]> {
  const out: string[] = [];
  for (const probe of probes) {
    const a = await ask(rubriconUrl, probe, auth);
    const b = await ask(yardstickUrl, probe, auth);
    const route = probe.route;
    if (a.status !== probe.status || b.status !== probe.status) {
      out.push(
        `${route}: status ${a.status} vs ${b.status} (expected ${probe.status}); ` +
          `Rubricon: ${a.text.slice(0, 200)} yardstick: ${b.text.slice(0, 200)}`,
      );
      continue;
    }
    const created = probe.method === "POST";
    out.push(...headerDifferences(route, a, b));
    let ja: unknown;
    let jb: unknown;
    try {
      ja = JSON.parse(a.text);
      jb = JSON.parse(b.text);
    } catch {
      out.push(`${route}: a body is not JSON`);
      continue;
    }
    if (created) {
      ja = withoutDrawnValues(ja, out, `${route} on Rubricon`);
      jb = withoutDrawnValues(jb, out, `${route} on the yardstick`);
    }
    const fields = jsonDifferences(ja, jb, "body");
    out.push(...fields.map((d) => `${route}: ${d}`));
    if (!created && fields.length === 0 && a.text !== b.text)
      out.push(`${route}: the same fields, but the bytes differ (${a.text.length} vs ${b.text.length})`);
  }
  return out;
}
