import { type ConversationDrafts, EMPTY_DRAFTS } from "@rubricon/contracts";
import { describe, expect, it } from "vitest";
import { type BuilderCatalog, buildDraftsFromMessage, ruleBuilderReply } from "./rule-builder";

const catalog: BuilderCatalog = {
  templates: [
    { id: "overall", name: "Overall quality" },
    { id: "usability", name: "Usability" },
    { id: "visual-design", name: "Visual design" },
    { id: "accessibility", name: "Accessibility" },
    { id: "content", name: "Content" },
  ],
  personas: [
    {
      id: "auto_mobile",
      name: "Mobile shopper",
      description: "Shops on the bus",
      deviceKind: "mobile",
      accessibilityNeeds: [],
      expertise: "intermediate",
    },
    {
      id: "auto_sr",
      name: "Screen reader user",
      description: "Blind since birth",
      deviceKind: "desktop",
      accessibilityNeeds: ["screen-reader"],
      expertise: "expert",
    },
    {
      id: "auto_new",
      name: "First-timer",
      description: "Never used the site",
      deviceKind: "desktop",
      accessibilityNeeds: [],
      expertise: "novice",
    },
    {
      id: "auto_old",
      name: "Retired teacher",
      description: "An older reader, 72, cautious online",
      deviceKind: "desktop",
      accessibilityNeeds: ["low-vision"],
      expertise: "intermediate",
    },
  ],
};

interface Case {
  message: string;
  urls?: string[];
  expected: {
    type?: "SSE" | "SxS";
    designUrls?: string[];
    pairs?: [string, string][];
    templates: string[];
    autousers: string[];
    method?: string;
  };
}

const CASES: Case[] = [
  {
    message:
      "Compare the new checkout with the old one for first-time mobile shoppers: https://x.test/old https://x.test/new",
    expected: {
      type: "SxS",
      pairs: [["https://x.test/old", "https://x.test/new"]],
      templates: ["overall"],
      autousers: ["auto_mobile", "auto_new"],
      method: "both",
    },
  },
  {
    message: "A/B test of the pricing page, is it clear? https://a.test/p1, https://a.test/p2.",
    expected: {
      type: "SxS",
      pairs: [["https://a.test/p1", "https://a.test/p2"]],
      templates: ["content"],
      autousers: [],
    },
  },
  {
    message: "Rate the onboarding for accessibility with screen reader users and older people",
    urls: ["https://o.test/start"],
    expected: {
      type: "SSE",
      designUrls: ["https://o.test/start"],
      templates: ["accessibility"],
      autousers: ["auto_sr", "auto_old"],
      method: "both",
    },
  },
  {
    message:
      "Side by side: does the redesign feel more trustworthy and look better? https://t.test/a vs https://t.test/b",
    expected: {
      type: "SxS",
      pairs: [["https://t.test/a", "https://t.test/b"]],
      templates: ["visual-design", "Trust"],
      autousers: [],
    },
  },
  {
    message: "Is https://e.test/home easy to use?",
    expected: { type: "SSE", designUrls: ["https://e.test/home"], templates: ["usability"], autousers: [] },
  },
  {
    message: "hello there",
    expected: { templates: ["overall"], autousers: [] },
  },
];

function summary(drafts: ConversationDrafts) {
  const e = drafts.evaluation;
  return {
    type: e.type,
    designUrls: e.designUrls?.map((d) => d.url),
    pairs: e.comparisonPairs?.map((p) => [p.currentUrl, p.variantUrl]),
    templates: drafts.templates.map((t) => t.templateId ?? t.template?.name),
    autousers: drafts.autousers.map((a) => a.autouserId),
    method: e.evaluationMethod,
  };
}

describe("the rule-based builder", () => {
  it.each(CASES)("drafts $message", ({ message, urls, expected }) => {
    const { drafts, understood } = buildDraftsFromMessage(message, urls ?? [], EMPTY_DRAFTS, catalog);
    const got = summary(drafts);
    expect(got).toEqual({
      type: expected.type,
      designUrls: expected.designUrls,
      pairs: expected.pairs,
      templates: expected.templates,
      autousers: expected.autousers,
      method: expected.method,
    });
    expect(understood.length).toBeGreaterThan(0);
  });

  it("names the evaluation from the first sentence and keeps the request as its scenario", () => {
    const text =
      "Compare the new checkout with the old one for first-time mobile shoppers. More detail follows.";
    const { drafts } = buildDraftsFromMessage(text, [], EMPTY_DRAFTS, catalog);
    expect(drafts.evaluation.name).toBe(
      "Compare the new checkout with the old one for first-time mobile shoppers",
    );
    expect(drafts.evaluation.scenario).toBe(text);
  });

  it("completes a half pair with the next message's link, and adds without removing", () => {
    const first = buildDraftsFromMessage(
      "compare https://h.test/a with the new one",
      [],
      EMPTY_DRAFTS,
      catalog,
    );
    expect(first.drafts.evaluation.comparisonPairs).toEqual([]);
    expect(first.drafts.evaluation.designUrls).toEqual([{ url: "https://h.test/a", stimulusType: "URL" }]);
    const second = buildDraftsFromMessage(
      "here: https://h.test/b, and check clarity",
      [],
      first.drafts,
      catalog,
    );
    expect(second.drafts.evaluation.comparisonPairs).toEqual([
      { currentUrl: "https://h.test/a", variantUrl: "https://h.test/b" },
    ]);
    expect(second.drafts.evaluation.designUrls).toBeUndefined();
    expect(second.drafts.templates.map((t) => t.templateId)).toEqual(["content"]);
    expect(second.drafts.evaluation.name).toBe(first.drafts.evaluation.name);
  });

  it("says when an audience has no persona, and what it still needs", () => {
    const { understood } = buildDraftsFromMessage("test it with mobile users", [], EMPTY_DRAFTS, {
      ...catalog,
      personas: [],
    });
    expect(understood.join(" ")).toContain("no persona for them is available");
    const reply = ruleBuilderReply(understood, [
      { param: "evaluation.type", message: "Invalid option" },
      { param: "evaluation.designUrls", message: "Add" },
    ]);
    expect(reply).toContain("What I still need");
    expect(reply).toContain("side by side or rate each design on its own");
    expect(reply).toContain("rule-based builder");
  });

  it("ignores links that are not http(s)", () => {
    const { drafts } = buildDraftsFromMessage(
      "rate ftp://f.test/x and javascript:alert(1)",
      [],
      EMPTY_DRAFTS,
      catalog,
    );
    expect(drafts.evaluation.designUrls).toBeUndefined();
  });
});
