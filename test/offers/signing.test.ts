import { env } from 'cloudflare:workers';
import { beforeEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/crypto';
import { sweepOffers } from '../../src/services/offers/signing';
import { api, download, eventsOf, expect422, expectProblem, expectStatus, get, put, query, sweepOf, type TestTenant } from '../support/api';
import { createCustomer, createTenant, created, ok, setClock } from '../support/builders';
import { pdfText } from '../support/oracles';
import { addRecipient, createOffer, lastCode, linkOf, mailsTo, offerCatalogue, offerSubscription, publicGet, requestCode, sign, signAs, visitor, newVisitorAddress } from './builders';

// The recipient's side (spec §4.1 GET /public/offers/{id}) and what signing does: every step in
// the signing log, a one-time code to the signer's e-mail and the typed name, the offer signed
// with its two PDFs when the last signer signed, and the subscription started by itself.

const text = async (bytes: Uint8Array) => (await pdfText(bytes)).replace(/[ \u00a0]+/g, ' ');

/** Both files of a signed offer, through its download links. */
async function files(t: TestTenant, offerId: string) {
  const links = await ok(put(t, `/offers/${offerId}/download-link`));
  const path = (url: string) => url.slice('http://billing.test'.length);
  const signed = await download(path(links.signedDocumentUrl));
  const audit = await download(path(links.auditLogDocumentUrl));
  expect([signed.status, audit.status]).toEqual([200, 200]);
  return { signed: signed.bytes, audit: audit.bytes };
}

async function offerFor(t: TestTenant, extra: Record<string, unknown> = {}) {
  const c = await offerCatalogue(t);
  const customer = await createCustomer(t, { companyName: 'Käufer GmbH' });
  const offer = await created(createOffer(t, { customer: customer.id, name: 'Team licence', sections: ['<h2>Scope</h2><p>All <strong>features</strong>.</p>'], subscription: offerSubscription(c), ...extra }));
  return { c, customer, offer };
}

beforeEach(newVisitorAddress);

describe('reading an offer through its link', () => {
  it('shows the public offer with line items priced by billing, and logs each view with IP and user agent', async () => {
    const t = await createTenant();
    await setClock(t, '2026-03-10T09:00:00Z');
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'buyer@example.com', firstName: 'Erika', lastName: 'Muster', role: 'sign' });
    const token = await linkOf(t, offer.id, 'buyer@example.com');
    const res = await publicGet(token);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      number: 'AN-000001',
      name: 'Team licence',
      sections: ['<h2>Scope</h2><p>All <strong>features</strong>.</p>'],
      signed: false,
      canSign: true,
      status: 'open',
      signedAt: null,
      signedDocumentUrl: null,
      recipient: { email: 'buyer@example.com', role: 'sign', signingStatus: 'started', signedAt: null },
    });
    // 5 seats at 10.00 and 250.00 once: 300.00 net, 19 % VAT (the customer is in DE).
    expect(res.body.offerLineItems.map((i: any) => [i.name, i.quantity, i.unitPrice, i.recurringAmount?.amount ?? null, i.firstInvoiceAmount?.amount, i.taxRate])).toEqual([
      ['Team seats', '5', '10.00', '50.00', '50.00', '19'],
      ['Onboarding', '1', '250.00', null, '250.00', '19'],
    ]);
    expect(res.body.totals).toMatchObject({ netAmount: { amount: '300.00' }, taxAmount: { amount: '57.00' }, grossAmount: { amount: '357.00' }, firstBillingDate: '2026-03-10T09:00:00.000Z' });
    // Billing's own estimate of the subscription says the same.
    expect((await ok(get(t, `/subscriptions/${offer.subscription.id}/estimated-amount`))).amount).toBe('300.00');

    // The same browser again right away is not a new entry; another one is.
    expectStatus(await publicGet(token), 200);
    expectStatus(await api(`/public/offers/${token}`, { headers: { 'CF-Connecting-IP': '198.51.100.4', 'User-Agent': 'Other/2.0' } }), 200);
    const [r] = (await ok(get(t, `/offers/${offer.id}`))).recipients;
    expect(r.signingLog).toEqual([
      { at: '2026-03-10T09:00:00.000Z', action: 'viewed', ip: visitor['CF-Connecting-IP'], userAgent: 'OfferTest/1.0' },
      { at: '2026-03-10T09:00:00.000Z', action: 'viewed', ip: '198.51.100.4', userAgent: 'Other/2.0' },
    ]);
    expect(r.signingStatus).toBe('started');
  });

  it('a reader reads but cannot sign', async () => {
    const t = await createTenant();
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'reader@example.com' });
    const token = await linkOf(t, offer.id, 'reader@example.com');
    expect((await publicGet(token)).body.canSign).toBe(false);
    expectProblem(await requestCode(token), 403);
    expectProblem(await sign(token, { code: '123456', fullName: 'Reader', accept: true }), 403);
    expect(await mailsTo(t, 'reader@example.com')).toEqual([]);
  });
});

describe('signing', () => {
  it('asks for a code (which freezes the offer), refuses a wrong one, signs with the right one and the typed name', async () => {
    const t = await createTenant();
    const { c, offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'buyer@example.com', firstName: 'Erika', lastName: 'Muster', role: 'sign' });
    const token = await linkOf(t, offer.id, 'buyer@example.com');
    const sent = await requestCode(token);
    expectStatus(sent, 200);
    expect(sent.body).toEqual({ sent: true, expiresAt: expect.any(String), email: 'b***@example.com' });
    const code = await lastCode(t, 'buyer@example.com');
    expect((await mailsTo(t, 'buyer@example.com'))[0]!.subject).toBe('Ihr Code zum Unterschreiben von Angebot AN-000001');
    // The code is stored only as an HMAC, never as itself.
    expect(JSON.stringify(await query(t, 'SELECT * FROM offer_recipients WHERE tenant_id = ?', t.id))).not.toContain(code);
    expect(JSON.stringify(await eventsOf(t))).not.toContain(code);

    // Signing started: what the signer reads can no longer change.
    const frozen = await ok(get(t, `/offers/${offer.id}`));
    expect(frozen.status).toBe('signing');
    expect(frozen.recipients[0].signingStatus).toBe('pending');
    expectProblem(await put(t, `/offers/${offer.id}`, { sections: ['<p>changed</p>'] }), 409, '/problems/offer-signing');
    expectProblem(await put(t, `/subscriptions/${offer.subscription.id}`, { customer: offer.customer.id, ...offerSubscription(c) }), 409, '/problems/offer-signing');
    // What does not change the content may.
    expect((await ok(put(t, `/offers/${offer.id}`, { autoActivateSubscription: true, name: 'Team licence' }))).status).toBe('signing');

    const wrong = code === '000000' ? '111111' : '000000';
    expect422(await sign(token, { code: wrong, fullName: 'Erika Muster', accept: true }), ['code']);
    expect422(await sign(token, { code, fullName: ' ', accept: false }), ['accept', 'fullName']);
    expect422(await sign(token, { code: 'abc', fullName: 'Erika Muster' }), ['accept', 'code']);
    const signed = await sign(token, { code, fullName: '  Erika   Muster ', accept: true });
    expectStatus(signed, 200);
    expect(signed.body).toMatchObject({ signed: true, canSign: false, status: 'signed', recipient: { signingStatus: 'signed' }, signedDocumentUrl: expect.stringMatching(/^http:\/\/billing\.test\/public\/documents\//) });
    // The code is spent.
    expectProblem(await sign(token, { code, fullName: 'Erika Muster', accept: true }), 409, '/problems/invalid-transition');

    const after = await ok(get(t, `/offers/${offer.id}`));
    expect(after.recipients[0]).toMatchObject({ signingStatus: 'signed', signatureDone: true, signingName: 'Erika Muster', signedAt: after.signedAt, signedDocument: after.signedDocument });
    expect(after.recipients[0].signingLog.map((e: any) => [e.action, e.ip, e.userAgent])).toEqual([
      ['code_sent', visitor['CF-Connecting-IP'], visitor['User-Agent']],
      ['code_rejected', visitor['CF-Connecting-IP'], visitor['User-Agent']],
      ['signed', visitor['CF-Connecting-IP'], visitor['User-Agent']],
    ]);
  });

  it('counts tries: after five wrong codes the right one is refused too; at most five codes an hour', async () => {
    const t = await createTenant();
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'buyer@example.com', role: 'sign' });
    const token = await linkOf(t, offer.id, 'buyer@example.com');
    expectStatus(await requestCode(token), 200);
    const code = await lastCode(t, 'buyer@example.com');
    const wrong = code === '999999' ? '888888' : '999999';
    for (let i = 0; i < 5; i++) expect422(await sign(token, { code: wrong, fullName: 'Bo Buyer', accept: true }), ['code']);
    expect422(await sign(token, { code, fullName: 'Bo Buyer', accept: true }), ['code']);
    // An expired code is refused as well.
    for (let i = 0; i < 4; i++) expectStatus(await requestCode(token), 200);
    const limited = await requestCode(token);
    expectProblem(limited, 429, '/problems/too-many-codes');
    expect(limited.headers.get('Retry-After')).toBe('600');
    expect(await mailsTo(t, 'buyer@example.com')).toHaveLength(5);
    const latest = await lastCode(t, 'buyer@example.com');
    await query(t, "UPDATE offer_recipients SET otp_expires_at = '2000-01-01T00:00:00.000Z' WHERE tenant_id = ?", t.id);
    expect422(await sign(token, { code: latest, fullName: 'Bo Buyer', accept: true }), ['code']);
    expect((await ok(get(t, `/offers/${offer.id}`))).recipients[0].signingStatus).toBe('pending');
  });

  it('waits for every signer; the last signature signs the offer, stores both PDFs and activates the subscription', async () => {
    const t = await createTenant();
    await setClock(t, '2026-05-04T08:00:00Z');
    const { offer } = await offerFor(t, { locale: 'en' });
    await addRecipient(t, offer.id, { email: 'ceo@kaeufer.example', firstName: 'Clara', lastName: 'Chef', role: 'sign' });
    await addRecipient(t, offer.id, { email: 'cfo@kaeufer.example', firstName: 'Frank', lastName: 'Finanz', role: 'sign' });
    await addRecipient(t, offer.id, { email: 'cc@kaeufer.example', role: 'read' });
    await ok(put(t, `/offers/${offer.id}/send`));
    const ceo = await linkOf(t, offer.id, 'ceo@kaeufer.example');
    const cfo = await linkOf(t, offer.id, 'cfo@kaeufer.example');
    expectStatus(await publicGet(ceo), 200);
    const first = await signAs(t, ceo, 'ceo@kaeufer.example', 'Clara Chef');
    expect(first).toMatchObject({ signed: false, status: 'signing', recipient: { signingStatus: 'signed' } });
    expect((await ok(get(t, `/offers/${offer.id}`))).subscription.status).toBe('offer');
    // Others signed: a signer can no longer be removed or become a reader.
    const cfoId = (await ok(get(t, `/offers/${offer.id}`))).recipients[1].id;
    expectProblem(await put(t, `/offer-recipients/${cfoId}/role`, { role: 'read' }), 409);

    await signAs(t, cfo, 'cfo@kaeufer.example', 'Frank Finanz');
    const signed = await ok(get(t, `/offers/${offer.id}`));
    expect(signed).toMatchObject({
      status: 'signed',
      signedAt: '2026-05-04T08:00:00.000Z',
      signedDocument: { mimeType: 'application/pdf', fileExtension: 'pdf', fileName: 'AN-000001-signed.pdf' },
      auditLogDocument: { mimeType: 'application/pdf', fileExtension: 'pdf', fileName: 'AN-000001-audit-log.pdf' },
      activationError: null,
    });
    expect(signed.subscription).toMatchObject({ status: 'active', activatedAt: '2026-05-04T08:00:00.000Z' });
    const types = (await eventsOf(t)).map((e) => e.type);
    expect(types.filter((x) => x.startsWith('offer.'))).toEqual(['offer.created', 'offer.updated', 'offer.updated', 'offer.updated', 'offer.updated', 'offer.updated', 'offer.updated', 'offer.signed']);
    expect(types).toContain('subscription.activated');
    const signedEvent = (await eventsOf(t, offer.id)).find((e) => e.type === 'offer.signed')!;
    expect(signedEvent.data).toMatchObject({ status: 'signed', signedDocument: { id: signed.signedDocument.id }, auditLogDocument: { id: signed.auditLogDocument.id } });
    expect(JSON.stringify(signedEvent.data.recipients.map((r: any) => r.link))).toBe('[null,null,null]');

    // The signed document: the offer as signed and a page with both signatures.
    const { signed: signedPdf, audit } = await files(t, offer.id);
    const signedText = await text(signedPdf);
    for (const expected of ['Offer AN-000001: Team licence', 'Scope', 'All features.', 'Team seats', '€50.00', '€250.00', 'First invoice, gross €357.00', 'Signatures', 'simple electronic signature', 'Clara Chef', 'Frank Finanz', 'Signed by Frank Finanz <cfo@kaeufer.example>', '2026-05-04 08:00:00 UTC']) {
      expect(signedText).toContain(expected);
    }
    // The audit log: every entry of every recipient, and the SHA-256 of the stored signed document.
    const hash = await sha256Hex(signedPdf);
    const [row] = await query<{ sha256: string }>(t, 'SELECT sha256 FROM media WHERE id = ?', signed.signedDocument.id);
    expect(row!.sha256).toBe(hash);
    const auditText = await text(audit);
    expect(auditText).toContain(`SHA-256: ${hash}`);
    expect(auditText).toContain('AN-000001-signed.pdf');
    for (const expected of ['Invitation e-mailed', 'Offer opened', 'Code e-mailed', 'Signed (code', `IP ${visitor['CF-Connecting-IP']}`, 'OfferTest/1.0', 'Clara Chef <ceo@kaeufer.example>', 'cc@kaeufer.example', 'by the seller']) {
      expect(auditText).toContain(expected);
    }
    // R2 holds the bytes the media rows describe.
    const stored = await env.DOCUMENTS.get(`${t.id}/offers/${offer.id}/AN-000001-signed.pdf`);
    expect(stored && (await sha256Hex(new Uint8Array(await stored.arrayBuffer())))).toBe(hash);

    // The first invoice billing makes is what the offer said.
    await setClock(t, '2026-05-04T08:00:01Z');
    const invoices = (await ok(get(t, `/invoices?subscription=${offer.subscription.id}`))).data;
    expect(invoices.map((i: any) => i.grossAmount)).toEqual([{ amount: '357.00', currencyCode: 'EUR' }]);

    // A signed offer cannot be changed.
    expectProblem(await put(t, `/offers/${offer.id}`, { name: 'x' }), 409, '/problems/invalid-transition');
    expectProblem(await put(t, `/offers/${offer.id}/archive`), 409, '/problems/invalid-transition');
    expectProblem(await requestCode(await linkOf(t, offer.id, 'cc@kaeufer.example')), 403);
  });

  it('without autoActivateSubscription the subscription waits in status offer for the tenant', async () => {
    const t = await createTenant();
    const { c, offer } = await offerFor(t, { autoActivateSubscription: false });
    await addRecipient(t, offer.id, { email: 'b@example.com', role: 'sign' });
    await signAs(t, await linkOf(t, offer.id, 'b@example.com'), 'b@example.com', 'Bea Buyer');
    const signed = await ok(get(t, `/offers/${offer.id}`));
    expect(signed.status).toBe('signed');
    expect(signed.subscription.status).toBe('offer');
    // Signed is final: its subscription's items stay as signed.
    expectProblem(await put(t, `/subscriptions/${offer.subscription.id}`, { customer: offer.customer.id, ...offerSubscription(c) }), 409, '/problems/offer-signing');
    expect((await ok(put(t, `/subscriptions/${offer.subscription.id}/activate`, {}))).status).toBe('active');
  });

  it('for a prospect makes the customer from the signer, then the subscription, and starts it', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const offer = await created(createOffer(t, { prospect: { companyName: 'Neukunde GmbH', countryCode: 'AT' }, subscription: offerSubscription(c), locale: 'en' }));
    await addRecipient(t, offer.id, { email: 'Boss@Neukunde.example', firstName: 'Nina', lastName: 'Neu', role: 'sign' });
    const token = await linkOf(t, offer.id, 'Boss@Neukunde.example');
    // A business in Austria: Austrian VAT without a VAT id (20 %).
    expect((await publicGet(token)).body.totals).toMatchObject({ netAmount: { amount: '300.00' }, taxAmount: { amount: '60.00' }, grossAmount: { amount: '360.00' } });
    await signAs(t, token, 'Boss@Neukunde.example', 'Nina Neu');
    const signed = await ok(get(t, `/offers/${offer.id}`));
    expect(signed.customer).toMatchObject({ companyName: 'Neukunde GmbH', firstName: 'Nina', lastName: 'Neu' });
    const customer = await ok(get(t, `/customers/${signed.customer.id}`));
    expect(customer).toMatchObject({ email: 'Boss@Neukunde.example', countryCode: 'AT', language: 'en' });
    expect(signed.subscription).toMatchObject({ status: 'active', customer: { id: customer.id } });
    expect(signed.subscription.items.map((i: any) => i.quantity)).toEqual(['5', '1']);
    const types = (await eventsOf(t)).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['customer.created', 'subscription.created', 'subscription.activated', 'offer.signed']));
  });

  it("a prospect signer who is a customer already becomes the offer's customer", async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const known = await createCustomer(t, { email: 'known@example.com' });
    const offer = await created(createOffer(t, { subscription: offerSubscription(c) }));
    await addRecipient(t, offer.id, { email: 'KNOWN@example.com', role: 'sign' });
    await signAs(t, await linkOf(t, offer.id, 'KNOWN@example.com'), 'KNOWN@example.com', 'Known Person');
    const signed = await ok(get(t, `/offers/${offer.id}`));
    expect(signed.customer.id).toBe(known.id);
    expect(signed.subscription.customer.id).toBe(known.id);
  });

  it('cancelling the signing voids the signatures so far and opens the offer again', async () => {
    const t = await createTenant();
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    await addRecipient(t, offer.id, { email: 'b@example.com', role: 'sign' });
    await signAs(t, await linkOf(t, offer.id, 'a@example.com'), 'a@example.com', 'Anna A');
    const reopened = await ok(put(t, `/offers/${offer.id}/cancel-signing`));
    expect(reopened.status).toBe('open');
    expect(reopened.recipients.map((r: any) => [r.signingStatus, r.signingName, r.signingLog.at(-1).action])).toEqual([
      ['not_started', null, 'signing_cancelled'],
      ['not_started', null, 'signing_cancelled'],
    ]);
    expect((await ok(put(t, `/offers/${offer.id}`, { sections: ['<p>Better terms</p>'] }))).sections).toEqual(['<p>Better terms</p>']);
    expect((await publicGet(await linkOf(t, offer.id, 'a@example.com'))).body.sections).toEqual(['<p>Better terms</p>']);
    expectProblem(await put(t, `/offers/${offer.id}/cancel-signing`), 409, '/problems/invalid-transition');
  });

  it("an archived offer's link shows that it was withdrawn and signs nothing", async () => {
    const t = await createTenant();
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    const token = await linkOf(t, offer.id, 'a@example.com');
    expectStatus(await requestCode(token), 200);
    const code = await lastCode(t, 'a@example.com');
    await ok(put(t, `/offers/${offer.id}/archive`));
    const view = await publicGet(token);
    expect(view.body).toMatchObject({ status: 'archived', canSign: false, signed: false, sections: [], offerLineItems: [], totals: null });
    expectProblem(await requestCode(token), 409, '/problems/invalid-transition');
    expectProblem(await sign(token, { code, fullName: 'Anna A', accept: true }), 409, '/problems/invalid-transition');
  });

  it('a failed activation is recorded and finished by the sweeper once the cause is gone', async () => {
    const t = await createTenant();
    const { c, offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    const token = await linkOf(t, offer.id, 'a@example.com');
    expectStatus(await requestCode(token), 200);
    // The seats are archived while the offer is out: the subscription cannot start with them.
    expectStatus(await put(t, `/catalogue/products/${c.seats.product.id}/archive`), 200);
    expectStatus(await sign(token, { code: await lastCode(t, 'a@example.com'), fullName: 'Anna A', accept: true }), 200);
    const failed = await ok(get(t, `/offers/${offer.id}`));
    expect(failed.status).toBe('signed');
    expect(failed.subscription.status).toBe('offer');
    expect(failed.activationError).toMatch(/archived/);

    expectStatus(await put(t, `/catalogue/products/${c.seats.product.id}/unarchive`), 200);
    expect(await sweepOffers(env, await sweepOf(t))).toMatchObject({ completed: expect.any(Number) });
    const done = await ok(get(t, `/offers/${offer.id}`));
    expect(done).toMatchObject({ activationError: null, subscription: { status: 'active' } });
    // Completed offers are not swept again.
    const [row] = await query<{ completed_at: string | null; completion_attempts: number }>(t, 'SELECT completed_at, completion_attempts FROM offers WHERE id = ?', offer.id);
    expect(row).toEqual({ completed_at: expect.any(String), completion_attempts: 1 });
  });

  it('the sweeper finishes an offer whose last signature was not followed by its files', async () => {
    const t = await createTenant();
    const { offer } = await offerFor(t);
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    await signAs(t, await linkOf(t, offer.id, 'a@example.com'), 'a@example.com', 'Anna A');
    // As if the request had died after the signature: the offer still signing, no files recorded.
    await query(t, "UPDATE offers SET status = 'signing', signed_at = NULL, signed_document_id = NULL, audit_log_document_id = NULL, completed_at = NULL WHERE id = ?", offer.id);
    await query(t, 'DELETE FROM media WHERE owner_id = ?', offer.id);
    expect((await sweepOffers(env, await sweepOf(t))).finished).toBe(1);
    const again = await ok(get(t, `/offers/${offer.id}`));
    expect(again.status).toBe('signed');
    expect(again.signedDocument.fileName).toBe('AN-000001-signed.pdf');
  });

  it('hostile rich text reaches neither the public offer nor the page as markup', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(
      createOffer(t, {
        customer: customer.id,
        name: '<img src=x onerror=alert(1)>',
        description: '<script>alert(2)</script>',
        sections: ['<p onmouseover="alert(3)">Hi <a href="javascript:alert(4)">there</a><iframe src="https://evil.example"></iframe></p><svg onload=alert(5)>'],
      }),
    );
    expect(offer.sections).toEqual(['<p>Hi there</p>']);
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    const token = await linkOf(t, offer.id, 'a@example.com');
    const page = await api(`/offer/${token}`);
    expect(page.status).toBe(200);
    const html = String(page.body);
    expect(html).not.toMatch(/<(script|img|iframe|svg)\b/i);
    expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(html).not.toMatch(/href="javascript:/i);
    // Name and description are text, shown escaped.
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(html).toContain('<p>Hi there</p>');
  });
});
