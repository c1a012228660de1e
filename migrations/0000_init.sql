CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text,
	`key_prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`permissions` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_tenant_idx` ON `api_keys` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `contact_persons` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`email` text NOT NULL,
	`avatar` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `contact_persons_tenant_idx` ON `contact_persons` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `custom_fields` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`resource` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`options` text,
	`required` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `custom_fields_name_uq` ON `custom_fields` (`tenant_id`,`resource`,`name`);--> statement-breakpoint
CREATE TABLE `customer_addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`is_default` integer NOT NULL,
	`status` text NOT NULL,
	`vat_id` text,
	`company_name` text,
	`salutation` text,
	`first_name` text,
	`last_name` text,
	`street` text NOT NULL,
	`house_number` text NOT NULL,
	`addition` text NOT NULL,
	`zip` text NOT NULL,
	`city` text NOT NULL,
	`country_code` text NOT NULL,
	`cost_centre` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `customer_addresses_customer_idx` ON `customer_addresses` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customer_addresses_default_uq` ON `customer_addresses` (`customer_id`,`type`) WHERE is_default = 1;--> statement-breakpoint
CREATE TABLE `customer_email_addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`email` text NOT NULL,
	`receiver_name` text,
	`type` text NOT NULL,
	`is_default` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `customer_emails_customer_idx` ON `customer_email_addresses` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `customer_emails_default_uq` ON `customer_email_addresses` (`customer_id`,`type`) WHERE is_default = 1;--> statement-breakpoint
CREATE TABLE `customer_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `customer_groups_tenant_idx` ON `customer_groups` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `customer_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`refresh_token_hash` text NOT NULL,
	`family_id` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customer_sessions_hash_uq` ON `customer_sessions` (`refresh_token_hash`);--> statement-breakpoint
CREATE INDEX `customer_sessions_family_idx` ON `customer_sessions` (`family_id`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_number` text NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`country_code` text NOT NULL,
	`time_zone` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`currency_code` text,
	`company_name` text,
	`vat_id` text,
	`is_vat_id_valid` integer NOT NULL,
	`tax_exempt` text NOT NULL,
	`ledger_id` text,
	`commercial_register_name` text,
	`commercial_register_number` text,
	`status` text NOT NULL,
	`gender` text,
	`phone` text,
	`language` text NOT NULL,
	`total_turnover_rank` integer,
	`customer_group_id` text,
	`contact_person_id` text,
	`custom_fields` text,
	`is_partner` integer NOT NULL,
	`partner_id` text,
	`requires_manual_invoice_approval` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_email_uq` ON `customers` (`tenant_id`,`email_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `customers_number_uq` ON `customers` (`tenant_id`,`customer_number`);--> statement-breakpoint
CREATE INDEX `customers_created_idx` ON `customers` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `customers_status_idx` ON `customers` (`tenant_id`,`status`);--> statement-breakpoint
CREATE INDEX `customers_partner_idx` ON `customers` (`tenant_id`,`partner_id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`type` text NOT NULL,
	`version` text NOT NULL,
	`resource_id` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`published_at` text
);
--> statement-breakpoint
CREATE INDEX `events_tenant_idx` ON `events` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_unpublished_idx` ON `events` (`published_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_content_type` text,
	`response_body` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `invoices` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`number` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `invoices_customer_idx` ON `invoices` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE TABLE `sequences` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`value` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`tenant_id` text NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`country_code` text NOT NULL,
	`default_currency` text NOT NULL,
	`time_zone` text NOT NULL,
	`mode` text NOT NULL,
	`test_clock_now` text,
	`created_at` text NOT NULL
);
