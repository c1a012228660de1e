import { and, eq, sql, type SQL } from 'drizzle-orm';
import { type Db, outer, preparedOnce } from '../../db/client';
import { customers } from '../../db/schema';
import { ApiError } from '../../http/errors';
import type { ServiceContext } from '../context';
import type { PaymentMethodResource } from '../../schemas/payment-methods';
import { embedPaymentMethods } from '../payments/methods-embed';
import type { AddressResource, ContactRef, CustomerAggregate, CustomerRow, EmailResource, GroupRef, PartnerRef } from './render';

const bool = (column: string) => sql.raw(`json(CASE WHEN ${column} THEN 'true' ELSE 'false' END)`);

// The embedded collections come from correlated JSON subqueries, so a page of customers is one statement.
const embedded = {
  addresses: sql<string>`(SELECT json_group_array(json_object('id', a.id, 'vatId', a.vat_id, 'type', a.type, 'default', ${bool('a.is_default')},
      'status', a.status, 'city', a.city, 'zip', a.zip, 'street', a.street, 'houseNumber', a.house_number, 'countryCode', a.country_code,
      'companyName', a.company_name, 'salutation', a.salutation, 'addition', a.addition, 'costCentre', a.cost_centre,
      'firstName', a.first_name, 'lastName', a.last_name) ORDER BY a.created_at, a.id)
    FROM customer_addresses a WHERE a.tenant_id = ${outer(customers.tenantId)} AND a.customer_id = ${outer(customers.id)})`,
  emails: sql<string>`(SELECT json_group_array(json_object('id', e.id, 'email', e.email, 'receiverName', e.receiver_name, 'type', e.type,
      'default', ${bool('e.is_default')}) ORDER BY e.created_at, e.id)
    FROM customer_email_addresses e WHERE e.tenant_id = ${outer(customers.tenantId)} AND e.customer_id = ${outer(customers.id)})`,
  group: sql<string | null>`(SELECT json_object('id', g.id, 'name', g.name, 'description', g.description)
    FROM customer_groups g WHERE g.tenant_id = ${outer(customers.tenantId)} AND g.id = ${outer(customers.customerGroupId)})`,
  contact: sql<string | null>`(SELECT json_object('id', p.id, 'firstName', p.first_name, 'lastName', p.last_name, 'email', p.email, 'avatar', p.avatar)
    FROM contact_persons p WHERE p.tenant_id = ${outer(customers.tenantId)} AND p.id = ${outer(customers.contactPersonId)})`,
  partner: sql<string | null>`(SELECT json_object('id', q.id, 'name', coalesce(q.company_name, nullif(trim(coalesce(q.first_name, '') || ' ' || coalesce(q.last_name, '')), ''), q.email),
      'number', q.customer_number, 'email', q.email)
    FROM customers q WHERE q.tenant_id = ${outer(customers.tenantId)} AND q.id = ${outer(customers.partnerId)})`,
  // Only the id: the method is rendered by its own renderer (embedPaymentMethods), one query per page.
  paymentMethod: sql<string | null>`(SELECT m.id
    FROM payment_methods m WHERE m.tenant_id = ${outer(customers.tenantId)} AND m.customer_id = ${outer(customers.id)} AND m.is_default = 1
    ORDER BY m.created_at, m.id LIMIT 1)`,
};

export function selectAggregates(db: Db) {
  return db
    .select({
      row: customers,
      addresses: embedded.addresses,
      emails: embedded.emails,
      group: embedded.group,
      contact: embedded.contact,
      partner: embedded.partner,
      paymentMethod: embedded.paymentMethod,
    })
    .from(customers);
}

type AggregateRecord = {
  row: CustomerRow;
  addresses: string;
  emails: string;
  group: string | null;
  contact: string | null;
  partner: string | null;
  paymentMethod: string | null;
};

function toAggregate(r: AggregateRecord, methods: ReadonlyMap<string, PaymentMethodResource>): CustomerAggregate {
  return {
    row: r.row,
    addresses: JSON.parse(r.addresses) as AddressResource[],
    emails: JSON.parse(r.emails) as EmailResource[],
    group: r.group ? (JSON.parse(r.group) as GroupRef) : null,
    contact: r.contact ? (JSON.parse(r.contact) as ContactRef) : null,
    partner: r.partner ? (JSON.parse(r.partner) as PartnerRef) : null,
    paymentMethod: r.paymentMethod ? (methods.get(r.paymentMethod) ?? null) : null,
  };
}

/** Records of `selectAggregates` with their default payment methods: one more query for any number of them. */
export async function toAggregates(ctx: ServiceContext, records: AggregateRecord[]): Promise<CustomerAggregate[]> {
  const methods = await embedPaymentMethods(ctx, records.map((r) => r.paymentMethod));
  return records.map((r) => toAggregate(r, methods));
}

export function byId(ctx: ServiceContext, id: string): SQL {
  return and(eq(customers.tenantId, ctx.tenant.id), eq(customers.id, id))!;
}

const customerById = preparedOnce((db) =>
  selectAggregates(db)
    .where(and(eq(customers.tenantId, sql.placeholder('tenantId')), eq(customers.id, sql.placeholder('id'))))
    .prepare(),
);

export async function loadCustomer(ctx: ServiceContext, id: string): Promise<CustomerAggregate> {
  const r = await customerById(ctx.db).get({ tenantId: ctx.tenant.id, id });
  if (!r) throw ApiError.notFound('Customer');
  return (await toAggregates(ctx, [r]))[0]!;
}

/** The customer's own row only; for operations that check existence or state without the embeds. */
export async function findCustomerRow(ctx: ServiceContext, id: string): Promise<CustomerRow> {
  const row = await ctx.db.select().from(customers).where(byId(ctx, id)).get();
  if (!row) throw ApiError.notFound('Customer');
  return row;
}
