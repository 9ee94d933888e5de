import { AutouserCreateInput, TemplateCreateInput } from "@rubricon/contracts";
import { describe, expect, it } from "vitest";
import { ruleAutouserDraft, ruleTemplateDraft } from "./from-prompt";

describe("the rule-based persona drafter", () => {
  it("reads expertise, device, network, needs, traits and goals, and its draft is a valid create body", () => {
    const draft = ruleAutouserDraft(
      "A software engineer on a desktop who is impatient. He tries to find the API docs and wants to copy an example.",
    );
    expect(draft).toMatchObject({
      name: "A software engineer on a desktop who is impatient",
      expertise: "expert",
      device: { kind: "desktop", network: "fast" },
      accessibilityNeeds: [],
      traits: ["impatient"],
      goals: ["Find the API docs", "Copy an example"],
    });
    expect(AutouserCreateInput.safeParse(draft).success).toBe(true);
  });

  it("answers the same draft for the same words, and a fallback for words it does not know", () => {
    const text = "Someone with dyslexia and colour blindness who uses a keyboard only, on slow 4G.";
    expect(ruleAutouserDraft(text)).toEqual(ruleAutouserDraft(text));
    expect(ruleAutouserDraft(text)).toMatchObject({
      expertise: "intermediate",
      accessibilityNeeds: ["color-blindness", "cognitive", "keyboard-only"],
      device: { network: "slow-4g" },
      goals: [],
    });
  });
});

describe("the rule-based template drafter", () => {
  it("reads type, scale, contexts and criteria, and its draft is a valid create body", () => {
    const draft = ruleTemplateDraft(
      "Rate a chatbot's single answer on a three-point scale for accuracy and helpfulness.",
    );
    expect(draft).toMatchObject({
      type: "TEXT_SSE",
      scaleType: "THREE_POINT",
      contexts: ["llm-ai"],
      criteria: [{ id: "accuracy" }, { id: "helpfulness" }],
    });
    expect(TemplateCreateInput.safeParse({ ...draft, teamId: "team_x" }).success).toBe(true);
  });

  it("falls back to a generic seven-point template with no criteria", () => {
    expect(ruleTemplateDraft("Something to score the quarterly numbers with, please.")).toMatchObject({
      type: "TEXT_SSE",
      scaleType: "SEVEN_POINT",
      contexts: ["generic"],
      criteria: [],
    });
  });
});
