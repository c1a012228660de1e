// SEPA credit transfers (pain.001) for refunds and credit notes: the tenant pays customers back.
// .001.03 is the German banks' flavour (Deutsche Kreditwirtschaft restricted schema), .001.09 the
// 2019 edition, where the execution date became a choice of date or date-time.
import { SepaInputError, type Pain001Version, type SepaCreditTransferFile } from './model';
import { Checker, MAX_NAME, MAX_REMITTANCE, sepaAmount, totals } from './rules';
import { financialInstitution, painDocument, paymentInfoId, type XmlObject } from './xml';

/** The file's input after every rule; throws `SepaInputError` naming each broken one. */
function checkCreditTransferFile(file: SepaCreditTransferFile) {
  const c = new Checker();
  const messageId = c.id('messageId', file.messageId);
  const createdAt = c.dateTime('createdAt', file.createdAt);
  const payer = {
    name: c.text('payer.name', file.payer.name, MAX_NAME, true),
    iban: c.iban('payer.iban', file.payer.iban),
    bic: c.bic('payer.bic', file.payer.bic),
  };
  if (file.groups.length === 0) c.add('groups', 'no_transactions', 'A file needs at least one group of transfers.');
  const endToEndIds = new Set<string>();
  const groups = file.groups.map((group, g) => {
    const at = `groups[${g}]`;
    const executionDate = c.date(`${at}.executionDate`, group.executionDate);
    if (group.transfers.length === 0) c.add(`${at}.transfers`, 'no_transactions', 'A group needs at least one transfer.');
    const transfers = group.transfers.map((transfer, i) => {
      const path = `${at}.transfers[${i}]`;
      const endToEndId = c.id(`${path}.endToEndId`, transfer.endToEndId);
      if (endToEndIds.has(endToEndId)) c.add(`${path}.endToEndId`, 'duplicate_end_to_end_id', 'Must be unique within the file.');
      endToEndIds.add(endToEndId);
      return {
        endToEndId,
        amount: c.amount(`${path}.amount`, transfer.amount),
        creditor: {
          name: c.text(`${path}.creditor.name`, transfer.creditor.name, MAX_NAME, true),
          iban: c.iban(`${path}.creditor.iban`, transfer.creditor.iban),
          bic: c.bic(`${path}.creditor.bic`, transfer.creditor.bic),
        },
        remittance: c.text(`${path}.remittance`, transfer.remittance, MAX_REMITTANCE, false),
      };
    });
    return { executionDate, transfers };
  });
  if (c.violations.length > 0) throw new SepaInputError(c.violations);
  return { messageId, createdAt, payer, groups };
}

/** The pain.001 XML of a credit-transfer file, byte for byte the same for the same input. */
export function pain001Xml(file: SepaCreditTransferFile, version: Pain001Version): string {
  const { messageId, createdAt, payer, groups } = checkCreditTransferFile(file);
  const bicElement = version === 'pain.001.001.03' ? 'BIC' : 'BICFI';
  const all = totals(groups.flatMap((g) => g.transfers.map((t) => t.amount)));
  const body: XmlObject = {
    GrpHdr: { MsgId: messageId, CreDtTm: createdAt, NbOfTxs: all.count, CtrlSum: all.sum, InitgPty: { Nm: payer.name! } },
    PmtInf: groups.map((group, g): XmlObject => {
      const sums = totals(group.transfers.map((t) => t.amount));
      return {
        PmtInfId: paymentInfoId(messageId, g),
        PmtMtd: 'TRF',
        BtchBookg: 'true',
        NbOfTxs: sums.count,
        CtrlSum: sums.sum,
        PmtTpInf: { SvcLvl: { Cd: 'SEPA' } },
        ReqdExctnDt: version === 'pain.001.001.03' ? group.executionDate : { Dt: group.executionDate },
        Dbtr: { Nm: payer.name! },
        DbtrAcct: { Id: { IBAN: payer.iban } },
        DbtrAgt: financialInstitution(payer.bic, bicElement),
        ChrgBr: 'SLEV',
        CdtTrfTxInf: group.transfers.map((t) => ({
          PmtId: { EndToEndId: t.endToEndId },
          Amt: { InstdAmt: { '@Ccy': 'EUR', '#': sepaAmount(t.amount) } },
          // The creditor's agent is optional since IBAN-only; an unknown one is left out, not NOTPROVIDED.
          CdtrAgt: t.creditor.bic === undefined ? undefined : financialInstitution(t.creditor.bic, bicElement),
          Cdtr: { Nm: t.creditor.name! },
          CdtrAcct: { Id: { IBAN: t.creditor.iban } },
          RmtInf: t.remittance === undefined ? undefined : { Ustrd: t.remittance },
        })),
      };
    }),
  };
  return painDocument(version, 'CstmrCdtTrfInitn', body);
}
