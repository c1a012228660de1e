import { eq } from 'drizzle-orm';
import { isUniqueViolation } from '../../db/client';
import { directoryDb, forgetDirectoryEntry, tenantIdBySlug, tenantSlug } from '../../db/directory';
import { tenantDirectory } from '../../db/schema';
import type { Env } from '../../env';
import { ApiError } from '../../http/errors';
import type { TenantSlugResource } from '../../schemas/platform';
import type { ServiceContext } from '../context';

// The tenant's public slug: its name in the URLs of its hosted pages (`/checkout/{slug}/{link}`)
// instead of its id (docs/decisions.md, Checkout links). Unique across tenants, so it lives in the
// directory, whose UNIQUE index decides between two tenants claiming one at once.

/** 3 to 50 lowercase letters, digits and single hyphens, starting and ending with a letter or digit. */
export const TENANT_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?!-)){1,48}[a-z0-9]$/;

/** Words a page path or a person could take for something else than a seller. */
export const RESERVED_TENANT_SLUGS: ReadonlySet<string> = new Set([
  'admin', 'api', 'app', 'assets', 'auth', 'billing', 'cart', 'carts', 'checkout', 'checkouts', 'customer', 'customers',
  'dashboard', 'docs', 'help', 'health', 'invoice', 'invoices', 'login', 'logout', 'new', 'null', 'offer', 'offers',
  'openapi', 'pay', 'payment', 'payments', 'public', 'settings', 'signup', 'static', 'status', 'support', 'test',
  'undefined', 'webhook', 'webhooks', 'www',
]);

/** A tenant id's shape (the ids of src/lib/ids.ts): never a slug, so an old URL by id means that tenant. */
const TENANT_ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-/;

export async function readTenantSlug(ctx: ServiceContext): Promise<TenantSlugResource> {
  return { slug: (await tenantSlug(ctx.env, ctx.tenant.id)) ?? null };
}

/** Sets (or with null removes) the tenant's slug; 422 at `slug` when malformed, reserved or another tenant's. */
export async function setTenantSlug(ctx: ServiceContext, given: string | null): Promise<TenantSlugResource> {
  const slug = given === null ? null : given.trim().toLowerCase();
  if (slug !== null) {
    if (!TENANT_SLUG_PATTERN.test(slug) || TENANT_ID_SHAPE.test(slug)) {
      throw ApiError.violation('slug', 'Must be 3 to 50 lowercase letters, digits and single hyphens, starting and ending with a letter or digit.', 'invalid_slug');
    }
    if (RESERVED_TENANT_SLUGS.has(slug)) throw ApiError.violation('slug', `"${slug}" is reserved; choose another.`, 'reserved');
  }
  const before = await tenantSlug(ctx.env, ctx.tenant.id);
  try {
    await directoryDb(ctx.env).update(tenantDirectory).set({ slug }).where(eq(tenantDirectory.tenantId, ctx.tenant.id));
  } catch (err) {
    if (isUniqueViolation(err)) throw ApiError.violation('slug', 'Another tenant has this slug.', 'not_unique');
    throw err;
  }
  forgetDirectoryEntry(ctx.tenant.id, before, slug);
  return { slug };
}

/**
 * The tenant a page URL names: by its slug, else by its id (URLs made before the tenant chose a
 * slug keep working). Undefined when neither names one.
 */
export async function tenantIdOfPath(env: Env, segment: string): Promise<string> {
  const lower = segment.toLowerCase();
  if (TENANT_SLUG_PATTERN.test(lower) && !TENANT_ID_SHAPE.test(lower)) {
    const bySlug = await tenantIdBySlug(env, lower);
    if (bySlug) return bySlug;
  }
  return segment;
}

/** What names the tenant in its page URLs: its slug when it has one, else its id. */
export async function tenantPathSegment(env: Env, tenantId: string): Promise<string> {
  return (await tenantSlug(env, tenantId)) ?? tenantId;
}
