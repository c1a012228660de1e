ALTER TABLE `subscriptions` ADD `cancellation_reason_text` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `last_billing_error_at` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `last_billing_error_code` text;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `last_billing_error_message` text;