CREATE TABLE "evaluation_stats" (
	"evaluation_id" text NOT NULL,
	"kind" text NOT NULL,
	"fingerprint" text NOT NULL,
	"payload" jsonb NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "public_raters" (
	"id" text PRIMARY KEY NOT NULL,
	"evaluation_id" text NOT NULL,
	"name" text,
	"email" text,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "public_raters_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "ratings" (
	"id" text PRIMARY KEY NOT NULL,
	"evaluation_id" text NOT NULL,
	"comparison_id" text NOT NULL,
	"team_id" text NOT NULL,
	"rater_type" text NOT NULL,
	"user_id" text,
	"public_rater_id" text,
	"autouser_id" text,
	"autouser_run_id" text,
	"single_rater_key" text,
	"dimension_ratings" jsonb NOT NULL,
	"template_versions" jsonb NOT NULL,
	"open_text_responses" jsonb NOT NULL,
	"factors" jsonb NOT NULL,
	"justification" text,
	"skip_reason" text,
	"time_spent_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage_counters" (
	"team_id" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"metric" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_team_id_period_start_metric_pk" PRIMARY KEY("team_id","period_start","metric")
);
--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "rating_deadline" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "target_ratings_per_comparison" integer;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "collect_rater_name" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "collect_rater_email" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "ratings_revision" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "evaluation_stats" ADD CONSTRAINT "evaluation_stats_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "public_raters" ADD CONSTRAINT "public_raters_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_comparison_id_comparisons_id_fk" FOREIGN KEY ("comparison_id") REFERENCES "public"."comparisons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ratings" ADD CONSTRAINT "ratings_public_rater_id_public_raters_id_fk" FOREIGN KEY ("public_rater_id") REFERENCES "public"."public_raters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "evaluation_stats_pk" ON "evaluation_stats" USING btree ("evaluation_id","kind");--> statement-breakpoint
CREATE INDEX "public_raters_evaluation_idx" ON "public_raters" USING btree ("evaluation_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ratings_evaluation_order_idx" ON "ratings" USING btree ("evaluation_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "ratings_comparison_idx" ON "ratings" USING btree ("comparison_id");--> statement-breakpoint
CREATE UNIQUE INDEX "ratings_single_rater_uq" ON "ratings" USING btree ("comparison_id","single_rater_key");