/** A periodic job of the background process; `run` answers a line worth logging, or null for a quiet pass. */
export interface BackgroundLoop {
  name: string;
  intervalMs: number;
  run(): Promise<string | null>;
  /** Asks a long pass to hand its work back and return at once (the process is stopping). */
  interrupt?(): void;
  /** Releases what the loop holds open (connections), once it has stopped. */
  close?(): void;
  /** The queue whose work the loop leases, and how many leases it holds now. */
  leases?: { queue: string; held(): number };
}
