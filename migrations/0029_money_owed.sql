ALTER TABLE `invoice_payments` ADD `dunning_fee_amount` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `invoices_referenced_idx` ON `invoices` (`tenant_id`,`referenced_invoice_id`);