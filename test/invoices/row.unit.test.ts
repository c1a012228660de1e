import { getTableColumns } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { invoices } from '../../src/db/schema';
import { newInvoiceRow } from '../../src/services/invoices/row';

const ctx = { tenant: { id: 'tenant-1' }, now: new Date('2026-03-01T10:00:00Z') };

describe('newInvoiceRow', () => {
  it('gives every column of the invoices table a value, so call sites name only what differs', () => {
    const row = newInvoiceRow(ctx, { customerId: 'c', type: 'TYPE_INVOICE', currencyCode: 'EUR' });
    for (const column of Object.keys(getTableColumns(invoices))) expect(row, column).toHaveProperty(column);
    expect(Object.values(row)).not.toContain(undefined);
    expect(row).toMatchObject({
      tenantId: 'tenant-1',
      status: 'STATUS_DRAFT',
      number: null,
      dunningStatus: 'none',
      grossAmount: 0,
      sourceType: 'manual',
      createdAt: '2026-03-01T10:00:00.000Z',
      updatedAt: '2026-03-01T10:00:00.000Z',
    });
    expect(row.id).toEqual(expect.any(String));
  });

  it('takes the given fields; an undefined one keeps its default', () => {
    const row = newInvoiceRow(ctx, { id: 'inv', customerId: 'c', type: 'TYPE_CREDIT', currencyCode: 'USD', dunningDisabled: true, title: undefined, referencedInvoiceId: 'orig' });
    expect(row).toMatchObject({ id: 'inv', type: 'TYPE_CREDIT', currencyCode: 'USD', dunningDisabled: true, title: null, referencedInvoiceId: 'orig' });
  });
});
