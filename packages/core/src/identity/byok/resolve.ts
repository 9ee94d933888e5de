import type { ModelConfig, ModelProvider } from "@rubricon/agents";
import { type DbOrTx, schema } from "@rubricon/db";
import { eq } from "drizzle-orm";
import { decryptSecret } from "../../kernel";

/** The operator's default model (`AUTOUSER_*`), used when a team has no BYOK setting of its own. */
export interface PlatformModel {
  provider: ModelProvider;
  model: string;
  apiKey: string | null;
  baseUrl: string | null;
}

/**
 * The model a team's autousers and assistants use: the team's enabled BYOK setting, else the platform
 * default, else null (the heuristic judge and the rule-based builder take over).
 */
export async function resolveModelConfig(
  db: DbOrTx,
  teamId: string,
  options: { encryptionKey: string; platform: PlatformModel | null },
): Promise<ModelConfig | null> {
  const [row] = await db
    .select()
    .from(schema.byokSettings)
    .where(eq(schema.byokSettings.teamId, teamId))
    .limit(1);
  // A local server (Ollama, vLLM) needs no key; every hosted provider does.
  const usable = row?.enabled && (row.sealedKey !== null || row.provider === "openai-compatible");
  if (row && usable) {
    return {
      provider: row.provider,
      model: row.model,
      apiKey: row.sealedKey ? decryptSecret(row.sealedKey, options.encryptionKey) : null,
      baseUrl: row.baseUrl,
      source: "byok",
    };
  }
  if (options.platform) return { ...options.platform, source: "platform" };
  return null;
}
