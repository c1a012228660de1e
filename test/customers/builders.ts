// Builders of the customer tests (test/customers/*.test.ts).
import { post, type TestTenant } from '../support/api';
import { created } from '../support/builders';

export const VALID_VAT_ID = 'DE136695976';

/** Well-formed, but the fake VIES of the test environment reports it as not registered. */
export const UNREGISTERED_VAT_ID = 'DE811907980';

export const text = (n: number, ch = 'a') => ch.repeat(n);

export async function defineField(t: TestTenant, name: string, type: string, extra: Record<string, unknown> = {}) {
  return created(post(t, '/custom-fields', { name, type, resource: 'customer', ...extra }));
}

export async function createGroup(t: TestTenant, name = 'Key accounts', description: string | null = 'Our largest customers') {
  return created(post(t, '/customer-groups', { name, description }));
}

/** Sorts the embedded arrays, so representations compare regardless of the order of equal-time rows. */
export function normalized(customer: any) {
  const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
  return { ...customer, addresses: [...customer.addresses].sort(byId), emailAddresses: [...customer.emailAddresses].sort(byId) };
}

export const baseBody = (overrides: Record<string, unknown> = {}) => ({ email: 'someone@example.com', countryCode: 'DE', ...overrides });
