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
] as const;

export type PermissionResource = (typeof PERMISSION_RESOURCES)[number];
export type Permission = `${PermissionResource}:${'read' | 'write'}`;

export function isKnownPermission(p: string): boolean {
  if (p === '*') return true;
  const m = /^([a-z][a-z-]*):(read|write)$/.exec(p);
  return !!m && (PERMISSION_RESOURCES as readonly string[]).includes(m[1]!);
}
