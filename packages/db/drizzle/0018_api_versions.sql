ALTER TABLE "teams" ADD COLUMN "api_version" text DEFAULT '2026-11-01' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "api_version" text DEFAULT '2026-11-01' NOT NULL;