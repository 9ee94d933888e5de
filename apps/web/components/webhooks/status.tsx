import styles from "./webhooks.module.css";

const LABELS: Record<string, string> = {
  enabled: "Enabled",
  disabled: "Disabled",
  pending: "Pending",
  retrying: "Retrying",
  delivered: "Delivered",
  abandoned: "Abandoned",
};

/** The status of an endpoint or a delivery, coloured by how well it is going. */
export function WebhookStatus({ status }: { status: string }) {
  return <span className={`badge ${styles[status] ?? ""}`}>{LABELS[status] ?? status}</span>;
}
