import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { shardNames } from '../../src/db/shards';
import { put, query, shardOf } from '../support/api';
import { createCustomer, createTenant, ok } from '../support/builders';
import { cartGet, cartPut, checkoutCatalogue, GERMAN_ADDRESS, openCart } from '../checkout/builders';
import { downloadLinks, fetchLink, finalizedInvoice, LETTERHEAD } from '../documents/builders';

// Public routes find their tenant without credentials: checkout links and gateway webhooks name it
// in the path, download links in the signed query, a cart through its object (and, when the
// object lost it, on every shard); then they work on the tenant's shard (docs/decisions.md,
// Tenancy and shards). Shard 1 is the one the single-database code never knew.

describe.each(shardNames(env))('public routes of a tenant on %s', (shard) => {
  it('open, read, change and complete a checkout cart', async () => {
    const t = await createTenant({ shard });
    expect(await shardOf(t)).toBe(shard);
    await checkoutCatalogue(t);
    const opened = await openCart(t);
    expect(opened.status).toBe(201);
    const cart = opened.body;
    expect((await query(t, 'SELECT tenant_id, status FROM carts WHERE id = ?', cart.id))).toEqual([{ tenant_id: t.id, status: 'open' }]);
    expect((await cartPut(cart.id, 'change-quantity', { cartItemId: cart.items[0].id, quantity: 3 })).status).toBe(200);
    expect((await cartGet(cart.id)).body.items[0].quantity).toBe(3);
    const confirmed = await cartPut(cart.id, 'confirm', { email: `buyer-${shard}@example.com`, newInvoiceAddress: GERMAN_ADDRESS, newPaymentMethod: { type: 'bank_transfer' } });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(await query(t, 'SELECT count(*) AS n FROM customers WHERE tenant_id = ? AND email = ?', t.id, `buyer-${shard}@example.com`)).toEqual([{ n: 1 }]);
  });

  it('find a cart whose object lost it, on whichever shard holds it', async () => {
    const t = await createTenant({ shard });
    await checkoutCatalogue(t);
    const cart = (await openCart(t)).body;
    const { runInDurableObject } = await import('cloudflare:test');
    await runInDurableObject(env.CART.get(env.CART.idFromName(cart.id)), async (obj, state) => {
      await state.storage.deleteAll();
      (obj as unknown as { cached: unknown }).cached = undefined;
    });
    const read = await cartGet(cart.id);
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(cart.id);
    expect((await cartGet('A'.repeat(32))).status).toBe(404);
  });

  it('download a finalized document through its signed link', async () => {
    const t = await createTenant({ shard });
    await ok(put(t, '/settings/documents', LETTERHEAD));
    const invoice = await finalizedInvoice(t, (await createCustomer(t, { street: 'Hauptstr.', houseNumber: '1', zip: '10115', city: 'Berlin' })).id);
    const links = await downloadLinks(t, invoice.id);
    expect(new URL(links.url).searchParams.get('tenant')).toBe(t.id);
    const pdf = await fetchLink(links.url);
    expect(pdf.status).toBe(200);
    expect(new TextDecoder().decode(pdf.bytes.slice(0, 5))).toBe('%PDF-');
    expect((await fetchLink(links.xmlUrl!)).status).toBe(200);
  });
});
