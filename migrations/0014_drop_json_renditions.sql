ALTER TABLE `invoices` DROP COLUMN `document_key`;--> statement-breakpoint
ALTER TABLE `outgoing_mails` DROP COLUMN `attachment_key`;