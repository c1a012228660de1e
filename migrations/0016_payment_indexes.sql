CREATE INDEX `payment_methods_expiry_idx` ON `payment_methods` (`tenant_id`,`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `bank_account_transactions_import_idx` ON `bank_account_transactions` (`tenant_id`,`import_id`);--> statement-breakpoint
CREATE INDEX `transactions_sepa_file_idx` ON `transactions` (`tenant_id`,`sepa_file_id`);