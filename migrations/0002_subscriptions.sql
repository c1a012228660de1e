CREATE TABLE `applied_discounts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`coupon_id` text NOT NULL,
	`status` text NOT NULL,
	`applied_intervals` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `applied_discounts_subscription_idx` ON `applied_discounts` (`tenant_id`,`subscription_id`);--> statement-breakpoint
CREATE TABLE `entitlements` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`subscription_item_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`feature_id` text NOT NULL,
	`feature_code` text NOT NULL,
	`assignment_id` text NOT NULL,
	`value` text,
	`valid_from` text,
	`valid_until` text,
	`active` integer NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `entitlements_item_feature_uq` ON `entitlements` (`subscription_item_id`,`assignment_id`);--> statement-breakpoint
CREATE INDEX `entitlements_subscription_idx` ON `entitlements` (`tenant_id`,`subscription_id`);--> statement-breakpoint
CREATE INDEX `entitlements_customer_feature_idx` ON `entitlements` (`tenant_id`,`customer_id`,`feature_code`,`active`);--> statement-breakpoint
CREATE TABLE `feature_assignments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`feature_id` text NOT NULL,
	`object` text NOT NULL,
	`object_id` text NOT NULL,
	`value` text,
	`valid_from` text,
	`valid_until` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `feature_assignments_object_idx` ON `feature_assignments` (`tenant_id`,`object_id`);--> statement-breakpoint
CREATE TABLE `features` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text NOT NULL,
	`type` text NOT NULL,
	`config` text,
	`unit` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `features_code_uq` ON `features` (`tenant_id`,`code`);--> statement-breakpoint
CREATE TABLE `payment_methods` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`gateway_name` text NOT NULL,
	`type` text NOT NULL,
	`name` text,
	`status` text NOT NULL,
	`is_default` integer NOT NULL,
	`enabled` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `payment_methods_customer_idx` ON `payment_methods` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE TABLE `subscription_comments` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`text` text NOT NULL,
	`author` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `subscription_comments_idx` ON `subscription_comments` (`tenant_id`,`subscription_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `subscription_items` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`parent_id` text,
	`product_id` text NOT NULL,
	`price_plan_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`quantity` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`further_information` text,
	`start_date` text,
	`end_date` text,
	`billing_start` text,
	`last_billed_from` text,
	`last_billed_to` text,
	`last_billed_at` text,
	`activated_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `subscription_items_subscription_idx` ON `subscription_items` (`tenant_id`,`subscription_id`);--> statement-breakpoint
CREATE INDEX `subscription_items_product_idx` ON `subscription_items` (`tenant_id`,`product_id`);--> statement-breakpoint
CREATE INDEX `subscription_items_price_plan_idx` ON `subscription_items` (`tenant_id`,`price_plan_id`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`number` text NOT NULL,
	`external_id` text,
	`name` text NOT NULL,
	`customer_id` text NOT NULL,
	`plan_id` text,
	`status` text NOT NULL,
	`billing_group_id` text,
	`payment_method_id` text,
	`invoice_address_id` text,
	`po_number` text,
	`contract_start` text NOT NULL,
	`contract_period` text,
	`cancellation_period` text,
	`contract_period_count` integer NOT NULL,
	`billing_anchor` text,
	`billing_resume_at` text,
	`trial_days` integer NOT NULL,
	`trial_ends_on` text,
	`trial_expired_at` text,
	`activated_at` text,
	`paused_at` text,
	`last_billing_at` text,
	`cancellation_date` text,
	`cancelled_at` text,
	`cancellation_reason_id` text,
	`terminated_at` text,
	`custom_fields` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `subscriptions_number_uq` ON `subscriptions` (`tenant_id`,`number`);--> statement-breakpoint
CREATE INDEX `subscriptions_customer_idx` ON `subscriptions` (`tenant_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `subscriptions_status_idx` ON `subscriptions` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_created_idx` ON `subscriptions` (`tenant_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `usage_events` (
	`tenant_id` text NOT NULL,
	`event_id` text NOT NULL,
	`subscription_item_id` text NOT NULL,
	`measurement_id` text NOT NULL,
	`quantity` text NOT NULL,
	`quantity_micros` integer NOT NULL,
	`unique_id` text,
	`measured_at` text NOT NULL,
	`received_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `event_id`)
);
--> statement-breakpoint
CREATE INDEX `usage_events_item_idx` ON `usage_events` (`tenant_id`,`subscription_item_id`,`measured_at`);