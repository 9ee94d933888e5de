CREATE TABLE "autouser_rubrics" (
	"id" text PRIMARY KEY NOT NULL,
	"autouser_id" text NOT NULL,
	"dimension_id" text NOT NULL,
	"name" text NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"guidance" text DEFAULT '' NOT NULL,
	"weights" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"is_frozen" boolean DEFAULT false NOT NULL,
	"frozen_at" timestamp with time zone,
	"krippendorff_alpha" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "autouser_rubrics_version_uq" UNIQUE("autouser_id","dimension_id","version")
);
--> statement-breakpoint
CREATE TABLE "autousers" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text,
	"is_system" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"system_prompt" text,
	"persona" jsonb NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"visibility" text DEFAULT 'private' NOT NULL,
	"calibration_status" text DEFAULT 'uncalibrated' NOT NULL,
	"active_rubric_id" text,
	"source_autouser_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "byok_settings" (
	"team_id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"base_url" text,
	"sealed_key" text,
	"key_hint" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "autouser_rubrics" ADD CONSTRAINT "autouser_rubrics_autouser_id_autousers_id_fk" FOREIGN KEY ("autouser_id") REFERENCES "public"."autousers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autousers" ADD CONSTRAINT "autousers_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autousers" ADD CONSTRAINT "autousers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "byok_settings" ADD CONSTRAINT "byok_settings_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "byok_settings" ADD CONSTRAINT "byok_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "autouser_rubrics_order_idx" ON "autouser_rubrics" USING btree ("autouser_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "autousers_team_order_idx" ON "autousers" USING btree ("team_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "autousers_system_order_idx" ON "autousers" USING btree ("is_system","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);