CREATE TABLE `event_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `event_documents_tenant_idx` ON `event_documents` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`version` text NOT NULL,
	`resource_id` text,
	`data` text,
	`document_id` text,
	`created_at` text NOT NULL,
	`published_at` text
);
--> statement-breakpoint
INSERT INTO `__new_events`("id", "tenant_id", "type", "version", "resource_id", "data", "document_id", "created_at", "published_at") SELECT "id", "tenant_id", "type", "version", "resource_id", "data", NULL, "created_at", "published_at" FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
CREATE INDEX `events_tenant_idx` ON `events` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_unpublished_idx` ON `events` (`published_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_document_idx` ON `events` (`document_id`) WHERE document_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_untried_idx` ON `webhook_deliveries` (`webhook_id`,`id`) WHERE status = 'pending' AND attempts = 0;