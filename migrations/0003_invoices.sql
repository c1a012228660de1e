CREATE TABLE `billing_ledger` (
	`tenant_id` text NOT NULL,
	`subscription_item_id` text NOT NULL,
	`period_start` text NOT NULL,
	`kind` text NOT NULL,
	`period_end` text,
	`invoice_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`subscription_item_id`, `period_start`, `kind`)
);
--> statement-breakpoint
CREATE INDEX `billing_ledger_invoice_idx` ON `billing_ledger` (`tenant_id`,`invoice_id`);--> statement-breakpoint
CREATE TABLE `billing_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`status` text NOT NULL,
	`as_of` text NOT NULL,
	`trigger` text NOT NULL,
	`items_billed` integer NOT NULL,
	`invoices_created` integer NOT NULL,
	`errors` integer NOT NULL,
	`last_error` text,
	`started_at` text NOT NULL,
	`finished_at` text
);
--> statement-breakpoint
CREATE INDEX `billing_runs_tenant_idx` ON `billing_runs` (`tenant_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `exchange_rates` (
	`date` text NOT NULL,
	`currency` text NOT NULL,
	`rate` text NOT NULL,
	`source` text NOT NULL,
	`imported_at` text NOT NULL,
	PRIMARY KEY(`date`, `currency`)
);
--> statement-breakpoint
CREATE TABLE `invoice_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`text` text NOT NULL,
	`author` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoice_comments_idx` ON `invoice_comments` (`tenant_id`,`invoice_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `invoice_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`amount` integer NOT NULL,
	`payment_date` text NOT NULL,
	`description` text,
	`payment_method` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoice_payments_invoice_idx` ON `invoice_payments` (`tenant_id`,`invoice_id`);--> statement-breakpoint
CREATE TABLE `invoice_positions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`parent_id` text,
	`sort` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`quantity` text NOT NULL,
	`unit_price` text NOT NULL,
	`discount_amount` integer NOT NULL,
	`net_amount` integer NOT NULL,
	`tax_rate` text NOT NULL,
	`tax_category` text NOT NULL,
	`tax_note` text,
	`service_from` text,
	`service_to` text,
	`kind` text NOT NULL,
	`product_id` text,
	`subscription_item_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoice_positions_invoice_idx` ON `invoice_positions` (`tenant_id`,`invoice_id`,`sort`);--> statement-breakpoint
ALTER TABLE `invoices` ADD `subscription_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `currency_code` text DEFAULT 'EUR' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `number_seq` integer;--> statement-breakpoint
ALTER TABLE `invoices` ADD `finalization_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `due_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `pay_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `last_sent_at` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `last_reminder_date` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `dunning_level` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `dunning_status` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `dunning_disabled` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `invoice_address` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `payment_method_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `referenced_invoice_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `internal_note` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `title` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `introduction` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `closing` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `net_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `tax_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `gross_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `discount_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `paid_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `tax_breakdown` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_date_from` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `service_date_to` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `source_type` text DEFAULT 'manual' NOT NULL;--> statement-breakpoint
ALTER TABLE `invoices` ADD `custom_fields` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `exchange_rates` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `billing_run_id` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `document_key` text;--> statement-breakpoint
ALTER TABLE `invoices` ADD `updated_at` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `invoices_status_idx` ON `invoices` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `invoices_subscription_idx` ON `invoices` (`tenant_id`,`subscription_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `invoices_number_seq_uq` ON `invoices` (`tenant_id`,`type`,`number_seq`);