-- Fynn's number formats (docs/decisions.md, Invoices and billing, "Number formats").
-- 1. `{year}` now means the two-digit year, as in Fynn; `{yearLong}` is the four-digit year that
--    `{year}` used to mean. Stored formats are rewritten so existing tenants keep their numbers.
UPDATE `settings` SET `value` = replace(`value`, '{year}', '{yearLong}') WHERE `key` LIKE '%.numberFormat' AND `value` LIKE '%{year}%';--> statement-breakpoint
-- 2. Fynn's formats (RE-0000000001) are the defaults for new tenants only: a tenant that existed
--    before keeps numbering its document ranges in the format it used (the old defaults, pinned).
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'invoice.numberFormat', '"RE-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'credit.numberFormat', '"GS-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'cancellation.numberFormat', '"ST-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'refund.numberFormat', '"RF-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'reminder.numberFormat', '"ER-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
--> statement-breakpoint
INSERT OR IGNORE INTO `settings` (`tenant_id`, `key`, `value`, `updated_at`) SELECT `id`, 'dunningLetter.numberFormat', '"MA-{yearLong}-{number:5}"', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') FROM `tenants`;
