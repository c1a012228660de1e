CREATE TABLE `offer_recipients` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`offer_id` text NOT NULL,
	`email` text NOT NULL,
	`email_key` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`role` text NOT NULL,
	`signing_status` text NOT NULL,
	`signing_log` text NOT NULL,
	`signing_name` text,
	`signed_at` text,
	`invited_at` text,
	`otp_hash` text,
	`otp_expires_at` text,
	`otp_attempts` integer DEFAULT 0 NOT NULL,
	`otp_window_started_at` text,
	`otp_codes_in_window` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `offer_recipients_offer_idx` ON `offer_recipients` (`tenant_id`,`offer_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `offer_recipients_email_uq` ON `offer_recipients` (`tenant_id`,`offer_id`,`email_key`);--> statement-breakpoint
CREATE TABLE `offer_templates` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`sections` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `offer_templates_tenant_idx` ON `offer_templates` (`tenant_id`,`type`,`created_at`);--> statement-breakpoint
CREATE TABLE `offers` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`number` text NOT NULL,
	`number_seq` integer NOT NULL,
	`name` text,
	`description` text,
	`sections` text NOT NULL,
	`locale` text NOT NULL,
	`status` text NOT NULL,
	`customer_id` text,
	`subscription_id` text,
	`prospect` text,
	`subscription_draft` text,
	`contact_person_id` text,
	`crm_deal_id` text,
	`auto_activate_subscription` integer NOT NULL,
	`content` text,
	`sent_at` text,
	`signed_at` text,
	`archived_at` text,
	`signed_document_id` text,
	`audit_log_document_id` text,
	`completed_at` text,
	`completion_attempts` integer DEFAULT 0 NOT NULL,
	`completion_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `offers_number_seq_uq` ON `offers` (`tenant_id`,`number_seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `offers_subscription_uq` ON `offers` (`tenant_id`,`subscription_id`);--> statement-breakpoint
CREATE INDEX `offers_tenant_idx` ON `offers` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `offers_status_idx` ON `offers` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `offers_customer_idx` ON `offers` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `offers_completion_idx` ON `offers` (`status`,`completed_at`);
