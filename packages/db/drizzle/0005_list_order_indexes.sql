DROP INDEX "events_object_idx";--> statement-breakpoint
DROP INDEX "ratings_comparison_idx";--> statement-breakpoint
DROP INDEX "comparisons_evaluation_idx";--> statement-breakpoint
DROP INDEX "evaluations_team_order_idx";--> statement-breakpoint
DROP INDEX "events_team_seq_idx";--> statement-breakpoint
DROP INDEX "public_raters_evaluation_idx";--> statement-breakpoint
DROP INDEX "ratings_evaluation_order_idx";--> statement-breakpoint
DROP INDEX "templates_team_order_idx";--> statement-breakpoint
DROP INDEX "webhook_deliveries_endpoint_seq_idx";--> statement-breakpoint
CREATE INDEX "api_keys_user_order_idx" ON "api_keys" USING btree ("user_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "evaluations_team_status_order_idx" ON "evaluations" USING btree ("team_id","status","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "events_object_seq_idx" ON "events" USING btree ("object_id","seq" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "events_team_type_seq_idx" ON "events" USING btree ("team_id","type","seq" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ratings_evaluation_rater_type_order_idx" ON "ratings" USING btree ("evaluation_id","rater_type","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ratings_comparison_order_idx" ON "ratings" USING btree ("comparison_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "team_members_team_created_idx" ON "team_members" USING btree ("team_id","created_at");--> statement-breakpoint
CREATE INDEX "template_versions_template_order_idx" ON "template_versions" USING btree ("template_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "templates_system_order_idx" ON "templates" USING btree ("is_system","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_status_seq_idx" ON "webhook_deliveries" USING btree ("endpoint_id","status","seq" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "webhook_endpoints_team_order_idx" ON "webhook_endpoints" USING btree ("team_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "comparisons_evaluation_idx" ON "comparisons" USING btree ("evaluation_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "evaluations_team_order_idx" ON "evaluations" USING btree ("team_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "events_team_seq_idx" ON "events" USING btree ("team_id","seq" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "public_raters_evaluation_idx" ON "public_raters" USING btree ("evaluation_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "ratings_evaluation_order_idx" ON "ratings" USING btree ("evaluation_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "templates_team_order_idx" ON "templates" USING btree ("team_id","updated_at" DESC NULLS FIRST,"id" DESC NULLS FIRST);--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_seq_idx" ON "webhook_deliveries" USING btree ("endpoint_id","seq" DESC NULLS FIRST);