CREATE TABLE "rating_tallies" (
	"evaluation_id" text PRIMARY KEY NOT NULL,
	"template_ids" text[] NOT NULL,
	"rating_changes" integer NOT NULL,
	"built_at" timestamp with time zone DEFAULT now() NOT NULL,
	"folded_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rating_tally_pending" (
	"evaluation_id" text NOT NULL,
	"rating_id" text NOT NULL,
	"queued_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rating_tally_pending_evaluation_id_rating_id_pk" PRIMARY KEY("evaluation_id","rating_id")
);
--> statement-breakpoint
CREATE TABLE "rating_tally_rows" (
	"evaluation_id" text NOT NULL,
	"part" text NOT NULL,
	"idx" integer NOT NULL,
	"comparison_id" text NOT NULL,
	"rater_type" text NOT NULL,
	"rater_id" text NOT NULL,
	"value" double precision NOT NULL,
	"n" bigint NOT NULL,
	"skipped" bigint NOT NULL,
	"valued" bigint NOT NULL,
	"sum" double precision NOT NULL,
	"first_at" timestamp with time zone,
	"first_id" text,
	CONSTRAINT "rating_tally_rows_pk" PRIMARY KEY("evaluation_id","part","idx","comparison_id","rater_type","rater_id","value")
);
--> statement-breakpoint
ALTER TABLE "evaluations" ADD COLUMN "rating_changes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rating_tallies" ADD CONSTRAINT "rating_tallies_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "rating_tally_rows" ADD CONSTRAINT "rating_tally_rows_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE FUNCTION "rating_tally_queue"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "rating_tally_pending" ("evaluation_id", "rating_id") SELECT "evaluation_id", "id" FROM "inserted";
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "ratings_tally_queue" AFTER INSERT ON "ratings" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "rating_tally_queue"();--> statement-breakpoint
CREATE FUNCTION "rating_tally_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "evaluations" SET "rating_changes" = "rating_changes" + 1
  WHERE "id" IN (SELECT DISTINCT "evaluation_id" FROM "removed");
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "ratings_tally_deleted" AFTER DELETE ON "ratings" REFERENCING OLD TABLE AS "removed"
  FOR EACH STATEMENT EXECUTE FUNCTION "rating_tally_deleted"();--> statement-breakpoint
CREATE FUNCTION "rating_tally_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "evaluations" SET "rating_changes" = "rating_changes" + 1
  WHERE "id" IN (
    SELECT e FROM "before" o JOIN "after" n USING ("id"), LATERAL (VALUES (o."evaluation_id"), (n."evaluation_id")) v(e)
    WHERE (o."evaluation_id", o."comparison_id", o."rater_type", o."user_id", o."public_rater_id", o."autouser_id",
        o."dimension_ratings", o."skip_reason", o."created_at")
      IS DISTINCT FROM (n."evaluation_id", n."comparison_id", n."rater_type", n."user_id", n."public_rater_id",
        n."autouser_id", n."dimension_ratings", n."skip_reason", n."created_at"));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "ratings_tally_updated" AFTER UPDATE ON "ratings" REFERENCING OLD TABLE AS "before" NEW TABLE AS "after"
  FOR EACH STATEMENT EXECUTE FUNCTION "rating_tally_updated"();--> statement-breakpoint
CREATE FUNCTION "rating_tally_rater_excluded"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "evaluations" SET "rating_changes" = "rating_changes" + 1
  WHERE "id" IN (
    SELECT n."evaluation_id" FROM "before" o JOIN "after" n USING ("id")
    WHERE (o."excluded_at" IS NULL) <> (n."excluded_at" IS NULL));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "public_raters_tally_excluded" AFTER UPDATE ON "public_raters" REFERENCING OLD TABLE AS "before" NEW TABLE AS "after"
  FOR EACH STATEMENT EXECUTE FUNCTION "rating_tally_rater_excluded"();
