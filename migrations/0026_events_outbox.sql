DROP INDEX `events_unpublished_idx`;--> statement-breakpoint
CREATE INDEX `events_outbox_idx` ON `events` (`tenant_id`,`created_at`,`id`) WHERE published_at IS NULL;