CREATE TABLE `dunning_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`rule_id` text,
	`level` integer NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`number` text NOT NULL,
	`number_seq` integer NOT NULL,
	`language` text NOT NULL,
	`recipient` text NOT NULL,
	`title` text NOT NULL,
	`introduction` text,
	`closing` text,
	`document_date` text NOT NULL,
	`due_date` text NOT NULL,
	`currency_code` text NOT NULL,
	`fee_amount` integer DEFAULT 0 NOT NULL,
	`open_amount` integer NOT NULL,
	`amount_due` integer NOT NULL,
	`positions` text NOT NULL,
	`attach_invoice` integer DEFAULT false NOT NULL,
	`email_template` text,
	`document_template` text,
	`file_id` text,
	`sent_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dunning_documents_level_uq` ON `dunning_documents` (`tenant_id`,`invoice_id`,`level`);--> statement-breakpoint
CREATE UNIQUE INDEX `dunning_documents_number_seq_uq` ON `dunning_documents` (`tenant_id`,`type`,`number_seq`);--> statement-breakpoint
CREATE INDEX `dunning_documents_customer_idx` ON `dunning_documents` (`tenant_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `dunning_documents_status_idx` ON `dunning_documents` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `dunning_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`level` integer NOT NULL,
	`type` text NOT NULL,
	`days_overdue` integer NOT NULL,
	`due_in_days` integer NOT NULL,
	`fee_amount` integer DEFAULT 0 NOT NULL,
	`fee_currency_code` text DEFAULT 'EUR' NOT NULL,
	`texts` text NOT NULL,
	`email_template` text,
	`document_template` text,
	`attach_invoice` integer DEFAULT false NOT NULL,
	`final_action` text DEFAULT 'none' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dunning_rules_level_uq` ON `dunning_rules` (`tenant_id`,`level`);--> statement-breakpoint
CREATE INDEX `invoices_due_idx` ON `invoices` (`tenant_id`,`status`,`due_date`);