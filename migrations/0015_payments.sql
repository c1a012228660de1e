CREATE TABLE `bank_account_transaction_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`bank_account_transaction_id` text NOT NULL,
	`invoice_id` text NOT NULL,
	`transaction_id` text,
	`amount` integer NOT NULL,
	`fee` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`matched_by` text NOT NULL,
	`matched_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_assignments_pair_uq` ON `bank_account_transaction_assignments` (`tenant_id`,`bank_account_transaction_id`,`invoice_id`);--> statement-breakpoint
CREATE INDEX `bank_assignments_invoice_idx` ON `bank_account_transaction_assignments` (`tenant_id`,`invoice_id`);--> statement-breakpoint
CREATE TABLE `bank_account_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`import_id` text,
	`open_banking_account_id` text,
	`fingerprint` text NOT NULL,
	`status` text NOT NULL,
	`account_iban` text,
	`booking_date` text,
	`value_date` text,
	`amount` integer NOT NULL,
	`currency_code` text NOT NULL,
	`counterparty_name` text,
	`counterparty_iban` text,
	`remittance_information` text,
	`end_to_end_id` text,
	`mandate_reference` text,
	`return_reason` text,
	`return_fee` integer,
	`assigned_amount` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_account_transactions_fingerprint_uq` ON `bank_account_transactions` (`tenant_id`,`fingerprint`);--> statement-breakpoint
CREATE INDEX `bank_account_transactions_status_idx` ON `bank_account_transactions` (`tenant_id`,`status`,`booking_date`);--> statement-breakpoint
CREATE TABLE `bank_statement_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`sha256` text NOT NULL,
	`format` text NOT NULL,
	`entries` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bank_statement_imports_uq` ON `bank_statement_imports` (`tenant_id`,`sha256`);--> statement-breakpoint
CREATE TABLE `gateway_credentials` (
	`tenant_id` text NOT NULL,
	`gateway` text NOT NULL,
	`secret_key` text NOT NULL,
	`webhook_secret` text,
	`publishable_key` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `gateway`)
);
--> statement-breakpoint
CREATE TABLE `open_banking_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`alias` text,
	`bank_name` text,
	`iban` text NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_account_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`valid_until` text,
	`last_accessed_at` text,
	`last_informed_at` text,
	`sync_cursor` text
);
--> statement-breakpoint
CREATE INDEX `open_banking_accounts_tenant_idx` ON `open_banking_accounts` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sepa_files` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`kind` text NOT NULL,
	`format` text NOT NULL,
	`message_id` text NOT NULL,
	`collection_date` text NOT NULL,
	`number_of_transactions` integer NOT NULL,
	`control_sum` integer NOT NULL,
	`currency_code` text NOT NULL,
	`media_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sepa_files_message_uq` ON `sepa_files` (`tenant_id`,`message_id`);--> statement-breakpoint
CREATE INDEX `sepa_files_created_idx` ON `sepa_files` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`invoice_id` text,
	`payment_method_id` text,
	`type` text NOT NULL,
	`gateway` text NOT NULL,
	`status` text NOT NULL,
	`description` text,
	`document_number` text,
	`currency_code` text NOT NULL,
	`amount` integer NOT NULL,
	`refunded_amount` integer DEFAULT 0 NOT NULL,
	`charged_amount` integer DEFAULT 0 NOT NULL,
	`fee_amount` integer DEFAULT 0 NOT NULL,
	`fail_reason` text,
	`reference_id` text,
	`idempotency_key` text NOT NULL,
	`parent_transaction_id` text,
	`attempt` integer DEFAULT 1 NOT NULL,
	`next_retry_at` text,
	`sepa_file_id` text,
	`sepa_sequence_type` text,
	`collection_date` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`paid_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_idempotency_uq` ON `transactions` (`tenant_id`,`idempotency_key`);--> statement-breakpoint
CREATE INDEX `transactions_invoice_idx` ON `transactions` (`tenant_id`,`invoice_id`);--> statement-breakpoint
CREATE INDEX `transactions_customer_idx` ON `transactions` (`tenant_id`,`customer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_reference_idx` ON `transactions` (`gateway`,`reference_id`);--> statement-breakpoint
CREATE INDEX `transactions_retry_idx` ON `transactions` (`tenant_id`,`next_retry_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_live_payment_uq` ON `transactions` (`tenant_id`,`invoice_id`) WHERE type = 'payment' AND status IN ('pending', 'processing', 'action_required');--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `updated_at` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `source` text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `reference_id` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `data` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `expires_at` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `details` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `iban` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `gateway_token` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `mandate_reference` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `mandate_signed_at` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `mandate_first_used_at` text;--> statement-breakpoint
ALTER TABLE `payment_methods` ADD `revoked_at` text;--> statement-breakpoint
CREATE UNIQUE INDEX `payment_methods_mandate_uq` ON `payment_methods` (`tenant_id`,`mandate_reference`);--> statement-breakpoint
ALTER TABLE `invoice_payments` ADD `transaction_id` text;--> statement-breakpoint
UPDATE `payment_methods` SET `updated_at` = `created_at` WHERE `updated_at` = '';
