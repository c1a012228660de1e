import { describe, expect, it } from 'vitest';
import { get } from '../support/api';
import { createCustomer, createTenant, created, ok } from '../support/builders';
import { addRecipient, createOffer, linkOf, offerCatalogue, offerSubscription, publicGet, signAs } from './builders';

describe('offers smoke', () => {
  it('creates, signs and activates', async () => {
    const t = await createTenant();
    const c = await offerCatalogue(t);
    const customer = await createCustomer(t);
    const offer = await created(createOffer(t, { customer: customer.id, name: 'Team', sections: ['<p>Hello <strong>world</strong><script>alert(1)</script></p>'], subscription: offerSubscription(c) }));
    expect(offer.number).toBe('AN-000001');
    expect(offer.subscription.status).toBe('offer');
    await addRecipient(t, offer.id, { email: 'buyer@example.com', firstName: 'Erika', lastName: 'Muster', role: 'sign' });
    const token = await linkOf(t, offer.id, 'buyer@example.com');
    const view = await ok(publicGet(token));
    expect(view.canSign).toBe(true);
    console.log(JSON.stringify(view, null, 1));
    const signed = await signAs(t, token, 'buyer@example.com', 'Erika Muster');
    expect(signed.signed).toBe(true);
    const after = await ok(get(t, `/offers/${offer.id}`));
    console.log(JSON.stringify(after, null, 1).slice(0, 3000));
    expect(after.status).toBe('signed');
    expect(after.subscription.status).toBe('active');
  });
});
