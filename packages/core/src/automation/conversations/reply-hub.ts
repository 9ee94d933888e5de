import type { Conversation, ConversationMessage } from "@rubricon/contracts";
import { BoundedMap } from "../../kernel";

/** One event of a reply as it is sent; `seq` orders them and names where a reconnecting client resumes. */
export type ReplyEvent =
  | {
      seq: number;
      kind: "message_start";
      data: {
        conversationId: string;
        messageId: string;
        userMessage: ConversationMessage;
        generator: "model" | "rules";
      };
    }
  | { seq: number; kind: "text_delta"; data: { messageId: string; delta: string } }
  | { seq: number; kind: "drafts"; data: Conversation }
  | { seq: number; kind: "message"; data: ConversationMessage }
  | { seq: number; kind: "failed"; data: { messageId: string; code: string; message: string } };

type ReplyEventBody = ReplyEvent extends infer E ? (E extends ReplyEvent ? Omit<E, "seq"> : never) : never;

/** The events of one reply, kept in memory while it runs and for a while after, so a client can resume. */
export class ReplyHub {
  readonly events: ReplyEvent[] = [];
  done = false;
  private wake: (() => void)[] = [];

  push(event: ReplyEventBody): void {
    this.events.push({ ...event, seq: this.events.length + 1 } as ReplyEvent);
    this.notify();
  }

  finish(): void {
    this.done = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = [];
    for (const w of wake) w();
  }

  /** The events after `afterSeq`, as they come, until the reply ends or `signal` aborts. */
  async *follow(afterSeq: number, signal: AbortSignal): AsyncGenerator<ReplyEvent> {
    let next = afterSeq;
    let stopWaiting: (() => void) | null = null;
    const onAbort = () => stopWaiting?.();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        while (next < this.events.length) yield this.events[next++]!;
        if (this.done || signal.aborted) return;
        await new Promise<void>((resolve) => {
          stopWaiting = resolve;
          this.wake.push(resolve);
        });
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }
}

/** Replies of this process by assistant message id; bounded, so finished ones age out. */
export const hubs = new BoundedMap<string, ReplyHub>(1000);
