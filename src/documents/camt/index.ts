// The pure camt reader: bank statements (camt.053), intraday reports (camt.052) and debit/credit
// notifications (camt.054) → the booking lines the import stores and matches.
export { parseCamt } from './parse';
export { camtBankItems } from './items';
export { decodeCamtBytes } from './decode';
export * from './model';
