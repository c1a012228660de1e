ALTER TABLE `invoice_payments` ADD `fee_amount` integer;--> statement-breakpoint
ALTER TABLE `invoice_positions` ADD `unit` text;--> statement-breakpoint
ALTER TABLE `invoice_positions` ADD `tax_group` text;--> statement-breakpoint
ALTER TABLE `invoice_positions` ADD `tax` text;--> statement-breakpoint
ALTER TABLE `invoice_positions` ADD `discount_percentage` text;--> statement-breakpoint
ALTER TABLE `invoice_positions` ADD `unit_price_interval` text;