export { EventLog } from "./event-log";
export { WebhookDetail } from "./webhook-detail";
export { WebhooksPanel } from "./webhooks-panel";
