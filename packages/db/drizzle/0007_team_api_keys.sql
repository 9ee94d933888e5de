DROP INDEX "api_keys_team_idx";--> statement-breakpoint
CREATE INDEX "api_keys_team_order_idx" ON "api_keys" USING btree ("team_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);