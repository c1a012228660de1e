CREATE TABLE `outgoing_mails` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`attachment_key` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `outgoing_mails_tenant_idx` ON `outgoing_mails` (`tenant_id`,`created_at`);