CREATE TABLE `api_key_directory` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `tenant_directory` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`moving_since` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tenant_directory_shard_idx` ON `tenant_directory` (`shard`);--> statement-breakpoint
CREATE INDEX `tenant_directory_created_idx` ON `tenant_directory` (`created_at`,`tenant_id`);