-- Skipped periods are recorded with a null invoice (they were marked with the text 'skipped').
-- Nothing references billing_ledger, so the rebuild needs no foreign-key pragmas (D1 always enforces foreign keys; it offers only defer_foreign_keys).
CREATE TABLE `__new_billing_ledger` (
	`tenant_id` text NOT NULL,
	`subscription_item_id` text NOT NULL,
	`period_start` text NOT NULL,
	`kind` text NOT NULL,
	`period_end` text,
	`invoice_id` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`subscription_item_id`, `period_start`, `kind`)
);
--> statement-breakpoint
INSERT INTO `__new_billing_ledger`("tenant_id", "subscription_item_id", "period_start", "kind", "period_end", "invoice_id", "created_at") SELECT "tenant_id", "subscription_item_id", "period_start", "kind", "period_end", NULLIF("invoice_id", 'skipped'), "created_at" FROM `billing_ledger`;--> statement-breakpoint
DROP TABLE `billing_ledger`;--> statement-breakpoint
ALTER TABLE `__new_billing_ledger` RENAME TO `billing_ledger`;--> statement-breakpoint
CREATE INDEX `billing_ledger_invoice_idx` ON `billing_ledger` (`tenant_id`,`invoice_id`);