CREATE TABLE `customer_otp_codes` (
	`tenant_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`code_hash` text,
	`expires_at` text NOT NULL,
	`attempts` integer NOT NULL,
	`window_started_at` text NOT NULL,
	`codes_in_window` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `customer_id`)
);
