CREATE TABLE "evaluation_rating_revisions" (
	"evaluation_id" text NOT NULL,
	"shard" smallint NOT NULL,
	"revision" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "evaluation_rating_revisions_evaluation_id_shard_pk" PRIMARY KEY("evaluation_id","shard")
);
--> statement-breakpoint
ALTER TABLE "evaluation_rating_revisions" ADD CONSTRAINT "evaluation_rating_revisions_evaluation_id_evaluations_id_fk" FOREIGN KEY ("evaluation_id") REFERENCES "public"."evaluations"("id") ON DELETE cascade ON UPDATE no action;