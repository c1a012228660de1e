// A camt.053.001.02 statement for the payment tests, written the way German banks write them
// (element order of the ISO schema; the tests run it through the schema judge as well).

export interface CamtDetail {
  endToEndId?: string;
  mandateId?: string;
  /** Of a batch: this collection's amount. */
  amount?: string;
  name?: string;
  iban?: string;
  remittance?: string;
}

export interface CamtEntry {
  ref: string;
  amount: string;
  credit: boolean;
  bookingDate: string;
  details: CamtDetail[];
}

const family = (e: CamtEntry) => (e.credit ? (e.details.some((d) => d.mandateId) ? ['RDDT', 'ESDD'] : ['RCDT', 'ESCT']) : ['ICDT', 'ESCT']);

function detail(e: CamtEntry, d: CamtDetail): string {
  const refs = d.endToEndId || d.mandateId ? `<Refs>${d.endToEndId ? `<EndToEndId>${d.endToEndId}</EndToEndId>` : ''}${d.mandateId ? `<MndtId>${d.mandateId}</MndtId>` : ''}</Refs>` : '';
  const amount = d.amount ? `<AmtDtls><TxAmt><Amt Ccy="EUR">${d.amount}</Amt></TxAmt></AmtDtls>` : '';
  const party = d.name || d.iban ? (e.credit ? `<RltdPties><Dbtr><Nm>${d.name ?? ''}</Nm></Dbtr>${d.iban ? `<DbtrAcct><Id><IBAN>${d.iban}</IBAN></Id></DbtrAcct>` : ''}</RltdPties>` : `<RltdPties><Cdtr><Nm>${d.name ?? ''}</Nm></Cdtr>${d.iban ? `<CdtrAcct><Id><IBAN>${d.iban}</IBAN></Id></CdtrAcct>` : ''}</RltdPties>`) : '';
  const remittance = d.remittance ? `<RmtInf><Ustrd>${d.remittance}</Ustrd></RmtInf>` : '';
  return `<TxDtls>${refs}${amount}${party}${remittance}</TxDtls>`;
}

export function camt053(account: string, id: string, entries: CamtEntry[]): string {
  const ntry = entries.map((e) => {
    const [fmly, sub] = family(e);
    return `<Ntry><Amt Ccy="EUR">${e.amount}</Amt><CdtDbtInd>${e.credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${e.bookingDate}</Dt></BookgDt><ValDt><Dt>${e.bookingDate}</Dt></ValDt><AcctSvcrRef>${e.ref}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>${fmly}</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls>${e.details.map((d) => detail(e, d)).join('')}</NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>2027-03-10T06:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>2027-03-10T06:00:00</CreDtTm><Acct><Id><IBAN>${account}</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2027-03-10</Dt></Dt></Bal>${ntry.join('')}</Stmt></BkToCstmrStmt></Document>
`;
}
