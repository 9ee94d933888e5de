import type { Assistant } from "./assistant";
import { buildDraftsFromMessage, ruleBuilderReply } from "./rule-builder";

/** The assistant of a team without a model: the rule-based builder, its reply streamed a line at a time. */
export const ruleAssistant: Assistant = {
  generator: "rules",
  model: null,
  async reply(input, sink, signal) {
    const { drafts, understood } = buildDraftsFromMessage(
      input.message.text,
      input.message.attachedDesignUrls,
      sink.drafts(),
      input.catalog,
    );
    sink.setDrafts(drafts);
    const text = ruleBuilderReply(understood, await input.issues(drafts));
    const lines = text.split(/(?<=\n)/);
    for (const line of lines) {
      signal.throwIfAborted();
      sink.text(line);
      // Yields between lines so each goes out as its own event.
      await new Promise((resolve) => setImmediate(resolve));
    }
  },
};
