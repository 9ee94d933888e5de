export { DashboardShell } from "./dashboard-shell";
export { SettingsOverview } from "./settings-overview";
export { WebhooksGate } from "./webhooks-gate";
