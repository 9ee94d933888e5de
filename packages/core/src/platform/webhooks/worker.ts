import { setMaxListeners } from "node:events";
import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Db } from "@rubricon/db";
import {
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  signatureHeaders,
  USER_AGENT,
} from "@rubricon/webhooks";
import type { Clock, Resolver } from "../../kernel";
import { checkEndpointHealth, type DisabledEndpoint } from "./auto-disable";
import { type ClaimedDelivery, claimDueDeliveries } from "./claim";
import { RETRY_DELAYS_MS } from "./schedule";
import { signingSecrets } from "./secrets";
import { WebhookSender } from "./send";
import { settleDelivery } from "./settle";

export const DELIVERY_TIMEOUT_MS = 10_000;

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  encryptionKey: string;
  allowPrivateUrls: boolean;
  /** The receiver's whole exchange must finish within this; default 10 s. */
  timeoutMs?: number;
  /** Waits before the 2nd, 3rd, ... attempt; default the production schedule (tests compress it). */
  retryDelaysMs?: readonly number[];
  /** How long a claim keeps other workers off a delivery; must outlast a send and its bookkeeping. */
  leaseMs?: number;
  /** Deliveries claimed per query. */
  batchSize?: number;
  /** Sends in flight at once, across endpoints. */
  maxInFlight?: number;
  /** Within a pass, how long to wait before looking again when nothing more was due. */
  pollMs?: number;
  /** A pass stops claiming after this long (and finishes its sends), so a busy worker still stops promptly. */
  maxPassMs?: number;
  resolve?: Resolver;
  /** Told of each attempt once it is recorded (metrics, logs). */
  observer?: DeliveryObserver;
  /**
   * The event body as an endpoint on `apiVersion` receives it; events are stored in the newest version's shape.
   * Versions are a transport concern (the API package owns their transforms); without this the stored body is sent.
   */
  render?: (payload: string, apiVersion: string) => string;
}

export interface DeliveryAttempt {
  deliveryId: string;
  endpointId: string;
  /** 1 for the first attempt. */
  attempt: number;
  ok: boolean;
  statusCode: number | null;
  /** First attempts only: from the event's commit (the delivery's row in the outbox) to this attempt's start. */
  outboxLagMs: number | null;
  durationMs: number;
}

export interface DeliveryObserver {
  attempted(attempt: DeliveryAttempt): void;
}

const tracer = trace.getTracer("rubricon");

export interface DeliveryPassResult {
  delivered: number;
  failed: number;
  /** Attempts whose result was not recorded because this worker's lease had run out meanwhile. */
  stale: number;
  disabled: DisabledEndpoint[];
  /** Deliveries that could not be sent or recorded (the database went away, say); their leases will run out. */
  errors: string[];
}

/**
 * Sends due webhook deliveries. A pass keeps a pool of sends in flight, claiming more as slots free up, until
 * nothing is due and nothing is in flight; the background loop starts the next pass shortly after.
 */
export class DeliveryWorker {
  private readonly sender: WebhookSender;
  private readonly timeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly leaseMs: number;
  private readonly batchSize: number;
  private readonly maxInFlight: number;
  private readonly pollMs: number;
  private readonly maxPassMs: number;
  private sending = 0;

  constructor(private readonly opts: DeliveryWorkerOptions) {
    this.timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.retryDelaysMs = opts.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.leaseMs = opts.leaseMs ?? this.timeoutMs + 30_000;
    this.batchSize = opts.batchSize ?? 100;
    this.maxInFlight = opts.maxInFlight ?? 256;
    this.pollMs = opts.pollMs ?? 50;
    this.maxPassMs = opts.maxPassMs ?? 5000;
    this.sender = new WebhookSender({
      timeoutMs: this.timeoutMs,
      allowPrivate: opts.allowPrivateUrls,
      resolve: opts.resolve,
    });
  }

  close(): void {
    this.sender.close();
  }

  /** Deliveries this worker holds (leased) now. */
  get held(): number {
    return this.sending;
  }

  /**
   * One pass. `signal` stops it at once: sends in flight are cut off and nothing more is recorded, exactly as if
   * the process had died (their leases run out and another pass sends them again).
   */
  async runPass(signal?: AbortSignal): Promise<DeliveryPassResult> {
    const result: DeliveryPassResult = { delivered: 0, failed: 0, stale: 0, disabled: [], errors: [] };
    const inFlight = new Set<Promise<void>>();
    // Every send in flight listens for the abort.
    if (signal) setMaxListeners(this.maxInFlight + 16, signal);
    const deadline = performance.now() + this.maxPassMs;
    while (!signal?.aborted) {
      const room = performance.now() < deadline ? this.maxInFlight - inFlight.size : 0;
      const wanted = Math.min(room, this.batchSize);
      const claimed =
        wanted > 0 ? await claimDueDeliveries(this.opts.db, this.opts.clock.now(), this.leaseMs, wanted) : [];
      for (const claim of claimed) {
        this.sending++;
        const task: Promise<void> = this.deliver(claim, result, signal)
          .catch((err: unknown) => {
            result.errors.push(`${claim.id}: ${err instanceof Error ? err.message : String(err)}`);
          })
          .finally(() => {
            this.sending--;
            inFlight.delete(task);
          });
        inFlight.add(task);
      }
      if (inFlight.size === 0) break;
      if (wanted > 0 && claimed.length === wanted) {
        // Full batch: more is probably due; claim again as soon as a slot frees (or right away if some are free).
        if (inFlight.size >= this.maxInFlight) await Promise.race(inFlight);
      } else {
        await Promise.race([Promise.race(inFlight), sleep(this.pollMs)]);
      }
    }
    await Promise.allSettled(inFlight);
    return result;
  }

  /** One attempt as a client span; the receiver gets its `traceparent`. */
  private deliver(claim: ClaimedDelivery, result: DeliveryPassResult, signal?: AbortSignal): Promise<void> {
    const span = tracer.startSpan("webhook.deliver", {
      kind: SpanKind.CLIENT,
      attributes: {
        "http.request.method": "POST",
        "rubricon.webhook.delivery.id": claim.id,
        "rubricon.webhook.endpoint.id": claim.endpointId,
        "rubricon.webhook.event.type": claim.eventType,
        "rubricon.webhook.attempt": claim.attemptCount + 1,
      },
    });
    return context.with(trace.setSpan(context.active(), span), async () => {
      try {
        const outcome = await this.attempt(claim, result, signal);
        if (outcome) {
          if (outcome.statusCode !== null) span.setAttribute("http.response.status_code", outcome.statusCode);
          if (!outcome.ok)
            span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error ?? undefined });
        }
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw err;
      } finally {
        span.end();
      }
    });
  }

  private async attempt(claim: ClaimedDelivery, result: DeliveryPassResult, signal?: AbortSignal) {
    const { clock, db } = this.opts;
    const startedAt = clock.now();
    const { secret, previousSecret } = signingSecrets(claim, this.opts.encryptionKey, startedAt);
    const payload = this.opts.render ? this.opts.render(claim.payload, claim.apiVersion) : claim.payload;
    const signature = await signatureHeaders(payload, {
      secret,
      previousSecret,
      timestamp: Math.floor(startedAt.getTime() / 1000),
    });
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      "User-Agent": USER_AGENT,
      ...signature,
      [EVENT_ID_HEADER]: claim.eventId,
      [EVENT_TYPE_HEADER]: claim.eventType,
      [DELIVERY_ID_HEADER]: claim.id,
    };
    // W3C trace context of this attempt's span, when tracing is on (a no-op otherwise).
    propagation.inject(context.active(), headers);
    const outcome = await this.sender.post(claim.url, payload, headers, signal);
    if (signal?.aborted) return null;
    const now = clock.now();
    const settled = await settleDelivery(db, claim, outcome, startedAt, now, this.retryDelaysMs);
    if (!settled.applied) result.stale++;
    else if (outcome.ok) result.delivered++;
    else result.failed++;
    this.opts.observer?.attempted({
      deliveryId: claim.id,
      endpointId: claim.endpointId,
      attempt: claim.attemptCount + 1,
      ok: outcome.ok,
      statusCode: outcome.statusCode,
      outboxLagMs:
        claim.attemptCount === 0 && !claim.synthetic ? startedAt.getTime() - claim.createdAt.getTime() : null,
      durationMs: outcome.durationMs,
    });
    const disabled = await checkEndpointHealth(db, claim, outcome, now);
    if (disabled) result.disabled.push(disabled);
    return outcome;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
