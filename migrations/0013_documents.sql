CREATE TABLE `document_settings` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`seller` text NOT NULL,
	`bank_account` text,
	`texts` text NOT NULL,
	`default_e_invoice_type` text,
	`logo_media_id` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `media` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`owner_type` text NOT NULL,
	`owner_id` text NOT NULL,
	`purpose` text NOT NULL,
	`is_private` integer NOT NULL,
	`mime_type` text NOT NULL,
	`file_extension` text NOT NULL,
	`file_name` text NOT NULL,
	`storage_file_name` text NOT NULL,
	`byte_size` integer NOT NULL,
	`sha256` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `media_owner_uq` ON `media` (`tenant_id`,`owner_type`,`owner_id`,`purpose`);--> statement-breakpoint
CREATE INDEX `media_storage_idx` ON `media` (`storage_file_name`);--> statement-breakpoint
ALTER TABLE `customers` ADD `e_invoice_type` text;--> statement-breakpoint
ALTER TABLE `customers` ADD `leitweg_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `e_invoice_type` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `leitweg_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `file_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `xml_file_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `render_attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `render_error` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `usage_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_usage_token_uq` ON `invoices` (`usage_token`);--> statement-breakpoint
CREATE INDEX `invoices_unrendered_idx` ON `invoices` (`file_id`,`finalization_date`);--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `attachments` text DEFAULT '[]' NOT NULL;