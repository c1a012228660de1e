import { describe, expect, it } from 'vitest';
import { expectStatus, patch, post, put, query } from '../support/api';
import { createCustomer, ok, tick } from '../support/builders';
import { expectInvoices, I, invoicesOf, invoicesOfCustomer, item, L, local, offer, subscribe, tenantAt } from './scenario';

// Billing scenarios: who is billed (partners) and how (manual approval). Every expected invoice is
// written out by hand; scenario.ts has the builders and the conventions the expectations rely on.

describe('who is billed, and how', () => {
  it('partner billing: the invoice goes to the partner, at its address, taxed for the partner', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '50.00');
    const partner = await createCustomer(t, { companyName: 'Reseller GmbH', isPartner: true, street: 'Hauptstraße', houseNumber: '1', zip: '10115', city: 'Berlin' });
    const customer = await createCustomer(t, { countryCode: 'FR', firstName: 'Jean', lastName: 'Dupont', street: 'Rue de Rivoli', houseNumber: '5', zip: '75001', city: 'Paris' });
    await ok(put(t, `/customers/${customer.id}/partner`, { partner: partner.id }));
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Via reseller' });
    await tick(t, local('2025-01-01'));

    // The partner (DE) receives it: 50.00 net; × 19 % = 9.50; gross 59.50 (not the French 20 % of the end customer).
    const invoices = await invoicesOf(t, sub.id);
    expectInvoices(invoices, [
      I({
        number: 'RE-0000000001',
        at: local('2025-01-01'),
        groups: [['Via reseller', [L('Pro', local('2025-01-01'), local('2025-02-01'), '1', '50.00')]]],
        taxes: [['19', 'S', '50.00', '9.50']],
        net: '50.00',
        tax: '9.50',
        gross: '59.50',
      }),
    ]);
    expect(invoices[0].customer.id).toBe(partner.id);
    expect(invoices[0].invoiceAddress).toMatchObject({ city: 'Berlin', zip: '10115', companyName: 'Reseller GmbH' });
    expect((await invoicesOfCustomer(t, partner.id)).map((i) => i.id)).toEqual([invoices[0].id]);
    expect(await invoicesOfCustomer(t, customer.id)).toEqual([]);
  });

  it('manual approval (tenant setting): drafts without a number, invoice.requires_approval, numbered when approved', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '25.00');
    await ok(patch(t, '/settings', { settings: [{ key: 'requiresManualInvoiceApproval', value: true }] }));
    const needsApproval = await createCustomer(t);
    const optedOut = await createCustomer(t);
    await ok(patch(t, `/customers/${optedOut.id}/settings/billing`, { requiresManualInvoiceApproval: false }));
    const s1 = await subscribe(t, needsApproval.id, [item(pro)], { name: 'Approved' });
    const s2 = await subscribe(t, optedOut.id, [item(pro)], { name: 'Direct' });
    await tick(t, local('2025-01-01'));
    await tick(t, local('2025-02-01'));

    // 25.00 net; × 19 % = 4.75; gross 29.75 each month.
    const month = (name: string, number: any, status: string, from: string, to: string) =>
      I({
        number,
        status,
        at: local(from),
        groups: [[name, [L('Pro', local(from), local(to), '1', '25.00')]]],
        taxes: [['19', 'S', '25.00', '4.75']],
        net: '25.00',
        tax: '4.75',
        gross: '29.75',
      });
    const drafts = await invoicesOf(t, s1.id);
    expectInvoices(drafts, [month('Approved', null, 'STATUS_DRAFT', '2025-01-01', '2025-02-01'), month('Approved', null, 'STATUS_DRAFT', '2025-02-01', '2025-03-01')]);
    const approvalEvents = await query<{ resource_id: string }>(t, "SELECT resource_id FROM events WHERE tenant_id = ? AND type = 'invoice.requires_approval'", t.id);
    expect(approvalEvents.map((e) => e.resource_id).sort()).toEqual(drafts.map((d) => d.id).sort());
    // The customer who opted out is billed and numbered at once (numbers 1 and 2).
    expectInvoices(await invoicesOf(t, s2.id), [
      month('Direct', 'RE-0000000001', 'STATUS_UNPAID', '2025-01-01', '2025-02-01'),
      month('Direct', 'RE-0000000002', 'STATUS_UNPAID', '2025-02-01', '2025-03-01'),
    ]);

    // Approval finalizes: numbers are taken in the order of approval, without gaps.
    await tick(t, local('2025-02-03'));
    const second = await ok(post(t, `/invoices/${drafts[1].id}/approve`));
    expect(second).toMatchObject({ number: 'RE-0000000003', status: 'STATUS_FINALIZING', finalizationDate: local('2025-02-03') });
    const first = await ok(post(t, `/invoices/${drafts[0].id}/approve`));
    expect(first.number).toBe('RE-0000000004');
    expectStatus(await post(t, `/invoices/${drafts[0].id}/approve`), 409);
    // Approving bills nothing again.
    await tick(t, local('2025-02-04'));
    expect(await invoicesOf(t, s1.id)).toHaveLength(2);
  });

  it('manual approval (customer billing setting) on a tenant without it', async () => {
    const { t, c } = await tenantAt(local('2025-01-01'));
    const pro = await offer(t, c, 'Pro', '25.00');
    const customer = await createCustomer(t);
    await ok(patch(t, `/customers/${customer.id}/settings/billing`, { requiresManualInvoiceApproval: true }));
    const sub = await subscribe(t, customer.id, [item(pro)], { name: 'Approved' });
    await tick(t, local('2025-01-01'));
    const [inv] = await invoicesOf(t, sub.id);
    // 25.00 net; × 19 % = 4.75; gross 29.75, left as a draft.
    expectInvoices([inv], [
      I({
        number: null,
        status: 'STATUS_DRAFT',
        at: local('2025-01-01'),
        groups: [['Approved', [L('Pro', local('2025-01-01'), local('2025-02-01'), '1', '25.00')]]],
        taxes: [['19', 'S', '25.00', '4.75']],
        net: '25.00',
        tax: '4.75',
        gross: '29.75',
      }),
    ]);
    expect((await ok(post(t, `/invoices/${inv.id}/approve`))).number).toBe('RE-0000000001');
  });
});
