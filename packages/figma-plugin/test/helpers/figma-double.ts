import type { ExportableNode, FigmaHost } from "../../src/host";
import { screenPng } from "./png";

/** A frame whose export is a real PNG twice its size, as `exportAsync` with a 2× constraint answers. */
export class FakeFrame implements ExportableNode {
  readonly exports: { format: string; scale: number }[] = [];
  readonly type: string;
  constructor(
    readonly id: string,
    readonly name: string,
    readonly width: number,
    readonly height: number,
    readonly accent: [number, number, number],
    type = "FRAME",
  ) {
    this.type = type;
  }
  async exportAsync(settings: { format: "PNG"; constraint: { type: "SCALE"; value: number } }) {
    this.exports.push({ format: settings.format, scale: settings.constraint.value });
    const scale = settings.constraint.value;
    return screenPng(this.width * scale, this.height * scale, this.accent);
  }
}

/** The editor as the plugin sees it: a selection, a key-value store, toasts and the window's inbox. */
export class FigmaDouble implements FigmaHost {
  currentPage: { selection: ExportableNode[] } = { selection: [] };
  readonly storage = new Map<string, unknown>();
  readonly toasts: { message: string; error: boolean }[] = [];
  readonly posted: { type: string; [key: string]: unknown }[] = [];
  readonly opened: string[] = [];
  #waiters: { type: string; resolve: (m: { type: string; [key: string]: unknown }) => void; from: number }[] =
    [];

  clientStorage = {
    getAsync: async (key: string) => structuredClone(this.storage.get(key)),
    setAsync: async (key: string, value: unknown) => {
      this.storage.set(key, structuredClone(value));
    },
    deleteAsync: async (key: string) => {
      this.storage.delete(key);
    },
  };

  ui = {
    postMessage: (message: unknown) => {
      const m = structuredClone(message) as { type: string };
      this.posted.push(m);
      this.#waiters = this.#waiters.filter((w) => {
        if (w.type !== m.type) return true;
        w.resolve(m);
        return false;
      });
    },
  };

  notify(message: string, options?: { error?: boolean }) {
    this.toasts.push({ message, error: options?.error ?? false });
  }

  openExternal(url: string) {
    this.opened.push(url);
  }

  /** The next message of `type` posted from now on. */
  next<T = Record<string, unknown>>(type: string): Promise<T & { type: string }> {
    return new Promise((resolve) => {
      this.#waiters.push({ type, resolve: resolve as never, from: this.posted.length });
    });
  }

  last<T = Record<string, unknown>>(type: string): (T & { type: string }) | undefined {
    return this.posted.filter((m) => m.type === type).at(-1) as (T & { type: string }) | undefined;
  }
}
