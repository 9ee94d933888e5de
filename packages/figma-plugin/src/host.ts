/**
 * The few design-tool calls the plugin makes. The real `figma` global provides them in the editor; tests supply
 * a small double, so everything else runs in Node against a real server.
 */
export interface ExportableNode {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  exportAsync(settings: { format: "PNG"; constraint: { type: "SCALE"; value: number } }): Promise<Uint8Array>;
}

export interface FigmaHost {
  readonly currentPage: { readonly selection: readonly ExportableNode[] };
  readonly clientStorage: {
    getAsync(key: string): Promise<unknown>;
    setAsync(key: string, value: unknown): Promise<void>;
    deleteAsync(key: string): Promise<void>;
  };
  notify(message: string, options?: { error?: boolean; timeout?: number }): unknown;
  readonly ui: { postMessage(message: unknown): void };
  openExternal(url: string): void;
}

/** Layers a designer would call a frame: what "Evaluate" exports. */
export const FRAME_TYPES = new Set(["FRAME", "COMPONENT", "COMPONENT_SET", "INSTANCE", "GROUP", "SECTION"]);
