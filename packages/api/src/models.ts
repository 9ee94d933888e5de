import * as core from "@rubricon/core";
import type { AppServices } from "./request/services";

/** The model of a team: its enabled BYOK setting, else the platform default, else none. */
function modelOf(services: Pick<AppServices, "db" | "env">, teamId: string) {
  return core.resolveModelConfig(services.db, teamId, {
    encryptionKey: services.env.encryptionKey,
    platform: services.env.platformModel,
  });
}

/** The builder chat's assistant for a team: its model, else the rule-based builder. */
export function assistantFor(services: Pick<AppServices, "db" | "env">) {
  return async (teamId: string): Promise<core.Assistant> => {
    const config = await modelOf(services, teamId);
    return config ? core.modelAssistant(config) : core.ruleAssistant;
  };
}

/** Who drafts an autouser or template from a description for a team: its model, else the rule-based drafter. */
export function promptDrafterFor(services: Pick<AppServices, "db" | "env">) {
  return async (teamId: string): Promise<core.PromptDrafter> => {
    const config = await modelOf(services, teamId);
    return config ? core.modelPromptDrafter(config) : core.rulePromptDrafter;
  };
}

/** Who writes a team's AI insights: its model, else the extractive summarizer. */
export function insightsWriterFor(services: Pick<AppServices, "db" | "env">) {
  return async (teamId: string): Promise<core.InsightsWriter> => {
    const config = await modelOf(services, teamId);
    return config ? core.modelInsightsWriter(config) : core.extractiveWriter;
  };
}
