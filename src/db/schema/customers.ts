import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const customerGroups = sqliteTable(
  'customer_groups',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('customer_groups_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const contactPersons = sqliteTable(
  'contact_persons',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    email: text('email').notNull(),
    avatar: text('avatar'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('contact_persons_tenant_idx').on(t.tenantId, t.createdAt)],
);

export const customFields = sqliteTable(
  'custom_fields',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    resource: text('resource', { enum: ['customer', 'subscription', 'invoice', 'product'] }).notNull(),
    name: text('name').notNull(),
    type: text('type', { enum: ['string', 'number', 'boolean', 'date', 'select'] }).notNull(),
    options: text('options', { mode: 'json' }).$type<string[] | null>(),
    required: integer('required', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('custom_fields_name_uq').on(t.tenantId, t.resource, t.name)],
);

export const customers = sqliteTable(
  'customers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerNumber: text('customer_number').notNull(),
    email: text('email').notNull(),
    // Lower-cased copy: e-mail uniqueness and login are case-insensitive.
    emailKey: text('email_key').notNull(),
    countryCode: text('country_code').notNull(),
    timeZone: text('time_zone').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    currencyCode: text('currency_code'),
    companyName: text('company_name'),
    vatId: text('vat_id'),
    isVatIdValid: integer('is_vat_id_valid', { mode: 'boolean' }).notNull(),
    taxExempt: text('tax_exempt', { enum: ['auto', 'exempt'] }).notNull(),
    ledgerId: text('ledger_id'),
    commercialRegisterName: text('commercial_register_name'),
    commercialRegisterNumber: text('commercial_register_number'),
    status: text('status', { enum: ['STATUS_ACTIVE', 'STATUS_ARCHIVED', 'STATUS_SUSPENDED'] }).notNull(),
    gender: text('gender', { enum: ['male', 'female', 'diverse'] }),
    phone: text('phone'),
    language: text('language', { enum: ['de', 'en'] }).notNull(),
    totalTurnOverRank: integer('total_turnover_rank'),
    customerGroupId: text('customer_group_id'),
    contactPersonId: text('contact_person_id'),
    customFields: text('custom_fields', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    isPartner: integer('is_partner', { mode: 'boolean' }).notNull(),
    partnerId: text('partner_id'),
    requiresManualInvoiceApproval: integer('requires_manual_invoice_approval', { mode: 'boolean' }),
    /** The e-invoice the customer receives with each document; null: the tenant's default. */
    eInvoiceType: text('e_invoice_type', { enum: ['zugferd', 'xrechnung', 'cii', 'ubl'] }),
    /** The public buyer's routing id (XRechnung BT-10); only with an eInvoiceType. */
    leitwegId: text('leitweg_id'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('customers_email_uq').on(t.tenantId, t.emailKey),
    uniqueIndex('customers_number_uq').on(t.tenantId, t.customerNumber),
    index('customers_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('customers_status_idx').on(t.tenantId, t.status),
    index('customers_partner_idx').on(t.tenantId, t.partnerId),
  ],
);

export const customerAddresses = sqliteTable(
  'customer_addresses',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    type: text('type', { enum: ['TYPE_DEFAULT', 'TYPE_INVOICE'] }).notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    status: text('status', { enum: ['active', 'archived'] }).notNull(),
    vatId: text('vat_id'),
    companyName: text('company_name'),
    salutation: text('salutation', { enum: ['Firma', 'Herr', 'Frau'] }),
    firstName: text('first_name'),
    lastName: text('last_name'),
    street: text('street').notNull(),
    houseNumber: text('house_number').notNull(),
    addition: text('addition').notNull(),
    zip: text('zip').notNull(),
    city: text('city').notNull(),
    countryCode: text('country_code').notNull(),
    costCentre: text('cost_centre'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('customer_addresses_customer_idx').on(t.tenantId, t.customerId),
    // One default per type and customer, enforced by the database rather than by read-then-write.
    uniqueIndex('customer_addresses_default_uq').on(t.customerId, t.type).where(sql`is_default = 1`),
  ],
);

export const customerEmailAddresses = sqliteTable(
  'customer_email_addresses',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id').notNull(),
    customerId: text('customer_id').notNull(),
    email: text('email').notNull(),
    receiverName: text('receiver_name'),
    type: text('type', { enum: ['default', 'invoice'] }).notNull(),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    index('customer_emails_customer_idx').on(t.tenantId, t.customerId),
    uniqueIndex('customer_emails_default_uq').on(t.customerId, t.type).where(sql`is_default = 1`),
  ],
);
