CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"team_id" text NOT NULL,
	"evaluation_id" text,
	"kind" text DEFAULT 'upload' NOT NULL,
	"filename" text NOT NULL,
	"content_type" text NOT NULL,
	"status" text NOT NULL,
	"declared_size" bigint,
	"size" bigint,
	"storage_key" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "files_team_idx" ON "files" USING btree ("team_id");--> statement-breakpoint
CREATE INDEX "files_evaluation_idx" ON "files" USING btree ("evaluation_id");--> statement-breakpoint
CREATE INDEX "files_status_created_idx" ON "files" USING btree ("status","created_at");