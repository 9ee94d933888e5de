import type { BrowserContextOptions } from "playwright-core";
import type { NetworkProfile, PersonaDevice } from "../types";

/** A current Chrome on Android: sites that sniff the user agent serve their phone layout to it. */
const PHONE_USER_AGENT =
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36";

/** Browser context settings for a persona's device. */
export function contextOptionsFor(device: PersonaDevice): BrowserContextOptions {
  const viewport = { width: device.viewport.width, height: device.viewport.height };
  if (device.kind === "mobile") {
    return { viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2, userAgent: PHONE_USER_AGENT };
  }
  return { viewport, isMobile: false, hasTouch: false, deviceScaleFactor: 1 };
}

export interface NetworkConditions {
  offline: false;
  /** Added round-trip time, milliseconds. */
  latency: number;
  /** Bytes per second. */
  downloadThroughput: number;
  uploadThroughput: number;
}

/**
 * DevTools' presets ("Slow 4G", formerly "Fast 3G", and "Slow 3G"), so figures match what a designer sees when
 * throttling by hand. `fast` is not throttled at all.
 */
export function networkConditionsFor(profile: NetworkProfile): NetworkConditions | null {
  switch (profile) {
    case "slow-4g":
      return {
        offline: false,
        latency: 562.5,
        downloadThroughput: (1.6 * 1024 * 1024 * 0.9) / 8,
        uploadThroughput: (750 * 1024 * 0.9) / 8,
      };
    case "slow-3g":
      return {
        offline: false,
        latency: 2000,
        downloadThroughput: (500 * 1024 * 0.8) / 8,
        uploadThroughput: (500 * 1024 * 0.8) / 8,
      };
    default:
      return null;
  }
}
