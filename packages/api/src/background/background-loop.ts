/** A periodic job of the background process; `run` answers a line worth logging, or null for a quiet pass. */
export interface BackgroundLoop {
  name: string;
  intervalMs: number;
  run(): Promise<string | null>;
  /** Releases what the loop holds open (connections), once it has stopped. */
  close?(): void;
}
