// SEPA core direct debits (pain.008): one PmtInf per collection date and sequence type. The
// .001.02 flavour is the one German banks take (and passes the Deutsche Kreditwirtschaft's
// restricted schema); .001.08 is the 2019 edition the EPC rulebooks name since November 2023.
import type { Dec } from '../../billing/money';
import { SEQUENCE_TYPES, SepaInputError, type Pain008Version, type SepaDirectDebitFile, type SequenceType } from './model';
import { Checker, MAX_NAME, MAX_REMITTANCE, sepaAmount, totals } from './rules';
import { financialInstitution, painDocument, paymentInfoId, type XmlObject } from './xml';

interface CheckedDebit {
  endToEndId: string;
  amount: Dec;
  mandateId: string;
  mandateSignedOn: string;
  debtor: { name?: string; iban: string; bic?: string };
  remittance?: string;
}

interface CheckedGroup {
  collectionDate: string;
  sequenceType: SequenceType;
  debits: CheckedDebit[];
}

/** The file's input after every rule; throws `SepaInputError` naming each broken one. */
function checkDirectDebitFile(file: SepaDirectDebitFile) {
  const c = new Checker();
  const messageId = c.id('messageId', file.messageId);
  const createdAt = c.dateTime('createdAt', file.createdAt);
  const creditor = {
    name: c.text('creditor.name', file.creditor.name, MAX_NAME, true),
    iban: c.iban('creditor.iban', file.creditor.iban),
    bic: c.bic('creditor.bic', file.creditor.bic),
    creditorId: c.creditorId('creditor.creditorId', file.creditor.creditorId),
  };
  if (file.groups.length === 0) c.add('groups', 'no_transactions', 'A file needs at least one group of debits.');
  const endToEndIds = new Set<string>();
  const groups: CheckedGroup[] = file.groups.map((group, g) => {
    const at = `groups[${g}]`;
    const collectionDate = c.date(`${at}.collectionDate`, group.collectionDate);
    if (!SEQUENCE_TYPES.includes(group.sequenceType)) c.add(`${at}.sequenceType`, 'invalid_sequence_type', `Must be one of ${SEQUENCE_TYPES.join(', ')}.`);
    if (group.debits.length === 0) c.add(`${at}.debits`, 'no_transactions', 'A group needs at least one debit.');
    const debits = group.debits.map((debit, i) => {
      const path = `${at}.debits[${i}]`;
      const endToEndId = c.id(`${path}.endToEndId`, debit.endToEndId);
      if (endToEndIds.has(endToEndId)) c.add(`${path}.endToEndId`, 'duplicate_end_to_end_id', 'Must be unique within the file (returns are matched by it).');
      endToEndIds.add(endToEndId);
      const mandateSignedOn = c.date(`${path}.mandateSignedOn`, debit.mandateSignedOn);
      if (mandateSignedOn > collectionDate) c.add(`${path}.mandateSignedOn`, 'mandate_signed_after_collection', 'The mandate must be signed on or before the collection date.');
      return {
        endToEndId,
        amount: c.amount(`${path}.amount`, debit.amount),
        mandateId: c.id(`${path}.mandateId`, debit.mandateId ?? ''),
        mandateSignedOn,
        debtor: {
          name: c.text(`${path}.debtor.name`, debit.debtor.name, MAX_NAME, true),
          iban: c.iban(`${path}.debtor.iban`, debit.debtor.iban),
          bic: c.bic(`${path}.debtor.bic`, debit.debtor.bic),
        },
        remittance: c.text(`${path}.remittance`, debit.remittance, MAX_REMITTANCE, false),
      };
    });
    return { collectionDate, sequenceType: group.sequenceType, debits };
  });
  if (c.violations.length > 0) throw new SepaInputError(c.violations);
  return { messageId, createdAt, creditor, groups };
}

/** The pain.008 XML of a direct-debit file, byte for byte the same for the same input. */
export function pain008Xml(file: SepaDirectDebitFile, version: Pain008Version): string {
  const { messageId, createdAt, creditor, groups } = checkDirectDebitFile(file);
  const bicElement = version === 'pain.008.001.02' ? 'BIC' : 'BICFI';
  const all = totals(groups.flatMap((g) => g.debits.map((d) => d.amount)));
  const body: XmlObject = {
    GrpHdr: { MsgId: messageId, CreDtTm: createdAt, NbOfTxs: all.count, CtrlSum: all.sum, InitgPty: { Nm: creditor.name! } },
    PmtInf: groups.map((group, g): XmlObject => {
      const sums = totals(group.debits.map((d) => d.amount));
      return {
        PmtInfId: paymentInfoId(messageId, g),
        PmtMtd: 'DD',
        BtchBookg: 'true',
        NbOfTxs: sums.count,
        CtrlSum: sums.sum,
        PmtTpInf: { SvcLvl: { Cd: 'SEPA' }, LclInstrm: { Cd: 'CORE' }, SeqTp: group.sequenceType },
        ReqdColltnDt: group.collectionDate,
        Cdtr: { Nm: creditor.name! },
        CdtrAcct: { Id: { IBAN: creditor.iban } },
        CdtrAgt: financialInstitution(creditor.bic, bicElement),
        ChrgBr: 'SLEV',
        CdtrSchmeId: { Id: { PrvtId: { Othr: { Id: creditor.creditorId, SchmeNm: { Prtry: 'SEPA' } } } } },
        DrctDbtTxInf: group.debits.map((d) => ({
          PmtId: { EndToEndId: d.endToEndId },
          InstdAmt: { '@Ccy': 'EUR', '#': sepaAmount(d.amount) },
          DrctDbtTx: { MndtRltdInf: { MndtId: d.mandateId, DtOfSgntr: d.mandateSignedOn, AmdmntInd: 'false' } },
          DbtrAgt: financialInstitution(d.debtor.bic, bicElement),
          Dbtr: { Nm: d.debtor.name! },
          DbtrAcct: { Id: { IBAN: d.debtor.iban } },
          RmtInf: d.remittance === undefined ? undefined : { Ustrd: d.remittance },
        })),
      };
    }),
  };
  return painDocument(version, 'CstmrDrctDbtInitn', body);
}
