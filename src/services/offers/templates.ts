import { z } from '@hono/zod-openapi';
import { and, eq, inArray } from 'drizzle-orm';
import { inJson } from '../../db/client';
import { offerTemplates } from '../../db/schema';
import { filterValues } from '../../http/pagination';
import type { Violations } from '../../http/errors';
import type { OfferTemplateResource } from '../../schemas/offers';
import type { ServiceContext } from '../context';
import { listFilter, resourceService } from '../common/resource';
import { sanitizeSections } from './sections';

// Offer templates (spec §2.6): named lists of rich-text sections an offer takes over when it is
// made. The catalogue names no template events, so they send none.

type TemplateRow = typeof offerTemplates.$inferSelect;

export interface OfferTemplateInput {
  name: string;
  type: string;
  sections: string[];
}

const typeValues = z.union([z.string().max(64), z.array(z.string().max(64)).max(20)]);
// Both spellings are read together by baseFilter (type=a&type[]=b is either), not each on its own.
const declared = listFilter(typeValues, () => undefined);

export const offerTemplateService = resourceService({
  label: 'Offer template',
  table: offerTemplates,
  render: (r: TemplateRow): OfferTemplateResource => ({ id: r.id, name: r.name, sections: r.sections, type: r.type, createdAt: r.createdAt, updatedAt: r.updatedAt }),
  // Stored sanitized: what the API, the offer page and the PDF read is the safe subset only.
  columns: (_ctx, input: OfferTemplateInput) => ({ name: input.name, type: input.type, sections: sanitizeSections(input.sections) }),
  check: (_ctx, input: OfferTemplateInput, _current, v: Violations) => {
    if (sanitizeSections(input.sections).length === 0 && input.sections.length > 0) v.add('sections', 'The sections hold no text once markup outside the allowed subset is removed.', 'empty');
  },
  writable: (r) => ({ name: r.name, type: r.type, sections: r.sections }),
  filters: { type: declared, 'type[]': declared },
  baseFilter: (query) => {
    const types = filterValues(query.type as string | string[] | undefined, query['type[]'] as string | string[] | undefined);
    return types ? inArray(offerTemplates.type, types) : undefined;
  },
  sortable: { name: offerTemplates.name, createdAt: offerTemplates.createdAt },
});

/** The sections of the given templates, in the order named; unknown ids are violations at `path[i]` (at `path` for a single id). */
export async function templateSections(ctx: ServiceContext, ids: string[], path: string, v: Violations, single = false): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await ctx.db
    .select()
    .from(offerTemplates)
    .where(and(eq(offerTemplates.tenantId, ctx.tenant.id), inJson(offerTemplates.id, ids)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id, i) => {
    const row = byId.get(id);
    if (!row) {
      v.add(single ? path : `${path}[${i}]`, 'No such offer template.', 'not_found');
      return [];
    }
    return row.sections;
  });
}
