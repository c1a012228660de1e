ALTER TABLE `outgoing_mails` ADD `status` text DEFAULT 'recorded' NOT NULL;--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `next_attempt_at` text;--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `provider_message_id` text;--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `outgoing_mails` ADD `sent_at` text;--> statement-breakpoint
CREATE INDEX `outgoing_mails_due_idx` ON `outgoing_mails` (`status`,`next_attempt_at`);