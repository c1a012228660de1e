ALTER TABLE `tenant_directory` ADD `slug` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tenant_directory_slug_uq` ON `tenant_directory` (`slug`);