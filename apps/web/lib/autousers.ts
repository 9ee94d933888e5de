import type { Autouser } from "@rubricon/contracts";

export const EXPERTISE_LABELS = { novice: "Novice", intermediate: "Intermediate", expert: "Expert" } as const;
export const NETWORK_LABELS = { fast: "Fast", "slow-4g": "Slow 4G", "slow-3g": "Slow 3G" } as const;
export const DEVICE_LABELS = { desktop: "Desktop", mobile: "Mobile" } as const;
export const NEED_LABELS = {
  "screen-reader": "Screen reader",
  "low-vision": "Low vision",
  "color-blindness": "Colour blindness",
  motor: "Motor",
  cognitive: "Cognitive",
  "keyboard-only": "Keyboard only",
} as const;

/** "Mobile 390×844, slow 3G". */
export function formatDevice(device: Autouser["device"]): string {
  const { kind, viewport, network } = device;
  return `${DEVICE_LABELS[kind]} ${viewport.width}×${viewport.height}, ${NETWORK_LABELS[network].toLowerCase()}`;
}
