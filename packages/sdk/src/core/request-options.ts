/** Per-request settings; each overrides the client's own for this call only. */
export interface RequestOptions {
  /**
   * Sent as `Idempotency-Key`. POST requests get a random one when this is unset, and every retry of the
   * request reuses it, so a retried create never makes a second resource.
   */
  idempotencyKey?: string;
  /** Aborts the request, including any wait between retries. */
  signal?: AbortSignal;
  /** Milliseconds each attempt may take before it fails with `APITimeoutError`. */
  timeout?: number;
  /** Retries after the first attempt, from 0 to 4. */
  maxRetries?: number;
  /** Extra request headers; they win over the client's own. */
  headers?: Record<string, string>;
}

/** Options of a call that opens an event stream. */
export interface StreamRequestOptions extends RequestOptions {
  /** Resumes the stream after this event id (sent as `Last-Event-ID`); see `EventStream.lastEventId`. */
  lastEventId?: string | undefined;
}
