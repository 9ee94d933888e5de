CREATE TABLE "autouser_calibrations" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"autouser_id" text NOT NULL,
	"rubric_id" text NOT NULL,
	"rubric_version" integer NOT NULL,
	"evaluation_id" text NOT NULL,
	"sample_size" integer NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"figures" jsonb,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "autouser_run_events" (
	"evaluation_id" text NOT NULL,
	"seq" integer NOT NULL,
	"run_id" text NOT NULL,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "autouser_run_events_evaluation_id_seq_pk" PRIMARY KEY("evaluation_id","seq")
);
--> statement-breakpoint
CREATE TABLE "autouser_run_turns" (
	"id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"turn" integer NOT NULL,
	"comparison_id" text,
	"side" text,
	"action" jsonb NOT NULL,
	"detail" text DEFAULT '' NOT NULL,
	"url" text,
	"screenshot" text,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"latency_ms" integer DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "autouser_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"evaluation_id" text NOT NULL,
	"autouser_id" text NOT NULL,
	"autouser_type" text NOT NULL,
	"agent_index" integer DEFAULT 0 NOT NULL,
	"purpose" text DEFAULT 'evaluation' NOT NULL,
	"comparison_ids" text[] NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 3 NOT NULL,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"credential_source" text,
	"model" text,
	"rubric_version" integer,
	"ratings_created" integer DEFAULT 0 NOT NULL,
	"input_tokens" integer DEFAULT 0 NOT NULL,
	"output_tokens" integer DEFAULT 0 NOT NULL,
	"estimated_cost_usd" double precision DEFAULT 0 NOT NULL,
	"artifacts_path" text,
	"error" text,
	"replaces_run_id" text,
	"calibration_id" text,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "ratings" ADD COLUMN "rubric_version" integer;--> statement-breakpoint
ALTER TABLE "autouser_calibrations" ADD CONSTRAINT "autouser_calibrations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autouser_calibrations" ADD CONSTRAINT "autouser_calibrations_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autouser_run_events" ADD CONSTRAINT "autouser_run_events_run_id_autouser_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."autouser_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autouser_run_turns" ADD CONSTRAINT "autouser_run_turns_run_id_autouser_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."autouser_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autouser_runs" ADD CONSTRAINT "autouser_runs_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "autouser_runs" ADD CONSTRAINT "autouser_runs_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "autouser_calibrations_autouser_idx" ON "autouser_calibrations" USING btree ("autouser_id","created_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "autouser_run_turns_run_idx" ON "autouser_run_turns" USING btree ("run_id","attempt","turn");--> statement-breakpoint
CREATE INDEX "autouser_runs_evaluation_order_idx" ON "autouser_runs" USING btree ("evaluation_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "autouser_runs_claim_idx" ON "autouser_runs" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "autouser_runs_calibration_idx" ON "autouser_runs" USING btree ("calibration_id");