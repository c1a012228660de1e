// The camt reader: camt.052, camt.053 and camt.054 of versions .001.02 to .001.08, by namespace.
// The element names of the entries are the same across these versions; where a version moved a
// value (entry status as text in .02 to .04, `Sts/Cd` later; a party's name directly under `Dbtr` in
// .02 to .07, under `Dbtr/Pty` in .08; charges as a list or as `TtlChrgsAndTaxAmt` and records), both
// places are read. Every rule the file breaks is collected, so one error names all of them.
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { Dec, formatDecimal } from '../../billing/money';
import { CURRENCY_MINOR_UNITS } from '../../reference/iso';
import {
  CamtInputError,
  type BankTransactionCode,
  type CamtAmount,
  type CamtDocument,
  type CamtEntry,
  type CamtMessage,
  type CamtParty,
  type CamtStatement,
  type CamtTransactionDetails,
  type CamtViolation,
  type ReturnInfo,
  type StructuredRemittance,
} from './model';

const NAMESPACE = /^urn:iso:std:iso:20022:tech:xsd:(camt\.05[234])\.001\.(\d{2})$/;
/** Versions whose entries we read (the ISO 2009 to 2019 editions). */
const MIN_VERSION = 2;
const MAX_VERSION = 8;
/** Per message: the root's child and the repeated statement element. */
const LAYOUT: Record<CamtMessage, { root: string; statement: string }> = {
  'camt.052': { root: 'BkToCstmrAcctRpt', statement: 'Rpt' },
  'camt.053': { root: 'BkToCstmrStmt', statement: 'Stmt' },
  'camt.054': { root: 'BkToCstmrDbtCdtNtfctn', statement: 'Ntfctn' },
};
/** More violations than this are cut: one broken amount repeated over 10,000 entries says enough. */
const MAX_VIOLATIONS = 50;
// The XSD's ActiveOrHistoricCurrencyAndAmount: up to 18 digits, at most 5 of them decimals, not negative.
const AMOUNT = /^(\d{1,18})(?:\.(\d{1,5}))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

type Node = Record<string, unknown>;

class Collector {
  readonly violations: CamtViolation[] = [];
  add(path: string, rule: string, message: string): void {
    if (this.violations.length < MAX_VIOLATIONS) this.violations.push({ path, rule, message });
  }
}

/** The element's children of that name, whether the parser made one object or a list. */
function all(node: unknown, name: string): unknown[] {
  if (node === null || typeof node !== 'object') return [];
  const v = (node as Node)[name];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function child(node: unknown, ...names: string[]): unknown {
  let at: unknown = node;
  for (const name of names) at = all(at, name)[0];
  return at;
}

/** The trimmed text of an element (with or without attributes); null when absent or empty. */
function text(node: unknown): string | null {
  if (typeof node === 'string') return node.trim() === '' ? null : node.trim();
  if (node !== null && typeof node === 'object' && '#text' in (node as Node)) return text((node as Node)['#text']);
  return null;
}

const textAt = (node: unknown, ...names: string[]) => text(child(node, ...names));

/** The root element's namespace, read from its start tag (the parser drops xmlns attributes). */
function rootNamespace(xml: string): { name: string; namespace: string | null } | null {
  const re = /<(!--[\s\S]*?--|\?[\s\S]*?\?|![^>]*|[^>]*)>/g;
  for (let m = re.exec(xml); m; m = re.exec(xml)) {
    const tag = m[1]!;
    if (tag.startsWith('!--') || tag.startsWith('?') || tag.startsWith('!')) continue;
    const name = /^([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/.exec(tag);
    if (!name) return null;
    const prefix = name[1] ? name[1].slice(0, -1) : null;
    const attr = new RegExp(`\\sxmlns${prefix ? `:${prefix.replace(/[.]/g, '\\.')}` : ''}\\s*=\\s*(["'])(.*?)\\1`).exec(tag);
    return { name: name[2]!, namespace: attr ? attr[2]!.trim() : null };
  }
  return null;
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  // Amounts stay the text they were written as: never a float.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: false,
});

/**
 * Reads a camt.052/053/054 message. Throws `CamtInputError` listing every problem: not XML (or
 * truncated), not camt, an unsupported version, missing required parts, amounts that are not exact
 * in their currency.
 */
export function parseCamt(xml: string): CamtDocument {
  const c = new Collector();
  const input = xml.replace(/^\uFEFF/, '');
  if (input.trim() === '') throw new CamtInputError([{ path: 'Document', rule: 'empty', message: 'The file is empty.' }]);
  if (/<!DOCTYPE/i.test(input)) throw new CamtInputError([{ path: 'Document', rule: 'doctype', message: 'A document type declaration is not allowed in a camt message.' }]);
  const wellFormed = XMLValidator.validate(input);
  if (wellFormed !== true) {
    const { msg, line, col } = wellFormed.err;
    throw new CamtInputError([{ path: 'Document', rule: 'not_xml', message: `Not well-formed XML (truncated?) at line ${line}, column ${col}: ${msg}` }]);
  }
  const root = rootNamespace(input);
  if (!root || root.name !== 'Document') {
    throw new CamtInputError([{ path: root?.name ?? 'Document', rule: 'not_camt', message: `The root element must be an ISO 20022 Document, not ${root ? `<${root.name}>` : 'missing'}.` }]);
  }
  const ns = root.namespace ? NAMESPACE.exec(root.namespace) : null;
  if (!ns) {
    throw new CamtInputError([
      {
        path: 'Document',
        rule: 'not_camt',
        message: `The namespace ${root.namespace ? `"${root.namespace}"` : '(none)'} is not a camt.052, camt.053 or camt.054 message (urn:iso:std:iso:20022:tech:xsd:camt.053.001.02 and the like).`,
      },
    ]);
  }
  const message = ns[1] as CamtMessage;
  const version = Number(ns[2]);
  const format = `${message}.001.${ns[2]}`;
  if (version < MIN_VERSION || version > MAX_VERSION) {
    throw new CamtInputError([{ path: 'Document', rule: 'unsupported_version', message: `${format} is not supported; versions .001.02 to .001.08 are.` }]);
  }
  const layout = LAYOUT[message];
  const doc = child(parser.parse(input), 'Document');
  const body = child(doc, layout.root);
  if (body === undefined) {
    throw new CamtInputError([{ path: layout.root, rule: 'missing', message: `A ${message} message needs a <${layout.root}> element under <Document>.` }]);
  }
  const statementNodes = all(body, layout.statement);
  if (statementNodes.length === 0) c.add(`${layout.root}.${layout.statement}`, 'missing', `A ${message} message needs at least one <${layout.statement}>.`);
  const statements = statementNodes.map((s, i) => readStatement(c, s, `${layout.statement}[${i}]`));
  if (c.violations.length > 0) throw new CamtInputError(c.violations);
  return { format, message, messageId: textAt(body, 'GrpHdr', 'MsgId'), createdAt: textAt(body, 'GrpHdr', 'CreDtTm'), statements };
}

function readStatement(c: Collector, node: unknown, path: string): CamtStatement {
  const acct = child(node, 'Acct');
  const iban = textAt(acct, 'Id', 'IBAN');
  const accountId = iban ?? textAt(acct, 'Id', 'Othr', 'Id');
  if (acct === undefined) c.add(`${path}.Acct`, 'missing', 'The account of the statement is missing.');
  else if (!accountId) c.add(`${path}.Acct.Id`, 'missing', 'The account needs an IBAN or another identification.');
  const entries = all(node, 'Ntry').map((e, i) => readEntry(c, e, `${path}.Ntry[${i}]`));
  return { path, id: textAt(node, 'Id'), accountIban: iban, accountId, currency: textAt(acct, 'Ccy'), entries };
}

function readEntry(c: Collector, node: unknown, path: string): CamtEntry {
  const amount = readAmount(c, child(node, 'Amt'), `${path}.Amt`, true);
  const creditDebit = readIndicator(c, node, path, true) ?? 'CRDT';
  // .02 to .04: <Sts>BOOK</Sts>; later: <Sts><Cd>BOOK</Cd></Sts> (or a proprietary status).
  const sts = child(node, 'Sts');
  const status = text(sts) ?? textAt(sts, 'Cd') ?? textAt(sts, 'Prtry');
  if (!status) c.add(`${path}.Sts`, 'missing', 'The entry status (BOOK, PDNG, INFO) is missing.');
  const reversal = textAt(node, 'RvslInd');
  if (reversal !== null && reversal !== 'true' && reversal !== 'false' && reversal !== '1' && reversal !== '0') {
    c.add(`${path}.RvslInd`, 'invalid_boolean', 'Must be true or false.');
  }
  const details = all(node, 'NtryDtls')
    .flatMap((d) => all(d, 'TxDtls'))
    .map((d, i) => readDetails(c, d, `${path}.NtryDtls.TxDtls[${i}]`, creditDebit));
  return {
    path,
    amount: amount ? signed(amount.amount, creditDebit) : '0',
    currency: amount?.currency ?? '',
    creditDebit,
    status: status ?? '',
    bookingDate: readDate(c, child(node, 'BookgDt'), `${path}.BookgDt`),
    valueDate: readDate(c, child(node, 'ValDt'), `${path}.ValDt`),
    accountServicerReference: reference(textAt(node, 'AcctSvcrRef'), 'NONREF'),
    reversal: reversal === 'true' || reversal === '1',
    bankTransactionCode: readCode(child(node, 'BkTxCd')),
    charges: readCharges(c, all(node, 'Chrgs'), `${path}.Chrgs`),
    additionalInfo: textAt(node, 'AddtlNtryInf'),
    details,
  };
}

function readDetails(c: Collector, node: unknown, path: string, entryIndicator: 'CRDT' | 'DBIT'): CamtTransactionDetails {
  const refs = child(node, 'Refs');
  const ownAmountNode = child(node, 'Amt') ?? child(node, 'AmtDtls', 'TxAmt', 'Amt');
  const ownAmount = ownAmountNode === undefined ? null : readAmount(c, ownAmountNode, `${path}.Amt`, false);
  const indicator = child(node, 'CdtDbtInd') === undefined ? entryIndicator : (readIndicator(c, node, path, false) ?? entryIndicator);
  const instructed = child(node, 'AmtDtls', 'InstdAmt', 'Amt');
  const parties = child(node, 'RltdPties');
  const rmt = child(node, 'RmtInf');
  const rtr = child(node, 'RtrInf');
  const creditorNode = child(parties, 'Cdtr');
  return {
    path,
    amount: ownAmount ? signed(ownAmount.amount, indicator) : null,
    currency: ownAmount?.currency ?? null,
    instructedAmount: instructed === undefined ? null : readAmount(c, instructed, `${path}.AmtDtls.InstdAmt.Amt`, false),
    accountServicerReference: reference(textAt(refs, 'AcctSvcrRef'), 'NONREF'),
    endToEndId: reference(textAt(refs, 'EndToEndId'), 'NOTPROVIDED'),
    mandateId: textAt(refs, 'MndtId'),
    creditorId: textAt(partyNode(creditorNode), 'Id', 'PrvtId', 'Othr', 'Id'),
    debtor: readParty(child(parties, 'Dbtr'), child(parties, 'DbtrAcct')),
    creditor: readParty(creditorNode, child(parties, 'CdtrAcct')),
    ultimateDebtor: readParty(child(parties, 'UltmtDbtr'), undefined),
    ultimateCreditor: readParty(child(parties, 'UltmtCdtr'), undefined),
    unstructured: all(rmt, 'Ustrd')
      .map(text)
      .filter((t): t is string => t !== null),
    structured: all(rmt, 'Strd').map(
      (s): StructuredRemittance => ({
        reference: textAt(s, 'CdtrRefInf', 'Ref'),
        additionalInfo:
          all(s, 'AddtlRmtInf')
            .map(text)
            .filter((t) => t !== null)
            .join(' ') || null,
      }),
    ),
    returnInfo: rtr === undefined ? null : readReturn(rtr),
    charges: readCharges(c, all(node, 'Chrgs'), `${path}.Chrgs`),
    bankTransactionCode: readCode(child(node, 'BkTxCd')),
  };
}

/** `.08` wraps a party in `Pty`; earlier versions have it directly. */
function partyNode(node: unknown): unknown {
  return child(node, 'Pty') ?? node;
}

function readParty(node: unknown, account: unknown): CamtParty | null {
  if (node === undefined && account === undefined) return null;
  const party = partyNode(node);
  const iban = textAt(account, 'Id', 'IBAN');
  // .08 may name a financial institution instead of a party (Cdtr/Agt).
  const name = textAt(party, 'Nm') ?? textAt(node, 'Agt', 'FinInstnId', 'Nm');
  return { name, iban, account: iban ?? textAt(account, 'Id', 'Othr', 'Id') };
}

function readReturn(node: unknown): ReturnInfo {
  const info = all(node, 'AddtlInf')
    .map(text)
    .filter((t) => t !== null)
    .join(' ');
  return { reason: textAt(node, 'Rsn', 'Cd') ?? textAt(node, 'Rsn', 'Prtry'), additionalInfo: info || null };
}

function readCode(node: unknown): BankTransactionCode | null {
  const domn = child(node, 'Domn');
  const prtry = child(node, 'Prtry');
  const code: BankTransactionCode = {
    domain: textAt(domn, 'Cd'),
    family: textAt(domn, 'Fmly', 'Cd'),
    subFamily: textAt(domn, 'Fmly', 'SubFmlyCd'),
    proprietary: textAt(prtry, 'Cd'),
    issuer: textAt(prtry, 'Issr'),
  };
  return Object.values(code).some((v) => v !== null) ? code : null;
}

/**
 * The charges: `TtlChrgsAndTaxAmt` when given (.03 and later), else the sum of the charge amounts
 * (`Chrgs/Amt` in .02, `Chrgs/Rcrd/Amt` later) in the currency of the first.
 */
function readCharges(c: Collector, nodes: unknown[], path: string): CamtAmount | null {
  if (nodes.length === 0) return null;
  const total = child(nodes[0], 'TtlChrgsAndTaxAmt');
  if (total !== undefined) return readAmount(c, total, `${path}.TtlChrgsAndTaxAmt`, false);
  const amounts = nodes.flatMap((n, i) => {
    const direct = child(n, 'Amt');
    if (direct !== undefined) return [readAmount(c, direct, `${path}[${i}].Amt`, false)];
    return all(n, 'Rcrd').map((r, j) => readAmount(c, child(r, 'Amt'), `${path}[${i}].Rcrd[${j}].Amt`, false));
  });
  const first = amounts.find((a) => a !== null);
  if (!first) return null;
  const same = amounts.filter((a): a is CamtAmount => a !== null && a.currency === first.currency);
  const sum = same.reduce((s, a) => s.plus(a.amount), new Dec(0));
  return { amount: formatDecimal(sum, CURRENCY_MINOR_UNITS.get(first.currency)!), currency: first.currency };
}

/**
 * An amount with its `Ccy`: exact, in an ISO currency, with no more decimals than the currency
 * has. Trailing zeros beyond them are accepted ("8.850" EUR is 8.85, as some banks pad to the
 * schema's five decimals); a digit that is not zero there cannot be booked and is refused.
 */
function readAmount(c: Collector, node: unknown, path: string, required: boolean): CamtAmount | null {
  if (node === undefined) {
    if (required) c.add(path, 'missing', 'The amount is missing.');
    return null;
  }
  const value = text(node);
  const currency = node !== null && typeof node === 'object' ? text((node as Node)['@Ccy']) : null;
  let ok = true;
  if (!currency || !CURRENCY_MINOR_UNITS.has(currency)) {
    c.add(path, 'invalid_currency', `The currency ${currency ? `"${currency}"` : '(Ccy missing)'} is not an ISO 4217 currency code.`);
    ok = false;
  }
  const m = value === null ? null : AMOUNT.exec(value);
  if (!m) {
    c.add(path, 'invalid_amount', `${value === null ? 'The amount is empty' : `"${value}" is not an amount`}: up to 18 digits, at most 5 decimals, not negative.`);
    return null;
  }
  if (!ok) return null;
  const scale = CURRENCY_MINOR_UNITS.get(currency!)!;
  const decimals = m[2] ?? '';
  if (/[1-9]/.test(decimals.slice(scale))) {
    c.add(path, 'too_many_decimals', `${value} ${currency} has more decimals than ${currency} allows (${scale}); it cannot be booked exactly.`);
    return null;
  }
  return { amount: formatDecimal(new Dec(value!), scale), currency: currency! };
}

function readIndicator(c: Collector, node: unknown, path: string, required: boolean): 'CRDT' | 'DBIT' | null {
  const v = textAt(node, 'CdtDbtInd');
  if (v === 'CRDT' || v === 'DBIT') return v;
  if (v !== null || required) c.add(`${path}.CdtDbtInd`, v === null ? 'missing' : 'invalid_indicator', 'Must be CRDT or DBIT.');
  return null;
}

/** `Dt` or `DtTm` → the calendar date as the bank wrote it. */
function readDate(c: Collector, node: unknown, path: string): string | null {
  if (node === undefined) return null;
  const value = textAt(node, 'Dt') ?? textAt(node, 'DtTm');
  if (value === null) {
    c.add(path, 'missing', 'Needs a Dt or DtTm.');
    return null;
  }
  const m = DATE.exec(value);
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : null;
  if (!date || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) {
    c.add(path, 'invalid_date', `"${value}" is not a date.`);
    return null;
  }
  return date;
}

function signed(amount: string, indicator: 'CRDT' | 'DBIT'): string {
  return indicator === 'DBIT' && new Dec(amount).gt(0) ? `-${amount}` : amount;
}

/** A reference, or null for the placeholders banks write when there is none. */
function reference(value: string | null, placeholder: string): string | null {
  return value === null || value.toUpperCase() === placeholder ? null : value;
}
