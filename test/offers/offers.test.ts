import { describe, expect, it } from 'vitest';
import { countRows, del, eventsOf, expect422, expectProblem, get, ids, patch, post, put, query } from '../support/api';
import { createCustomer, createTenant, created, eventTypes, keyWith, ok } from '../support/builders';
import { api } from '../support/api';
import { addRecipient, createOffer, offerCatalogue, offerSubscription } from './builders';

// The tenant's side of offers (spec §2.6, §4.1, §4.2): create for a customer or a prospect, the
// offer's own number range, the subscription in status offer, PUT, archive, delete, list.

describe('creating offers', () => {
  it('makes the subscription in status offer, numbers the offer from its range and sends offer.created', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t, { language: 'en' });
    const offer = await created(createOffer(t, { customer: customer.id, name: 'Team licence', description: 'For your team.', crmDealId: 'deal-7', subscription: offerSubscription(c, { trialDays: 14 }) }));
    expect(offer).toMatchObject({
      number: 'AN-000001',
      name: 'Team licence',
      description: 'For your team.',
      status: 'open',
      locale: 'en',
      customer: { id: customer.id },
      prospect: null,
      recipients: [],
      signedDocument: null,
      auditLogDocument: null,
      signedAt: null,
      autoActivateSubscription: true,
      crmDealId: 'deal-7',
      contactPerson: null,
    });
    expect(offer.subscription).toMatchObject({ status: 'offer', customer: { id: customer.id }, trialDays: 14 });
    expect(offer.subscription.items.map((i: any) => [i.product.id, i.quantity, i.status])).toEqual([
      [c.seats.product.id, '5', 'pending'],
      [c.setup.product.id, '1', 'pending'],
    ]);
    // The subscription is a subscription like any other, in status offer.
    expect((await ok(get(t, `/subscriptions/${offer.subscription.id}`))).status).toBe('offer');
    expect(ids(await get(t, '/subscriptions?status=offer'))).toEqual([offer.subscription.id]);
    const events = await eventsOf(t);
    const createdEvent = events.find((e) => e.type === 'offer.created')!;
    expect(createdEvent.data).toMatchObject({ id: offer.id, number: 'AN-000001', subscription: { id: offer.subscription.id, status: 'offer' } });
    expect(events.filter((e) => e.type === 'subscription.created').map((e) => e.resourceId)).toEqual([offer.subscription.id]);
  });

  it('keeps the range gap-free: a refused offer takes no number, and the format is the setting', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    expect((await created(createOffer(t, { customer: customer.id, subscription: offerSubscription(c) }))).number).toBe('AN-000001');
    expect422(await createOffer(t, { customer: customer.id, subscription: { items: [{ product: 'nope', pricePlan: c.seats.price.id }] } }), ['subscription.items[0].product']);
    expect((await created(createOffer(t, { customer: customer.id }))).number).toBe('AN-000002');
    expect((await patch(t, '/settings', { settings: [{ key: 'offer.numberFormat', value: 'ANG-{yearLong}-{number:3}' }] })).status).toBe(200);
    const third = await created(createOffer(t, { customer: customer.id }));
    expect(third.number).toMatch(/^ANG-\d{4}-003$/);
    expect((await query<{ n: number }>(t, 'SELECT number_seq AS n FROM offers WHERE tenant_id = ? ORDER BY number_seq', t.id)).map((r) => r.n)).toEqual([1, 2, 3]);
  });

  it('takes the sections of its templates first, then its own, all sanitized', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const intro = await created(post(t, '/offer-templates', { name: 'Intro', type: 'offer', sections: ['<p>Intro</p>'] }));
    const terms = await created(post(t, '/offer-templates', { name: 'Terms', sections: ['<p>Terms</p>', '<p>Privacy</p>'] }));
    const offer = await created(
      createOffer(t, { customer: customer.id, offerTemplateId: intro.id, templates: [terms.id], sections: ['<p>Own <em>words</em><script>x()</script></p>'] }),
    );
    expect(offer.sections).toEqual(['<p>Intro</p>', '<p>Terms</p>', '<p>Privacy</p>', '<p>Own <em>words</em></p>']);
    expect422(await createOffer(t, { customer: customer.id, offerTemplateId: 'missing', templates: [terms.id, 'gone'] }), ['offerTemplateId', 'templates[1]']);
  });

  it('for a prospect keeps the subscription to make at signing, and makes nothing yet', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const offer = await created(createOffer(t, { prospect: { companyName: 'Neukunde GmbH', countryCode: 'AT' }, subscription: offerSubscription(c), locale: 'de' }));
    expect(offer).toMatchObject({ customer: null, subscription: null, prospect: { companyName: 'Neukunde GmbH', countryCode: 'AT' } });
    expect(offer.subscriptionDraft).toMatchObject({ items: [{ product: c.seats.product.id, quantity: '5' }, { product: c.setup.product.id, quantity: '1' }], trialDays: 0 });
    expect(await countRows('subscriptions', t)).toBe(0);
    expect(await countRows('customers', t)).toBe(0);
    // An offer with neither is for a prospect too.
    expect((await created(createOffer(t, {}))).prospect).toEqual({ companyName: null, countryCode: null });
  });

  it('refuses bad input, each rule once', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    expect422(await createOffer(t, { customer: customer.id, prospect: { companyName: 'X GmbH' } }), ['prospect']);
    expect422(await createOffer(t, { customer: 'unknown' }), ['customer']);
    expect422(await createOffer(t, { prospect: { countryCode: 'XX' }, locale: 'fr', autoActivateSubscription: 'yes', colour: 1 }), [
      'autoActivateSubscription',
      'colour',
      'locale',
      'prospect.countryCode',
    ]);
    expect422(await createOffer(t, { prospect: {}, subscription: offerSubscription(c, { paymentMethod: 'pm', invoiceAddress: 'a' }) }), [
      'subscription.invoiceAddress',
      'subscription.paymentMethod',
    ]);
    expect422(await createOffer(t, { customer: customer.id, contactPerson: 'nobody', name: 'a', title: 'b' }), ['title']);
    expect422(await createOffer(t, { customer: customer.id, contactPerson: 'nobody' }), ['contactPerson']);
    expect422(await createOffer(t, { customer: customer.id, crmMetadata: { deal: 1 } }), ['crmMetadata']);
    expect(await countRows('offers', t)).toBe(0);
  });
});

describe('reading offers', () => {
  it('lists newest first with filters status and customer, without links', async () => {
    const t = await createTenant();
    const a = await createCustomer(t);
    const b = await createCustomer(t);
    const first = await created(createOffer(t, { customer: a.id }));
    const second = await created(createOffer(t, { customer: b.id }));
    const third = await created(createOffer(t, { customer: a.id }));
    await addRecipient(t, third.id, { email: 'r@example.com', role: 'sign' });
    expect((await put(t, `/offers/${second.id}/archive`)).status).toBe(200);
    expect(ids(await get(t, '/offers'))).toEqual([third.id, second.id, first.id]);
    expect(ids(await get(t, '/offers?order[number]=asc'))).toEqual([first.id, second.id, third.id]);
    expect(ids(await get(t, `/offers?customer=${a.id}`))).toEqual([third.id, first.id]);
    expect(ids(await get(t, '/offers?status=archived'))).toEqual([second.id]);
    expect(ids(await get(t, '/offers?status[]=open&status[]=archived&limit=2'))).toEqual([third.id, second.id]);
    const listed = await ok(get(t, '/offers'));
    expect(listed.data[0].recipients[0].link).toBeNull();
    expect((await ok(get(t, `/offers/${third.id}`))).recipients[0].link).toMatch(/^http:\/\/billing\.test\/offer\//);
    expectProblem(await get(t, '/offers?status=lost'), 400);
    const other = await createTenant();
    expectProblem(await get(other, `/offers/${first.id}`), 404);
    expect((await ok(get(other, '/offers'))).data).toEqual([]);
  });

  it('needs offer permissions', async () => {
    const t = await createTenant();
    const reader = await keyWith(t, ['offer:read']);
    expect((await api('/offers', { token: reader })).status).toBe(200);
    expectProblem(await api('/offers', { token: reader, body: {} }), 403);
  });
});

describe('changing offers', () => {
  it('PUT changes the fields sent (spec §4.2), sanitizes sections and sends offer.updated', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const contact = await created(post(t, '/contact-persons', { firstName: 'Max', lastName: 'Vertrieb', email: 'max@seller.example' }));
    const offer = await created(createOffer(t, { customer: customer.id, name: 'Old', description: 'Keep me', sections: ['<p>old</p>'] }));
    const changed = await ok(
      put(t, `/offers/${offer.id}`, { name: 'New', sections: ['<p>new <a href="javascript:x">link</a></p>'], contactPerson: contact.id, autoActivateSubscription: false }),
    );
    expect(changed).toMatchObject({ name: 'New', description: 'Keep me', sections: ['<p>new link</p>'], autoActivateSubscription: false });
    expect(changed.contactPerson).toEqual({ id: contact.id, firstName: 'Max', lastName: 'Vertrieb', email: 'max@seller.example', avatar: null, phone: null, linkedin: null, position: null, website: null });
    expect(await eventTypes(t, offer.id)).toEqual(['offer.created', 'offer.updated']);
    const cleared = await ok(put(t, `/offers/${offer.id}`, { description: null, contactPerson: null }));
    expect(cleared).toMatchObject({ name: 'New', description: null, contactPerson: null });
    expect422(await put(t, `/offers/${offer.id}`, { sections: 'x', number: 'AN-9' }), ['number', 'sections']);
    // The contact person is in use now: deleting it is refused.
    await ok(put(t, `/offers/${offer.id}`, { contactPerson: contact.id }));
    expectProblem(await del(t, `/contact-persons/${contact.id}`), 409, '/problems/in-use');
  });

  it('the subscription of an open offer changes like a draft; deleting it goes through the offer', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id, subscription: offerSubscription(c) }));
    const sub = offer.subscription;
    const changed = await ok(put(t, `/subscriptions/${sub.id}`, { customer: customer.id, items: [{ product: c.seats.product.id, pricePlan: c.seats.price.id, quantity: '8' }] }));
    expect(changed.status).toBe('offer');
    expect(changed.items.map((i: any) => i.quantity)).toEqual(['8']);
    const other = await createCustomer(t);
    expect422(await put(t, `/subscriptions/${sub.id}`, { customer: other.id, items: [{ product: c.seats.product.id, pricePlan: c.seats.price.id }] }), ['customer']);
    expectProblem(await del(t, `/subscriptions/${sub.id}`), 409, '/problems/offer-subscription');
    expectProblem(await del(t, `/customers/${customer.id}`), 409, '/problems/has-subscriptions');
    // An offer alone (no subscription) keeps its customer too.
    const plain = await createCustomer(t);
    await created(createOffer(t, { customer: plain.id }));
    expectProblem(await del(t, `/customers/${plain.id}`), 409, '/problems/has-offers');
  });

  it('archives open offers; a signed or archived offer cannot be changed (409)', async () => {
    const t = await createTenant();
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id }));
    await addRecipient(t, offer.id, { email: 'a@example.com', role: 'sign' });
    const archived = await ok(put(t, `/offers/${offer.id}/archive`));
    expect(archived).toMatchObject({ status: 'archived', archivedAt: expect.any(String) });
    expect(archived.recipients[0]).toMatchObject({ signingStatus: 'archived', signingLog: [{ action: 'offer_archived', ip: null, userAgent: null }] });
    expect(await eventTypes(t, offer.id)).toEqual(['offer.created', 'offer.updated', 'offer.archived']);
    for (const [method, path, body] of [
      ['PUT', `/offers/${offer.id}`, { name: 'x' }],
      ['PUT', `/offers/${offer.id}/archive`, undefined],
      ['PUT', `/offers/${offer.id}/send`, undefined],
      ['DELETE', `/offers/${offer.id}`, undefined],
      ['POST', `/offers/${offer.id}/recipients`, { email: 'b@example.com' }],
      ['DELETE', `/offers/${offer.id}/recipients/${archived.recipients[0].id}`, undefined],
    ] as const) {
      expectProblem(await api(path, { token: t.key, method, ...(body ? { body } : {}) }), 409, '/problems/invalid-transition');
    }
  });

  it('deletes an open offer with its recipients and subscription; its number stays used', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id, subscription: offerSubscription(c) }));
    await addRecipient(t, offer.id, { email: 'a@example.com' });
    expect((await del(t, `/offers/${offer.id}`)).status).toBe(204);
    expectProblem(await get(t, `/offers/${offer.id}`), 404);
    expectProblem(await get(t, `/subscriptions/${offer.subscription.id}`), 404);
    expect(await countRows('offer_recipients', t)).toBe(0);
    expect(await countRows('subscription_items', t)).toBe(0);
    const events = await eventsOf(t);
    expect(events.filter((e) => e.type === 'offer.deleted').map((e) => e.data)).toEqual([{ id: offer.id, number: 'AN-000001' }]);
    expect(events.some((e) => e.type === 'subscription.deleted' && e.resourceId === offer.subscription.id)).toBe(true);
    expect((await created(createOffer(t, { customer: customer.id }))).number).toBe('AN-000002');
    // The customer is free again once its offers are gone.
    const next = await ok(get(t, '/offers'));
    expect((await del(t, `/offers/${next.data[0].id}`)).status).toBe(204);
    expect((await del(t, `/customers/${customer.id}`)).status).toBe(204);
  });
});

describe("Fynn's POST /subscriptions/{id}/offers", () => {
  it('turns a draft into the subscription of a new offer', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    const draft = await created(post(t, '/subscriptions', { customer: customer.id, ...offerSubscription(c) }));
    const offer = await created(post(t, `/subscriptions/${draft.id}/offers`, { title: 'From a draft', offerTemplateId: null, contactPerson: null, crmMetadata: null }));
    expect(offer).toMatchObject({ name: 'From a draft', customer: { id: customer.id }, subscription: { id: draft.id, status: 'offer' } });
    expect((await ok(get(t, `/subscriptions/${draft.id}`))).status).toBe('offer');
    expect((await eventTypes(t, draft.id)).at(-1)).toBe('subscription.updated');
    expectProblem(await post(t, `/subscriptions/${draft.id}/offers`, {}), 409, '/problems/invalid-transition');
    expectProblem(await post(t, '/subscriptions/unknown/offers', {}), 404);
  });
});
