CREATE TABLE `item_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`subscription_item_id` text NOT NULL,
	`effective_at` text NOT NULL,
	`from_quantity` text NOT NULL,
	`to_quantity` text NOT NULL,
	`from_price_plan_id` text NOT NULL,
	`to_price_plan_id` text NOT NULL,
	`applied_at` text,
	`billed_at` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `item_changes_item_idx` ON `item_changes` (`tenant_id`,`subscription_item_id`,`effective_at`);