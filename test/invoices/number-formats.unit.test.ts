import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';

// Migration 0011 (Fynn's number formats) on a database that already has tenants: stored formats
// keep their meaning ({year} was the four-digit year and becomes {yearLong}), and tenants that
// numbered with the old defaults keep them; only tenants created afterwards get Fynn's defaults.

const sql = import.meta.glob('../../migrations/*.sql', { query: '?raw', import: 'default', eager: true });
const files = Object.keys(sql)
  .map((path) => path.split('/').pop()!)
  .sort();

function apply(db: DatabaseSync, file: string) {
  for (const statement of sql[`../../migrations/${file}`]!.split('--> statement-breakpoint')) if (statement.trim()) db.exec(statement);
}

const setting = (db: DatabaseSync, tenant: string, key: string) =>
  (db.prepare('SELECT value FROM settings WHERE tenant_id = ? AND key = ?').get(tenant, key) as { value: string } | undefined)?.value;

describe('migration 0011_fynn_number_formats', () => {
  it('rewrites stored {year} to {yearLong} and pins the old defaults for existing tenants', () => {
    const db = new DatabaseSync(':memory:');
    const index = files.findIndex((f) => f.startsWith('0011_'));
    expect(index).toBeGreaterThan(0);
    for (const f of files.slice(0, index)) apply(db, f);
    const tenant = db.prepare(`INSERT INTO tenants (id, name, country_code, default_currency, time_zone, mode, created_at) VALUES (?, 'Old', 'DE', 'EUR', 'Europe/Berlin', 'live', '2025-01-01T00:00:00Z')`);
    tenant.run('old');
    tenant.run('custom');
    const store = db.prepare(`INSERT INTO settings (tenant_id, key, value, updated_at) VALUES (?, ?, ?, '2025-01-01T00:00:00Z')`);
    store.run('custom', 'invoice.numberFormat', JSON.stringify('INV/{year}/{month}/{number}'));
    store.run('custom', 'customer.numberFormat', JSON.stringify('K{year}-{number:4}'));
    store.run('custom', 'invoice.paymentTermDays', '30');

    apply(db, files[index]!);

    // The tenant that kept the defaults numbers as before: RE-2026-00001, GS-2026-00001, …
    expect(setting(db, 'old', 'invoice.numberFormat')).toBe('"RE-{yearLong}-{number:5}"');
    expect(setting(db, 'old', 'credit.numberFormat')).toBe('"GS-{yearLong}-{number:5}"');
    expect(setting(db, 'old', 'cancellation.numberFormat')).toBe('"ST-{yearLong}-{number:5}"');
    expect(setting(db, 'old', 'dunningLetter.numberFormat')).toBe('"MA-{yearLong}-{number:5}"');
    expect(setting(db, 'old', 'customer.numberFormat')).toBeUndefined(); // its default did not change
    // Stored formats keep their four-digit year; other settings are untouched.
    expect(setting(db, 'custom', 'invoice.numberFormat')).toBe('"INV/{yearLong}/{month}/{number}"');
    expect(setting(db, 'custom', 'customer.numberFormat')).toBe('"K{yearLong}-{number:4}"');
    expect(setting(db, 'custom', 'invoice.paymentTermDays')).toBe('30');
    expect(setting(db, 'custom', 'credit.numberFormat')).toBe('"GS-{yearLong}-{number:5}"');

    // Applying it again changes nothing ({yearLong} does not contain "{year}").
    apply(db, files[index]!);
    expect(setting(db, 'custom', 'invoice.numberFormat')).toBe('"INV/{yearLong}/{month}/{number}"');
  });
});
