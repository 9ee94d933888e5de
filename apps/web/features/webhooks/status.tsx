import { Badge, type Tone } from "@/ui";

const LABELS: Record<string, string> = {
  enabled: "Enabled",
  disabled: "Disabled",
  pending: "Pending",
  retrying: "Retrying",
  delivered: "Delivered",
  abandoned: "Abandoned",
};

const TONES: Record<string, Tone> = {
  enabled: "success",
  delivered: "success",
  pending: "info",
  retrying: "warning",
  disabled: "danger",
  abandoned: "danger",
};

/** The status of an endpoint or a delivery, coloured by how well it is going. */
export function WebhookStatus({ status }: { status: string }) {
  return <Badge tone={TONES[status] ?? "neutral"}>{LABELS[status] ?? status}</Badge>;
}
