CREATE TABLE `carts` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`checkout_link_id` text NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`customer_id` text,
	`email` text,
	`payment_method_id` text,
	`subscription_id` text,
	`invoice_id` text,
	`currency_code` text NOT NULL,
	`amount_due` integer NOT NULL,
	`state` text NOT NULL,
	`expires_at` text NOT NULL,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `carts_tenant_idx` ON `carts` (`tenant_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `carts_status_idx` ON `carts` (`tenant_id`,`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `checkout_links` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`slug` text NOT NULL,
	`is_enabled` integer NOT NULL,
	`after_checkout` text NOT NULL,
	`options` text NOT NULL,
	`items` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `checkout_links_slug_uq` ON `checkout_links` (`tenant_id`,`slug`);--> statement-breakpoint
CREATE INDEX `checkout_links_tenant_idx` ON `checkout_links` (`tenant_id`,`created_at`);