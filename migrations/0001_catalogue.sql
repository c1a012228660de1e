CREATE TABLE `billing_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`custom_day` integer,
	`custom_month` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `billing_groups_tenant_idx` ON `billing_groups` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `cancellation_reasons` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cancellation_reasons_code_uq` ON `cancellation_reasons` (`tenant_id`,`code`);--> statement-breakpoint
CREATE TABLE `cost_centres` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`type` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cost_centres_code_uq` ON `cost_centres` (`tenant_id`,`code`);--> statement-breakpoint
CREATE TABLE `coupon_redemptions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`coupon_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`subscription_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `coupon_redemptions_coupon_idx` ON `coupon_redemptions` (`tenant_id`,`coupon_id`,`customer_id`);--> statement-breakpoint
CREATE TABLE `coupons` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`percentage` integer,
	`fixed_amount` integer,
	`fixed_amount_currency` text,
	`frequency` text NOT NULL,
	`frequency_interval` integer,
	`max_redemptions` integer,
	`max_redemptions_per_customer` integer,
	`expires_at` text,
	`limited_to_plans` text NOT NULL,
	`excluded_from_plans` text NOT NULL,
	`limited_to_products` text NOT NULL,
	`excluded_from_products` text NOT NULL,
	`is_enabled` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `coupons_code_uq` ON `coupons` (`tenant_id`,`code`);--> statement-breakpoint
CREATE INDEX `coupons_tenant_idx` ON `coupons` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `measurements` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`unit_id` text NOT NULL,
	`code` text NOT NULL,
	`description` text,
	`fair_billing` integer NOT NULL,
	`aggregation_type` text NOT NULL,
	`type` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `measurements_code_uq` ON `measurements` (`tenant_id`,`code`);--> statement-breakpoint
CREATE TABLE `plans` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`family_id` text NOT NULL,
	`code` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`origin_product_id` text,
	`allow_checkout` integer NOT NULL,
	`status` text NOT NULL,
	`change_behaviour` text NOT NULL,
	`change_apply_behaviour` text,
	`contract_period` text,
	`cancellation_period` text,
	`items` text NOT NULL,
	`addons` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `plans_code_uq` ON `plans` (`tenant_id`,`code`);--> statement-breakpoint
CREATE INDEX `plans_tenant_idx` ON `plans` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `price_plans` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`product_id` text NOT NULL,
	`internal_name` text,
	`status` text NOT NULL,
	`type` text NOT NULL,
	`calculation_type` text NOT NULL,
	`currency_code` text NOT NULL,
	`price_amount` text,
	`percentage` text,
	`tiers` text,
	`free_units` text NOT NULL,
	`billing_interval` text,
	`show_price_per_interval` text,
	`apply_trial` integer NOT NULL,
	`pay_in_advance` integer NOT NULL,
	`pro_rata` integer NOT NULL,
	`custom` integer NOT NULL,
	`customer_id` text,
	`sales_channel` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `price_plans_product_idx` ON `price_plans` (`tenant_id`,`product_id`);--> statement-breakpoint
CREATE INDEX `price_plans_tenant_idx` ON `price_plans` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `product_families` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `product_families_tenant_idx` ON `product_families` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`internal_name` text,
	`number` text,
	`type` text NOT NULL,
	`product_families` text NOT NULL,
	`measurement_id` text NOT NULL,
	`tax_group_id` text NOT NULL,
	`invoice_visibility` text NOT NULL,
	`cost_centre_id` text,
	`is_archived` integer NOT NULL,
	`custom_fields` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_number_uq` ON `products` (`tenant_id`,`number`);--> statement-breakpoint
CREATE INDEX `products_tenant_idx` ON `products` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tax_groups` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`internal_description` text,
	`reverse_charge_type` text NOT NULL,
	`type` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tax_groups_tenant_idx` ON `tax_groups` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `taxes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`tax_group_id` text NOT NULL,
	`country_code` text NOT NULL,
	`valid_from` text NOT NULL,
	`rate` text NOT NULL,
	`code` text NOT NULL,
	`description` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `taxes_scope_uq` ON `taxes` (`tenant_id`,`tax_group_id`,`country_code`,`valid_from`);--> statement-breakpoint
CREATE TABLE `units` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`code` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `units_code_uq` ON `units` (`tenant_id`,`code`);