import type { AutouserDraft, ConversationDrafts, DraftIssue, TemplateDraft } from "@rubricon/contracts";
import { DRAFT_MAX_ITEMS, MESSAGE_LIMITS } from "@rubricon/contracts";

/** What the builder may choose from: the templates and personas the team can use. */
export interface BuilderCatalog {
  templates: { id: string; name: string }[];
  personas: {
    id: string;
    name: string;
    description: string;
    deviceKind: "desktop" | "mobile";
    accessibilityNeeds: string[];
    expertise: "novice" | "intermediate" | "expert";
  }[];
}

export interface RuleBuilderResult {
  drafts: ConversationDrafts;
  /** Plain sentences of what was read from the message. */
  understood: string[];
}

const DEFAULT_TEMPLATE_REASON = "No quality was named, so overall quality.";
const URL_PATTERN = /https?:\/\/[^\s<>"'`)\]]+/gi;
const SIDE_BY_SIDE =
  /\b(side[-\s]by[-\s]side|compare[sd]?|comparing|comparison|versus|vs\.?|a\/b|ab test|against|sxs)\b/i;
const SINGLE =
  /\b(single[-\s]stimulus|single design|one design|on its own|rate (?:this|the) (?:page|design)|sse)\b/i;

interface Quality {
  pattern: RegExp;
  label: string;
  templateId?: string;
  /** A template the catalog lacks, drafted new. */
  create?: { name: string; description: string; guidelines: string; icon: string };
}

const QUALITIES: Quality[] = [
  { pattern: /\b(accessib\w*|a11y|wcag|contrast)\b/i, label: "accessibility", templateId: "accessibility" },
  {
    pattern: /\b(clarity|clear(?:er|ly)?|wording|copy|understandable|content)\b/i,
    label: "clarity",
    templateId: "content",
  },
  {
    pattern: /\b(usab\w*|ease of use|easy|easier|friction|effort)\b/i,
    label: "ease of use",
    templateId: "usability",
  },
  {
    pattern: /\b(visual\w*|look(?:s)?|aesthetic\w*|polish\w*|layout)\b/i,
    label: "visual design",
    templateId: "visual-design",
  },
  {
    pattern: /\b(trust\w*|credib\w*|confiden\w*|secure|safe to pay)\b/i,
    label: "trust",
    create: {
      name: "Trust",
      description: "Whether the design makes people confident enough to go ahead.",
      guidelines:
        "Rate how far the design earns trust: clear prices and fees, recognisable payment and security signals, no surprises, and a way back.",
      icon: "shield",
    },
  },
];

interface Audience {
  pattern: RegExp;
  label: string;
  matches: (p: BuilderCatalog["personas"][number]) => boolean;
}

const AUDIENCES: Audience[] = [
  {
    pattern: /\b(mobile|phone|smartphone|iphone|android)\b/i,
    label: "mobile users",
    matches: (p) => p.deviceKind === "mobile",
  },
  {
    pattern: /\b(screen[-\s]?readers?|blind|visually impaired|low vision)\b/i,
    label: "screen reader users",
    matches: (p) => p.accessibilityNeeds.some((n) => /screen|reader|blind|vision/i.test(n)),
  },
  {
    pattern:
      /\b(first[-\s]time|new (?:users?|customers?|shoppers?|visitors?)|novices?|beginners?|newcomers?)\b/i,
    label: "first-time users",
    matches: (p) => p.expertise === "novice",
  },
  {
    pattern: /\b(older|elderly|seniors?|aged \d\d\+?|retirees?)\b/i,
    label: "older people",
    matches: (p) => /\b(older|elderly|senior|retire|6\d|7\d)\b/i.test(`${p.name} ${p.description}`),
  },
  {
    pattern: /\b(experts?|power users?|professionals?)\b/i,
    label: "expert users",
    matches: (p) => p.expertise === "expert",
  },
];

function urlsOf(text: string, attached: string[]): string[] {
  const found = [...(text.match(URL_PATTERN) ?? [])].map((u) => u.replace(/[.,;:!?]+$/, ""));
  return [...new Set([...found, ...attached])].filter((u) => {
    try {
      return ["http:", "https:"].includes(new URL(u).protocol) && u.length <= 2048;
    } catch {
      return false;
    }
  });
}

/** The evaluation's name from the request: its first sentence without links, capitalised and short. */
function nameFrom(text: string): string | undefined {
  const plain = text.replace(URL_PATTERN, "").replace(/\s+/g, " ").trim();
  const sentence = plain.split(/(?<=[.!?])\s/)[0]?.replace(/[.!?:,;\s]+$/, "") ?? "";
  if (sentence.length < 3) return undefined;
  const short = sentence.length > 80 ? `${sentence.slice(0, 77).replace(/\s+\S*$/, "")}...` : sentence;
  return short[0]!.toUpperCase() + short.slice(1);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40);
}

function list(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Adds the designs to the drafted evaluation, as single designs or as pairs of current and variant. */
function addDesigns(drafts: ConversationDrafts, urls: string[], understood: string[]): void {
  const e = drafts.evaluation;
  if (urls.length === 0) return;
  if (e.type === "SxS") {
    const pairs = [...(e.comparisonPairs ?? [])];
    // A pair left with one side waits for its variant: the next URL completes it.
    const pending = [...urls];
    while (pending.length >= 2 && pairs.length < MESSAGE_LIMITS.designUrls) {
      const currentUrl = pending.shift()!;
      const variantUrl = pending.shift()!;
      pairs.push({ currentUrl, variantUrl });
      understood.push(
        `Pair ${pairs.length}: ${currentUrl} (current, side A) against ${variantUrl} (variant, side B).`,
      );
    }
    e.comparisonPairs = pairs;
    if (pending.length === 1) {
      e.designUrls = [{ url: pending[0]!, stimulusType: "URL" }];
      understood.push(
        `${pending[0]} is one side of a comparison; I still need the design to compare it with.`,
      );
    } else {
      delete e.designUrls;
    }
    return;
  }
  const designs = [...(e.designUrls ?? [])];
  for (const url of urls) {
    if (designs.length >= MESSAGE_LIMITS.designUrls) break;
    if (!designs.some((d) => d.url === url)) designs.push({ url, stimulusType: "URL" });
  }
  e.designUrls = designs;
  understood.push(`Designs to rate: ${list(urls)}.`);
}

/**
 * The deterministic builder used when the team has no model: it reads links, the kind of evaluation, the
 * audience and the qualities to judge from the message and fills the drafts from the system templates and
 * personas. It adds to what earlier messages drafted and never removes anything.
 */
export function buildDraftsFromMessage(
  text: string,
  attachedDesignUrls: string[],
  current: ConversationDrafts,
  catalog: BuilderCatalog,
): RuleBuilderResult {
  const drafts: ConversationDrafts = structuredClone(current);
  const e = drafts.evaluation;
  const understood: string[] = [];
  const urls = urlsOf(text, attachedDesignUrls);

  const wantsSxS = SIDE_BY_SIDE.test(text);
  const wantsSingle = SINGLE.test(text);
  if (wantsSxS && !wantsSingle) {
    if (e.type !== "SxS") {
      // Designs listed before the comparison was asked for become the first sides of pairs.
      const earlier = (e.designUrls ?? []).flatMap((d) => (d.url ? [d.url] : []));
      e.type = "SxS";
      delete e.designUrls;
      urls.unshift(...earlier.filter((u) => !urls.includes(u)));
    }
    understood.push("A side-by-side comparison: raters see two designs and say which is better (-3 to +3).");
  } else if (wantsSingle || (e.type === undefined && urls.length > 0)) {
    if (e.type !== "SSE") {
      e.type = "SSE";
      delete e.comparisonPairs;
    }
    understood.push("A single-design evaluation: raters score each design on its own.");
  }
  // The half pair of an earlier message is completed by the first new link.
  if (e.type === "SxS" && e.designUrls?.length === 1 && urls.length > 0) {
    urls.unshift(e.designUrls[0]!.url!);
    delete e.designUrls;
  }
  addDesigns(drafts, [...new Set(urls)], understood);

  if (e.name === undefined) {
    const name = nameFrom(text);
    if (name) {
      e.name = name;
      understood.push(`Name: "${name}".`);
    }
  }
  if (e.scenario === undefined || e.scenario === null) {
    const scenario = text.replace(/\s+/g, " ").trim().slice(0, 8000);
    if (scenario) e.scenario = scenario;
  }

  const qualities = QUALITIES.filter((q) => q.pattern.test(text));
  // The fallback of an earlier message gives way once a quality is named.
  if (qualities.length > 0)
    drafts.templates = drafts.templates.filter((t) => t.reason !== DEFAULT_TEMPLATE_REASON);
  for (const q of qualities) {
    if (drafts.templates.length >= DRAFT_MAX_ITEMS) break;
    const systemId =
      q.templateId && catalog.templates.some((t) => t.id === q.templateId) ? q.templateId : undefined;
    const ref = systemId ?? slug(q.create?.name ?? q.label);
    if (drafts.templates.some((t) => t.ref === ref)) continue;
    let draft: TemplateDraft;
    if (systemId) {
      draft = { ref, templateId: systemId, reason: `You asked about ${q.label}.` };
      const name = catalog.templates.find((t) => t.id === systemId)!.name;
      understood.push(`Judge ${q.label} with the system template "${name}".`);
    } else if (q.create) {
      draft = {
        ref,
        template: {
          name: q.create.name,
          description: q.create.description,
          guidelines: q.create.guidelines,
          icon: q.create.icon,
          type: e.type === "SSE" ? "TEXT_SSE" : "TEXT_SXS",
          scaleType: "SEVEN_POINT",
          scaleMin: 1,
          scaleMax: 7,
          contexts: ["ui-ux"],
        },
        reason: `You asked about ${q.label}, and no system template covers it.`,
      };
      understood.push(
        `Judge ${q.label} with a new template, "${q.create.name}" (no system template covers it).`,
      );
    } else continue;
    drafts.templates.push(draft);
  }
  if (drafts.templates.length === 0 && catalog.templates.some((t) => t.id === "overall")) {
    drafts.templates.push({
      ref: "overall",
      templateId: "overall",
      reason: "No quality was named, so overall quality.",
    });
    understood.push('No particular quality was named, so raters judge "Overall quality".');
  }

  for (const audience of AUDIENCES.filter((a) => a.pattern.test(text))) {
    const persona = catalog.personas.find(audience.matches);
    if (!persona) {
      understood.push(
        `You mentioned ${audience.label}, but no persona for them is available; human raters can cover them.`,
      );
      continue;
    }
    if (
      drafts.autousers.some((a) => a.autouserId === persona.id) ||
      drafts.autousers.length >= DRAFT_MAX_ITEMS
    ) {
      continue;
    }
    const draft: AutouserDraft = {
      ref: slug(persona.name) || slug(persona.id),
      autouserId: persona.id,
      agentCount: 1,
      reason: `Stands in for ${audience.label}.`,
    };
    if (drafts.autousers.some((a) => a.ref === draft.ref)) draft.ref = slug(persona.id);
    drafts.autousers.push(draft);
    understood.push(`Autouser "${persona.name}" rates as one of the ${audience.label}.`);
  }
  if (drafts.autousers.length > 0 && (e.evaluationMethod === undefined || e.evaluationMethod === "manual")) {
    e.evaluationMethod = "both";
    understood.push("Both human raters and autousers rate it.");
  }
  return { drafts, understood };
}

function needFor(issue: DraftIssue): string {
  const p = issue.param;
  if (p === "evaluation.type")
    return "whether to compare two designs side by side or rate each design on its own";
  if (p === "evaluation.name") return "a name for the evaluation";
  if (p === "evaluation.designUrls") return "the link of at least one design to rate";
  if (p === "evaluation.comparisonPairs")
    return "the links of both designs to compare (the current one and the new one)";
  return `${p}: ${issue.message}`;
}

/** The reply of the rule-based builder: what it understood, then what it still needs, in plain words. */
export function ruleBuilderReply(understood: string[], issues: DraftIssue[]): string {
  const lines: string[] = [];
  lines.push(
    understood.length > 0
      ? `Here is what I understood:\n${understood.map((u) => `- ${u}`).join("\n")}`
      : "I could not find a design link, a kind of evaluation, an audience or a quality to judge in that message.",
  );
  if (issues.length === 0) {
    lines.push("The drafts are complete. Review them, then create the evaluation (it starts as a Draft).");
  } else {
    const needs = [...new Set(issues.map(needFor))];
    lines.push(`What I still need:\n${needs.map((n) => `- ${n}`).join("\n")}`);
  }
  lines.push("(No AI model is configured for this team, so these drafts come from the rule-based builder.)");
  return lines.join("\n\n");
}
