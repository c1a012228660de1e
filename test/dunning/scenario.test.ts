import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { eventsOf, get, query } from '../support/api';
import { countedStatus, createCustomer, createTenant } from '../support/builders';
import { pdfText } from '../support/oracles';
import { day, documentsOf, hundredEuroInvoice, moveTo, pay, scenarioRules, setDunningDisabled } from './builders';

// The 60-day scenario through the test clock, every amount written out by hand:
// invoice 100.00 EUR (84.03 net + 15.97 VAT) made on day 0, due on day 14;
// rules: reminder 7 days after the due date, dunning letters 7 days after the previous document's
// due date with fees of 5.00 and 10.00, each document giving 7 days to pay.

const money = (amount: string) => ({ amount, currencyCode: 'EUR' });

describe('dunning over 60 days of the test clock', () => {
  it('reminds on day 21, dunns on days 35 and 49 with fees, and stops when paid in full on day 55', async () => {
    const t = await createTenant();
    await moveTo(t, 0);
    await scenarioRules(t);
    const customer = await createCustomer(t, { firstName: 'Erika', lastName: 'Mustermann', language: 'de' });
    const invoice = await hundredEuroInvoice(t, customer.id);
    const quiet = await hundredEuroInvoice(t, customer.id);
    expect(invoice.grossAmount).toEqual(money('100.00'));
    expect(invoice.dueDate).toBe(day(14));
    expect((await setDunningDisabled(t, quiet.id, true)).status).toBe(200);

    await moveTo(t, 20);
    expect(await documentsOf(t, invoice.id)).toEqual([]);

    await moveTo(t, 21);
    const [reminder] = await documentsOf(t, invoice.id);
    expect(reminder).toMatchObject({
      level: 1,
      type: 'reminder',
      status: 'open',
      number: 'ER-0000000001',
      documentDate: day(21),
      dueDate: day(28),
      dunningFeeCents: 0,
      dunningFee: money('0.00'),
      openAmount: money('100.00'),
      amountDue: money('100.00'),
      invoice: { id: invoice.id, number: invoice.number },
      customer: { id: customer.id },
      recipient: { name: 'Erika Mustermann' },
      title: 'Zahlungserinnerung ER-0000000001',
    });
    expect(reminder.positions).toEqual([{ type: 'invoice', name: `Rechnung ${invoice.number} vom 02.03.2026`, amount: money('100.00'), level: null }]);
    expect(reminder.introduction).toContain('100,00 €');
    expect(reminder.introduction).toContain('bis zum 30.03.2026');
    let inv = (await get(t, `/invoices/${invoice.id}`)).body;
    expect(inv).toMatchObject({ status: 'STATUS_REMINDED', dunningLevel: 1, dunningStatus: 'reminder', lastReminderDate: day(21) });

    // Nothing more before the reminder's due date plus 7 days.
    await moveTo(t, 34);
    expect(await documentsOf(t, invoice.id)).toHaveLength(1);

    await moveTo(t, 35);
    const second = (await documentsOf(t, invoice.id))[1];
    expect(second).toMatchObject({ level: 2, type: 'dunning', number: 'MA-0000000001', dueDate: day(42), dunningFeeCents: 500, dunningFee: money('5.00'), openAmount: money('100.00'), amountDue: money('105.00') });
    expect(second.positions.map((p: any) => [p.type, p.amount.amount, p.level])).toEqual([
      ['invoice', '100.00', null],
      ['dunning_fee', '5.00', 2],
    ]);
    inv = (await get(t, `/invoices/${invoice.id}`)).body;
    expect(inv).toMatchObject({ status: 'STATUS_REMINDED', dunningLevel: 2, dunningStatus: 'dunning', lastReminderDate: day(35) });

    // A partial payment keeps the invoice in dunning: 100.00 − 30.00 = 70.00 open.
    await moveTo(t, 40);
    expect((await pay(t, invoice.id, '30.00')).status).toBe(201);

    await moveTo(t, 49);
    const third = (await documentsOf(t, invoice.id))[2];
    // Open 70.00 + fees 5.00 (level 2) + 10.00 (level 3) = 85.00.
    expect(third).toMatchObject({ level: 3, number: 'MA-0000000002', dueDate: day(56), dunningFeeCents: 1000, openAmount: money('70.00'), amountDue: money('85.00') });
    expect(third.positions.map((p: any) => [p.type, p.amount.amount, p.level])).toEqual([
      ['invoice', '100.00', null],
      ['dunning_fee', '5.00', 2],
      ['dunning_fee', '10.00', 3],
    ]);

    // The last document as the customer gets it: a PDF with the amounts, mailed with the invoice attached.
    const [file] = await query<{ storage_file_name: string }>(t, `SELECT storage_file_name FROM media WHERE tenant_id = ? AND owner_type = 'dunning_document' AND owner_id = ?`, t.id, third.id);
    const text = await pdfText(new Uint8Array(await (await env.DOCUMENTS.get(file!.storage_file_name))!.arrayBuffer()));
    for (const expected of ['MA-0000000002', 'Mahngebühr (Stufe 2)', 'Mahngebühr (Stufe 3)', '115,00', '30,00', '85,00', invoice.number]) expect(text).toContain(expected);
    const mails = await query<{ subject: string; attachments: string; to: string }>(t, `SELECT subject, attachments, "to" FROM outgoing_mails WHERE tenant_id = ? ORDER BY created_at`, t.id);
    expect(mails.map((m) => m.subject)).toEqual([`Zahlungserinnerung zur Rechnung ${invoice.number}`, `Mahnung zur Rechnung ${invoice.number}`, `Mahnung zur Rechnung ${invoice.number}`]);
    expect(mails.every((m) => m.to === customer.email)).toBe(true);
    expect(JSON.parse(mails[2]!.attachments).map((a: any) => a.fileName)).toEqual(['MA-0000000002.pdf', `${invoice.number}.pdf`]);

    // Paid in full on day 55: every open document is paid, and dunning stops.
    await moveTo(t, 55);
    expect((await pay(t, invoice.id, '70.00')).status).toBe(201);
    expect((await documentsOf(t, invoice.id)).map((d) => d.status)).toEqual(['paid', 'paid', 'paid']);
    await moveTo(t, 60);
    expect(await documentsOf(t, invoice.id)).toHaveLength(3);
    inv = (await get(t, `/invoices/${invoice.id}`)).body;
    expect(inv).toMatchObject({ status: 'STATUS_PAID', dunningLevel: 3 });

    // The invoice with dunning disabled got nothing in all that time.
    expect(await documentsOf(t, quiet.id)).toEqual([]);
    const q = (await get(t, `/invoices/${quiet.id}`)).body;
    expect({ ...q, status: countedStatus(q) }).toMatchObject({ status: 'STATUS_UNPAID', dunningLevel: 0, dunningStatus: 'none' });

    const types = (await eventsOf(t)).map((e) => e.type);
    expect(types.filter((x) => x === 'dunning_document.created')).toHaveLength(3);
    expect(types.filter((x) => x === 'invoice.remindered')).toHaveLength(3);
    expect(types.filter((x) => x === 'dunning_document.paid')).toHaveLength(3);
    const created = (await eventsOf(t)).filter((e) => e.type === 'dunning_document.created').map((e) => (e.data as any).number);
    expect(created).toEqual(['ER-0000000001', 'MA-0000000001', 'MA-0000000002']);
  });
});
