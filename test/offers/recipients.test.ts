import { beforeEach, describe, expect, it } from 'vitest';
import { api, countRows, del, eventsOf, expect422, expectProblem, get, post, put, query } from '../support/api';
import { createCustomer, createTenant, created, ok } from '../support/builders';
import { addRecipient, createOffer, linkOf, mailsTo, publicGet, newVisitorAddress } from './builders';

// Recipients (spec §2.6 Offer recipient): readers and signers with their own unguessable link,
// shown to the tenant by GET /offers/{id} only, and the invitation through the mail interface.

describe('offer recipients', () => {
  beforeEach(newVisitorAddress);
  it('adds readers and signers, one per e-mail address, each with a link of its own', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id }));
    const added = await addRecipient(t, offer.id, { email: 'Anna@Example.com', firstName: 'Anna', lastName: 'Leser' });
    expect(added.recipients).toEqual([
      {
        id: expect.any(String),
        email: 'Anna@Example.com',
        firstName: 'Anna',
        lastName: 'Leser',
        role: 'read',
        createdAt: expect.any(String),
        signingStatus: 'not_started',
        signingLog: [],
        signatureDone: false,
        signingName: null,
        signedAt: null,
        invitedAt: null,
        signedDocument: null,
        link: null,
      },
    ]);
    // Nothing is mailed without sendEmail, and the offer stays open (editable).
    expect(await mailsTo(t, 'Anna@Example.com')).toEqual([]);
    expect(added.status).toBe('open');
    expect422(await post(t, `/offers/${offer.id}/recipients`, { email: 'anna@example.COM', role: 'sign' }), ['email']);
    expect422(await post(t, `/offers/${offer.id}/recipients`, { email: 'not-an-address', role: 'boss', sendEmail: 'yes' }), ['email', 'role', 'sendEmail']);
    await addRecipient(t, offer.id, { email: 'bob@example.com', role: 'sign' });
    const a = await linkOf(t, offer.id, 'Anna@Example.com');
    const b = await linkOf(t, offer.id, 'bob@example.com');
    expect(a).not.toBe(b);
    expect((await publicGet(a)).body.recipient).toMatchObject({ email: 'Anna@Example.com', role: 'read' });
    expect((await publicGet(b)).body.recipient).toMatchObject({ email: 'bob@example.com', role: 'sign' });
  });

  it('a link is a credential: altered, forged or of a removed recipient it opens nothing; it is in no event or list', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id }));
    const withR = await addRecipient(t, offer.id, { email: 'r@example.com', role: 'sign' });
    const token = await linkOf(t, offer.id, 'r@example.com');
    const [tenant, recipient, mac] = token.split('.') as [string, string, string];
    const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [`${tenant}.${recipient}.${flipped}`, `${tenant}.${offer.id}.${mac}`, 'garbage', `${recipient}.${tenant}.${mac}`]) {
      expectProblem(await publicGet(bad), 404);
      expect((await api(`/offer/${bad}`)).status).toBe(404);
    }
    // Another tenant's id in an otherwise genuine-looking link finds nothing either.
    const other = await createTenant();
    expectProblem(await publicGet(`${other.id}.${recipient}.${mac}`), 404);
    // Nowhere but GET /offers/{id}.
    const stored = JSON.stringify(await eventsOf(t));
    expect(stored).not.toContain(mac);
    expect(JSON.stringify(withR)).not.toContain(mac);
    expect(JSON.stringify(await ok(get(t, '/offers')))).not.toContain(mac);
    expect(JSON.stringify(await query(t, 'SELECT * FROM offer_recipients WHERE tenant_id = ?', t.id))).not.toContain(mac);

    const removed = await ok(del(t, `/offers/${offer.id}/recipients/${withR.recipients[0].id}`));
    expect(removed.recipients).toEqual([]);
    expectProblem(await publicGet(token), 404);
    expectProblem(await del(t, `/offers/${offer.id}/recipients/${withR.recipients[0].id}`), 404);
  });

  it('sendEmail mails the invitation with the link and starts the signing', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id, name: 'Team', locale: 'en' }));
    const sent = await addRecipient(t, offer.id, { email: 'signer@example.com', firstName: 'Sam', role: 'sign', sendEmail: true });
    expect(sent).toMatchObject({ status: 'signing', sentAt: expect.any(String) });
    expect(sent.recipients[0]).toMatchObject({ invitedAt: expect.any(String), signingLog: [{ action: 'invited', ip: null, userAgent: null }] });
    const token = await linkOf(t, offer.id, 'signer@example.com');
    const [mail] = await mailsTo(t, 'signer@example.com');
    expect(mail!.subject).toMatch(/^Offer AN-000001 – Team from Tenant /);
    expect(mail!.body).toContain('Hello Sam,');
    expect(mail!.body).toContain(`http://billing.test/offer/${token}`);
    expect(mail!.body).toContain('sign it electronically');
  });

  it('PUT /offers/{id}/send mails every recipient who has not signed, and needs a signer', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id }));
    await addRecipient(t, offer.id, { email: 'reader@example.com' });
    expect422(await put(t, `/offers/${offer.id}/send`), ['recipients']);
    await addRecipient(t, offer.id, { email: 'signer@example.com', role: 'sign' });
    const sent = await ok(put(t, `/offers/${offer.id}/send`));
    expect(sent.status).toBe('signing');
    expect((await mailsTo(t, 'reader@example.com'))[0]!.subject).toMatch(/^Angebot AN-000001 von /);
    expect((await mailsTo(t, 'reader@example.com'))[0]!.body).toContain('Sie können es dort lesen.');
    expect((await mailsTo(t, 'signer@example.com'))[0]!.body).toContain('elektronisch unterschreiben');
    // Sending again reminds them; the offer stays in signing.
    expect((await ok(put(t, `/offers/${offer.id}/send`))).status).toBe('signing');
    expect(await mailsTo(t, 'signer@example.com')).toHaveLength(2);
  });

  it("changes a recipient's role (Fynn's PUT /offer-recipients/{id}/role)", async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id }));
    const withR = await addRecipient(t, offer.id, { email: 'x@example.com' });
    const id = withR.recipients[0].id;
    const changed = await ok(put(t, `/offer-recipients/${id}/role`, { role: 'sign' }));
    expect(changed).toMatchObject({ id, role: 'sign', link: null });
    expect422(await put(t, `/offer-recipients/${id}/role`, { role: 'owner' }), ['role']);
    expectProblem(await put(t, '/offer-recipients/unknown/role', { role: 'read' }), 404);
    const other = await createTenant();
    expectProblem(await put(other, `/offer-recipients/${id}/role`, { role: 'read' }), 404);
    expect(await countRows('offer_recipients', t, "AND role = 'sign'")).toBe(1);
  });
});
