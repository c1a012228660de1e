import { asc, eq } from 'drizzle-orm';
import { Dec, formatMoney, fromMinorUnits, roundMoney, toMinorUnitsSafe } from '../../billing/money';
import { DEFAULT_DUNNING_RULES, type DunningFinalAction, type DunningRuleInput, type DunningType } from '../../billing/dunning';
import { dunningRules, type DunningTexts } from '../../db/schema';
import { collection } from '../../http/pagination';
import type { Violations } from '../../http/errors';
import type { DunningRuleResource } from '../../schemas/dunning';
import type { ServiceContext } from '../context';
import { resourceService, type ListQuery } from '../common/resource';

// Overdue rules (docs/decisions.md, Dunning): level n of the tenant's dunning. Without rules of its
// own a tenant has the default set; once it has one, its rules are the whole set.

type RuleRow = typeof dunningRules.$inferSelect;

/** A rule as written (POST, PUT, the merge-patched PATCH). */
export interface DunningRuleWrite {
  level: number;
  type: DunningType;
  daysOverdue: number;
  dueInDays: number;
  dunningFeeCents?: number | null;
  dunningFee?: { amount: string; currencyCode: string } | null;
  texts?: Record<string, DunningTexts | null> | null;
  emailTemplate?: string | null;
  documentTemplate?: string | null;
  attachInvoice?: boolean | null;
  finalAction?: DunningFinalAction | null;
}

/** Minor units as the wire's money object. */
export const moneyOf = (minor: number, currencyCode: string) => formatMoney(fromMinorUnits(minor, currencyCode), currencyCode);

/** The id a rule of the default set shows: a stable name of its level (docs/decisions.md, Response shapes). */
export const defaultRuleId = (level: number) => `default-${level}`;

function renderRule(r: Omit<RuleRow, 'tenantId' | 'id' | 'createdAt' | 'updatedAt'> & { id: string | null; createdAt: string | null; updatedAt: string | null }): DunningRuleResource {
  const texts = Object.fromEntries(
    Object.entries(r.texts ?? {}).map(([lang, t]) => [lang, { title: t.title ?? null, introduction: t.introduction ?? null, closing: t.closing ?? null, emailSubject: t.emailSubject ?? null, emailBody: t.emailBody ?? null }]),
  );
  return {
    id: r.id ?? defaultRuleId(r.level),
    level: r.level,
    type: r.type,
    daysOverdue: r.daysOverdue,
    dueInDays: r.dueInDays,
    dunningFeeCents: r.feeAmount,
    dunningFee: moneyOf(r.feeAmount, r.feeCurrencyCode),
    texts,
    emailTemplate: r.emailTemplate,
    documentTemplate: r.documentTemplate,
    attachInvoice: r.attachInvoice,
    finalAction: r.finalAction,
    isDefault: r.id === null,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const DEFAULT_RESOURCES = DEFAULT_DUNNING_RULES.map((d) => renderRule({ ...d, texts: {}, emailTemplate: null, documentTemplate: null, createdAt: null, updatedAt: null }));

/**
 * The fee of a write in minor units and its currency; violations for amounts that cannot be billed.
 * `dunningFeeCents`, when given, is the fee; `dunningFee` gives the currency, and the amount when
 * there are no cents (so a merge patch of either field works on the stored rule, which shows both).
 */
function feeOf(input: DunningRuleWrite, v?: Violations): { amount: number; currency: string } {
  const money = input.dunningFee ?? null;
  const currency = money?.currencyCode ?? 'EUR';
  let amount = input.dunningFeeCents ?? 0;
  if (money && input.dunningFeeCents == null) {
    if (!roundMoney(money.amount, currency).eq(new Dec(money.amount))) v?.add('dunningFee.amount', `Has more decimals than ${currency} allows.`, 'too_many_decimals');
    else amount = toMinorUnitsSafe(money.amount, currency);
  }
  if (amount < 0) v?.add(money ? 'dunningFee.amount' : 'dunningFeeCents', 'Must not be negative.', 'too_small');
  if (amount > 0 && input.type !== 'dunning') v?.add(money ? 'dunningFee' : 'dunningFeeCents', 'Only dunning letters charge a fee; a reminder is free.', 'fee_not_allowed');
  return { amount, currency };
}

export const dunningRuleService = resourceService({
  label: 'Overdue rule',
  table: dunningRules,
  render: (r: RuleRow) => renderRule(r),
  check: (_ctx, input: DunningRuleWrite, _current, v) => {
    feeOf(input, v);
  },
  columns: (_ctx, input: DunningRuleWrite) => {
    const fee = feeOf(input);
    const texts = Object.fromEntries(Object.entries(input.texts ?? {}).filter((e): e is [string, DunningTexts] => e[1] !== null));
    return {
      level: input.level,
      type: input.type,
      daysOverdue: input.daysOverdue,
      dueInDays: input.dueInDays,
      feeAmount: fee.amount,
      feeCurrencyCode: fee.currency,
      texts,
      emailTemplate: input.emailTemplate ?? null,
      documentTemplate: input.documentTemplate ?? null,
      attachInvoice: input.attachInvoice ?? false,
      finalAction: input.finalAction ?? 'none',
    };
  },
  writable: (r): DunningRuleWrite => ({
    level: r.level,
    type: r.type,
    daysOverdue: r.daysOverdue,
    dueInDays: r.dueInDays,
    dunningFee: { amount: moneyOf(r.feeAmount, r.feeCurrencyCode).amount, currencyCode: r.feeCurrencyCode },
    dunningFeeCents: null,
    texts: r.texts,
    emailTemplate: r.emailTemplate,
    documentTemplate: r.documentTemplate,
    attachInvoice: r.attachInvoice,
    finalAction: r.finalAction,
  }),
  uniques: { 'dunning_rules.level': 'level' },
  sortable: { level: dunningRules.level },
});

/** GET /dunning/overdue-rules: the tenant's rules by level, or the default set while it has none. */
async function listRules(ctx: ServiceContext, query: ListQuery) {
  const page = await dunningRuleService.list(ctx, { ...query, 'order[level]': query['order[level]'] ?? 'asc' });
  if (page.meta.pagination.totalItems > 0) return page;
  const first = (query.page - 1) * query.limit;
  return collection(DEFAULT_RESOURCES.slice(first, first + query.limit), DEFAULT_RESOURCES.length, query);
}

export const dunningRuleRoutesService = { ...dunningRuleService, list: listRules };

/** The rules a run applies, by level, with their texts. */
export async function rulesInForce(ctx: ServiceContext): Promise<(DunningRuleInput & { texts: Record<string, DunningTexts> | null; emailTemplate: string | null; documentTemplate: string | null })[]> {
  const rows = await ctx.db.select().from(dunningRules).where(eq(dunningRules.tenantId, ctx.tenant.id)).orderBy(asc(dunningRules.level));
  if (rows.length === 0) return DEFAULT_DUNNING_RULES.map((d) => ({ ...d, texts: null, emailTemplate: null, documentTemplate: null }));
  return rows.map((r) => ({
    id: r.id,
    level: r.level,
    type: r.type,
    daysOverdue: r.daysOverdue,
    dueInDays: r.dueInDays,
    feeAmount: r.feeAmount,
    feeCurrencyCode: r.feeCurrencyCode,
    attachInvoice: r.attachInvoice,
    finalAction: r.finalAction,
    texts: r.texts,
    emailTemplate: r.emailTemplate,
    documentTemplate: r.documentTemplate,
  }));
}
