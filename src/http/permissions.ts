/** Resources that API-key permissions name as `<resource>:<read|write>`. */
export const PERMISSION_RESOURCES = [
  'api-key',
  'customer',
  'customer-group',
  'contact-person',
  'custom-field',
  'settings',
  'test-clock',
  'product-family',
  'product',
  'unit',
  'measurement',
  'cost-centre',
  'cancellation-reason',
  'billing-group',
  'tax-group',
  'tax',
  'plan',
  'price-plan',
  'coupon',
  'subscription',
  'feature',
  'entitlement',
  'invoice',
  'billing-run',
  'webhook',
  'transaction',
  'sepa-xml',
  'open-banking-account',
  'checkout-link',
  'offer',
  'offer-template',
  // Scopes Fynn documents, accepted so keys made for Fynn's API work here; their routes arrive with
  // later issues (docs/decisions.md, HTTP conventions).
  'customer:invoice',
  'cart',
  'dunning-rule',
  'dunning-document',
  'bank-account-transaction',
  'payment-method',
] as const;

/** Fynn's scopes that are neither read nor write. */
const OTHER_SCOPES = ['payment-method:migrate', 'customer:payment-method:change'] as const;

export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export type Permission = `${PermissionResource}:${'read' | 'write'}`;

/** `customer:invoice:read` → resource `customer:invoice`, action `read`. */
export function splitPermission(p: string): { resource: string; action: string } {
  const at = p.lastIndexOf(':');
  return { resource: p.slice(0, at), action: p.slice(at + 1) };
}

export function isKnownPermission(p: string): boolean {
  if (p === '*' || (OTHER_SCOPES as readonly string[]).includes(p)) return true;
  const { resource, action } = splitPermission(p);
  return (action === 'read' || action === 'write') && (PERMISSION_RESOURCES as readonly string[]).includes(resource);
}

export function hasPermission(granted: readonly string[], required: string): boolean {
  if (granted.includes('*') || granted.includes(required)) return true;
  // Write implies read on the same resource.
  const { resource, action } = splitPermission(required);
  return action === 'read' && granted.includes(`${resource}:write`);
}
