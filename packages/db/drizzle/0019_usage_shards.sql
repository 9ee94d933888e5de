ALTER TABLE "usage_counters" ADD COLUMN "shard" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_counters" DROP CONSTRAINT "usage_counters_team_id_period_start_metric_pk";--> statement-breakpoint
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_team_id_period_start_metric_shard_pk" PRIMARY KEY("team_id","period_start","metric","shard");
