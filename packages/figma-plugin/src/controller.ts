import {
  type Connection,
  createEvaluation,
  type EvaluationKind,
  explain,
  listAutousers,
  listTemplates,
  type Pairing,
  progressOf,
  type SignedIn,
  type Stimulus,
  startPairing,
  uploadImage,
  waitForApproval,
  whoAmI,
} from "@rubricon/client-kit";
import { type ExportableNode, type FigmaHost, FRAME_TYPES } from "./host";
import type { FrameInfo, PluginEvent, UiRequest } from "./messages";

/** Where the 7-day token is kept between sessions (`figma.clientStorage`, local to this machine). */
export const TOKEN_KEY = "rubricon.token";

interface StoredToken {
  token: string;
  expiresAt: string | null;
}

export interface ControllerOptions {
  /** The server's address, fixed at build time: the only domain the manifest lets the plugin reach. */
  server: string;
  fetch?: typeof fetch;
  /** Waits between polls; tests pass a shorter one. */
  sleep?: (ms: number) => Promise<void>;
  /** Seconds between progress checks while autousers run. */
  progressIntervalS?: number;
  now?: () => Date;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The plugin's behaviour, independent of the editor: every message of the window goes through `handle`. */
export class PluginController {
  #token: string | undefined;
  #user: SignedIn | undefined;
  #pairing: Pairing | undefined;
  #pairingCancelled = false;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(
    readonly host: FigmaHost,
    readonly options: ControllerOptions,
  ) {
    this.#sleep = options.sleep ?? defaultSleep;
  }

  get user(): SignedIn | undefined {
    return this.#user;
  }

  #conn(): Connection {
    return { baseUrl: this.options.server, token: this.#token, fetch: this.options.fetch };
  }

  #post(event: PluginEvent): void {
    this.host.ui.postMessage(event);
  }

  #fail(err: unknown): void {
    const { message, pairAgain } = explain(err);
    this.host.notify(message, { error: true });
    this.#post({ type: "error", message });
    if (pairAgain && this.#token) void this.signOut(message);
  }

  async handle(request: UiRequest): Promise<void> {
    try {
      switch (request.type) {
        case "ready":
          return await this.start();
        case "pair":
          return await this.pair();
        case "cancel-pair":
          this.#pairingCancelled = true;
          return;
        case "sign-out":
          return await this.signOut();
        case "load-options":
          return await this.loadOptions(request.kind);
        case "evaluate":
          await this.evaluate(request);
          return;
        case "open":
          return this.open(request.url);
      }
    } catch (err) {
      this.#fail(err);
    }
  }

  /** Restores the stored sign-in, if it is still valid. */
  async start(): Promise<void> {
    this.selectionChanged();
    const stored = (await this.host.clientStorage.getAsync(TOKEN_KEY)) as StoredToken | undefined;
    const now = this.options.now?.() ?? new Date();
    if (!stored?.token || (stored.expiresAt && new Date(stored.expiresAt) <= now)) {
      if (stored) await this.host.clientStorage.deleteAsync(TOKEN_KEY);
      this.#post({
        type: "signed-out",
        server: this.options.server,
        ...(stored ? { reason: "Your sign-in expired after 7 days. Pair again to continue." } : {}),
      });
      return;
    }
    this.#token = stored.token;
    this.#user = await whoAmI(this.#conn());
    this.#post({ type: "signed-in", server: this.options.server, user: this.#user });
  }

  /** Shows a code, waits for the user to approve it in the dashboard, then keeps the token. */
  async pair(): Promise<void> {
    this.#pairingCancelled = false;
    this.#pairing = await startPairing(this.#conn());
    const { code, verificationUrl, expiresAt } = this.#pairing;
    this.#post({ type: "pairing", code, verificationUrl, expiresAt });
    const approved = await waitForApproval(this.#conn(), this.#pairing, {
      sleep: this.#sleep,
      cancelled: () => this.#pairingCancelled,
    });
    this.#pairing = undefined;
    if (!approved) {
      this.#post({ type: "signed-out", server: this.options.server });
      return;
    }
    this.#token = approved.token;
    await this.host.clientStorage.setAsync(TOKEN_KEY, approved satisfies StoredToken);
    this.#user = await whoAmI(this.#conn());
    this.host.notify(`Signed in to Rubricon as ${this.#user.email}`);
    this.#post({ type: "signed-in", server: this.options.server, user: this.#user });
  }

  async signOut(reason?: string): Promise<void> {
    this.#token = undefined;
    this.#user = undefined;
    await this.host.clientStorage.deleteAsync(TOKEN_KEY);
    this.#post({ type: "signed-out", server: this.options.server, ...(reason ? { reason } : {}) });
  }

  /** Frames in the selection, in selection order. */
  frames(): ExportableNode[] {
    return this.host.currentPage.selection.filter((n) => FRAME_TYPES.has(n.type));
  }

  selectionChanged(): void {
    const frames: FrameInfo[] = this.frames().map((n) => ({ id: n.id, name: n.name }));
    this.#post({ type: "selection", frames });
  }

  async loadOptions(kind: EvaluationKind): Promise<void> {
    const [templates, autousers] = await Promise.all([
      listTemplates(this.#conn(), kind, this.#user?.teamId),
      listAutousers(this.#conn()),
    ]);
    this.#post({ type: "options", kind, templates, autousers });
  }

  /**
   * Exports the selected frames at 2×, uploads them, creates the evaluation and, with autousers, follows their
   * progress until every run has finished. Answers the evaluation's id.
   */
  async evaluate(request: Extract<UiRequest, { type: "evaluate" }>): Promise<string | undefined> {
    const user = this.#user;
    if (!user) throw new Error("Pair with Rubricon first.");
    const frames = this.frames();
    if (frames.length === 0) throw new Error("Select one or more frames to evaluate.");
    if (request.kind === "SxS" && frames.length !== 2) {
      throw new Error("A side-by-side evaluation compares two frames: select exactly two.");
    }
    const stimuli: Stimulus[] = [];
    for (const [i, frame] of frames.entries()) {
      this.#post({
        type: "busy",
        message: `Exporting and uploading ${i + 1} of ${frames.length}: ${frame.name}`,
      });
      const bytes = await frame.exportAsync({ format: "PNG", constraint: { type: "SCALE", value: 2 } });
      const fileId = await uploadImage(this.#conn(), {
        bytes,
        filename: `${safeName(frame.name)}.png`,
        contentType: "image/png",
        teamId: user.teamId,
      });
      stimuli.push({ fileId, label: frame.name });
    }
    this.#post({ type: "busy", message: "Creating the evaluation…" });
    const evaluation = await createEvaluation(this.#conn(), {
      teamId: user.teamId,
      name: request.name.trim() || frames.map((f) => f.name).join(", "),
      kind: request.kind,
      stimuli,
      templateId: request.templateId,
      autouserIds: request.autouserIds,
      status: request.status,
    });
    this.#post({ type: "created", evaluation });
    this.host.notify(`Evaluation “${evaluation.name}” created`);
    if (evaluation.runIds.length > 0) await this.follow(evaluation.id);
    return evaluation.id;
  }

  /** Reports the autousers' progress and scores until every run has finished. */
  async follow(evaluationId: string): Promise<void> {
    const intervalMs = (this.options.progressIntervalS ?? 3) * 1000;
    for (;;) {
      const progress = await progressOf(this.#conn(), evaluationId);
      this.#post({ type: "progress", evaluationId, progress });
      if (progress.done) return;
      await this.#sleep(intervalMs);
    }
  }

  /** Opens a page of the configured server in the browser; any other address is refused. */
  open(url: string): void {
    if (!url.startsWith(`${this.options.server}/`))
      throw new Error("Only pages of the Rubricon server open from here.");
    this.host.openExternal(url);
  }
}

/** A file name from a layer name: no folders, no control characters, not empty. */
function safeName(name: string): string {
  const cleaned = name
    .replace(/[\\/\p{Cc}]+/gu, " ")
    .trim()
    .slice(0, 120);
  return cleaned || "frame";
}
