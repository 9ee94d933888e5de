import type { CoreContext, Resolver } from "../../kernel";

/** What webhook functions need beyond the core context: the sealing key and the URL policy. */
export interface WebhookSettings {
  /** 64 hex characters: AES-256-GCM key sealing signing secrets at rest. */
  encryptionKey: string;
  /** Local development and tests: allow http and loopback or private addresses. */
  allowPrivateUrls: boolean;
  /** DNS resolution of endpoint hosts; the system resolver unless a test injects one. */
  resolve?: Resolver;
}

export type WebhooksContext = CoreContext & { webhooks: WebhookSettings };
