ALTER TABLE "evaluations" ADD COLUMN "share_access_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "public_raters" ADD COLUMN "access_version" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "public_raters" ADD COLUMN "excluded_at" timestamp with time zone;