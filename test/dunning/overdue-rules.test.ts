import { describe, expect, it } from 'vitest';
import { api, del, expect422, get, patch, post, type TestTenant } from '../support/api';
import { createTenant, keyWith } from '../support/builders';

// Overdue rules (/dunning/overdue-rules): the default set while a tenant has none, the tenant's own
// rules once it has one, and every amount a rule accepts is one that can be billed.

const mergePatch = (t: TestTenant, path: string, body: unknown) => api(path, { token: t.key, method: 'PATCH', body, contentType: 'application/merge-patch+json' });

describe('overdue rules', () => {
  it('lists the default set until the tenant writes its own, then only its own', async () => {
    const t = await createTenant();
    const defaults = await get(t, '/dunning/overdue-rules');
    expect(defaults.status).toBe(200);
    expect(defaults.body.data.map((r: any) => [r.id, r.level, r.type, r.daysOverdue, r.dueInDays, r.isDefault])).toEqual([
      ['default-1', 1, 'reminder', 7, 7, true],
      ['default-2', 2, 'dunning', 14, 7, true],
      ['default-3', 3, 'dunning', 28, 7, true],
    ]);
    const rule = await post(t, '/dunning/overdue-rules', {
      level: 1,
      type: 'dunning',
      daysOverdue: 10,
      dueInDays: 14,
      dunningFee: { amount: '2.50', currencyCode: 'EUR' },
      texts: { de: { title: 'Mahnung {number} zu {invoiceNumber}' } },
      finalAction: 'pause_subscriptions',
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    expect(rule.body).toMatchObject({ level: 1, dunningFeeCents: 250, dunningFee: { amount: '2.50', currencyCode: 'EUR' }, isDefault: false, finalAction: 'pause_subscriptions', attachInvoice: false });
    expect(rule.body.texts.de).toEqual({ title: 'Mahnung {number} zu {invoiceNumber}', introduction: null, closing: null, emailSubject: null, emailBody: null });
    const own = await get(t, '/dunning/overdue-rules');
    expect(own.body.data.map((r: any) => r.id)).toEqual([rule.body.id]);
    expect((await get(t, `/dunning/overdue-rules/${rule.body.id}`)).body.daysOverdue).toBe(10);

    const changed = await mergePatch(t, `/dunning/overdue-rules/${rule.body.id}`, { daysOverdue: 5, dunningFee: { amount: '3.00', currencyCode: 'EUR' } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({ daysOverdue: 5, dunningFeeCents: 300, texts: { de: { title: 'Mahnung {number} zu {invoiceNumber}' } } });
    // Either spelling of the fee patches it; the cents, when given, are the fee.
    const inCents = await mergePatch(t, `/dunning/overdue-rules/${rule.body.id}`, { dunningFeeCents: 450 });
    expect(inCents.status, JSON.stringify(inCents.body)).toBe(200);
    expect(inCents.body).toMatchObject({ dunningFeeCents: 450, dunningFee: { amount: '4.50', currencyCode: 'EUR' } });

    expect((await del(t, `/dunning/overdue-rules/${rule.body.id}`)).status).toBe(204);
    expect((await get(t, '/dunning/overdue-rules')).body.data.every((r: any) => r.isDefault)).toBe(true);
  });

  it('refuses rules that cannot be applied, one violation per broken rule, and writes nothing', async () => {
    const t = await createTenant();
    expect((await post(t, '/dunning/overdue-rules', { level: 2, type: 'dunning', daysOverdue: 7, dueInDays: 7 })).status).toBe(201);
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['a fee on a reminder', { level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7, dunningFeeCents: 100 }, ['dunningFeeCents']],
      ['more decimals than the currency has', { level: 1, type: 'dunning', daysOverdue: 7, dueInDays: 7, dunningFee: { amount: '2.001', currencyCode: 'EUR' } }, ['dunningFee.amount']],
      ['a level taken', { level: 2, type: 'dunning', daysOverdue: 7, dueInDays: 7 }, ['level']],
      ['level 0, negative days, an unknown type', { level: 0, type: 'letter', daysOverdue: -1, dueInDays: 7 }, ['level', 'type', 'daysOverdue']],
      ['an unknown currency and language', { level: 1, type: 'dunning', daysOverdue: 7, dueInDays: 7, dunningFee: { amount: '2.00', currencyCode: 'EURO' }, texts: { fr: {} } }, ['dunningFee.currencyCode', 'texts.fr']],
    ];
    for (const [name, body, fields] of cases) {
      const res = await post(t, '/dunning/overdue-rules', body);
      expect(res.status, name).toBe(422);
      expect422(res, fields);
    }
    expect((await get(t, '/dunning/overdue-rules')).body.data.map((r: any) => r.level)).toEqual([2]);
  });

  it('needs the dunning-rule permissions, and never shows another tenant’s rules', async () => {
    const t = await createTenant();
    const other = await createTenant();
    const rule = (await post(other, '/dunning/overdue-rules', { level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7 })).body;
    expect((await get(t, `/dunning/overdue-rules/${rule.id}`)).status).toBe(404);
    expect((await patch(t, `/dunning/overdue-rules/${rule.id}`, { daysOverdue: 1 })).status).toBe(404);
    const readOnly = await keyWith(t, ['dunning-rule:read']);
    expect((await api('/dunning/overdue-rules', { token: readOnly })).status).toBe(200);
    expect((await api('/dunning/overdue-rules', { token: readOnly, body: { level: 1, type: 'reminder', daysOverdue: 7, dueInDays: 7 } })).status).toBe(403);
  });
});
