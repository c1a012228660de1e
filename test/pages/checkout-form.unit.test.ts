import { describe, expect, it } from 'vitest';
import { webUrl } from '../../src/pages/checkout/components';
import { buyerDetails, confirmInput, fieldOf, withViolations } from '../../src/pages/checkout/form';
import { formatMoney, formatRate } from '../../src/pages/checkout/format';
import { pickLang } from '../../src/pages/checkout/texts';

describe('checkout page language', () => {
  it.each([
    [undefined, undefined, 'de'],
    ['en-US,en;q=0.9', undefined, 'en'],
    ['fr-FR,fr;q=0.9,en;q=0.8,de;q=0.7', undefined, 'en'],
    ['fr-FR,de;q=0.5,en;q=0.4', undefined, 'de'],
    ['en;q=0, de;q=0.1', undefined, 'de'],
    ['fr', undefined, 'de'],
    ['en-GB', 'de', 'de'],
    ['de-AT', 'en', 'en'],
    ['en', 'xx', 'en'],
  ])('Accept-Language %j with ?lang=%j is %s', (header, override, lang) => {
    expect(pickLang(header, override)).toBe(lang);
  });
});

describe('checkout page violations', () => {
  it.each([
    ['email', 'email'],
    ['invoiceAddress.vatId', 'vatId'],
    ['newInvoiceAddress.vatId', 'vatId'],
    ['newInvoiceAddress.companyName', 'companyName'],
    ['invoiceAddress.countryCode', 'countryCode'],
    ['newPaymentMethod.sepaDebit.iban', 'iban'],
    ['newPaymentMethod', 'paymentType'],
    ['newPaymentMethod.type', 'paymentType'],
    ['newPaymentMethod.sepaDebit', 'iban'],
    ['quantity', 'quantity'],
    ['cartItemId', 'quantity'],
    ['code', 'code'],
    ['invoiceAddress.salutation', null],
    ['invoiceAddressId', null],
  ])('%s is shown at %s', (path, field) => {
    expect(fieldOf(path)).toBe(field);
  });

  it('keeps the typed values, one message per field, and the rest for the top', () => {
    const state = withViolations(
      'en',
      { vatId: 'DE12' },
      [
        { propertyPath: 'invoiceAddress.vatId', message: 'Not a VAT id.', code: 'invalid' },
        { propertyPath: 'invoiceAddress.vatId', message: 'Second message.', code: 'invalid' },
        { propertyPath: 'invoiceAddressId', message: 'Unknown address.', code: 'not_found' },
      ],
      'fallback',
    );
    expect(state).toEqual({ values: { vatId: 'DE12' }, errors: { vatId: 'Not a VAT id.' }, general: ['Unknown address.'] });
    expect(withViolations('en', {}, [], 'Conflict.').general).toEqual(['Conflict.']);
  });

  it('speaks German on a German page, by field and code, else shows the service\'s message', () => {
    const state = withViolations(
      'de',
      {},
      [
        { propertyPath: 'newInvoiceAddress.vatId', message: 'Not a valid VAT id for its member state.', code: 'invalid_vat_id' },
        { propertyPath: 'newInvoiceAddress.street', message: 'Must be at most 255 characters long.', code: 'too_long' },
        { propertyPath: 'newPaymentMethod.sepaDebit.iban', message: 'Must be a valid IBAN.', code: 'invalid_iban' },
        { propertyPath: 'email', message: 'Something new.', code: 'brand_new_rule' },
      ],
      'fallback',
    );
    expect(state.errors).toEqual({
      vatId: 'Diese USt-IdNr. ist für ihren Mitgliedstaat nicht gültig.',
      street: 'Bitte geben Sie höchstens 255 Zeichen an.',
      iban: 'Bitte prüfen Sie die IBAN.',
      email: 'Something new.',
    });
  });
});

describe('checkout page forms', () => {
  it('turns the details form into the service input: blanks are absent, VAT id and IBAN without spaces', () => {
    const form = { email: ' a@b.de ', phone: '', companyName: 'ACME', vatId: 'de 123 456 789', street: 'Hauptstr.', houseNumber: '', zip: '10115', city: 'Berlin', countryCode: 'de' };
    expect(buyerDetails(form)).toEqual({
      email: 'a@b.de',
      phone: null,
      invoiceAddress: { companyName: 'ACME', vatId: 'DE123456789', firstName: null, lastName: null, street: 'Hauptstr.', houseNumber: null, zip: '10115', city: 'Berlin', countryCode: 'DE' },
    });
    expect(confirmInput({ ...form, paymentType: 'sepa_debit', iban: 'de89 3704 0044 0532 0130 00', accountHolder: ' Erika ' }).newPaymentMethod).toEqual({
      type: 'sepa_debit',
      sepaDebit: { iban: 'DE89370400440532013000', accountHolder: 'Erika' },
    });
    expect(confirmInput({ paymentType: 'fake_provider' }).newPaymentMethod).toEqual({ type: 'fake_provider' });
    // A card is the card client's payment method id, which the page's script puts in cardToken.
    expect(confirmInput({ paymentType: 'card', cardToken: ' pm_123 ' }).newPaymentMethod).toEqual({ type: 'card', token: 'pm_123' });
    expect(confirmInput({ paymentType: 'paypal' }).newPaymentMethod).toBeNull();
  });

  it('formats exact decimal strings for the buyer', () => {
    expect(formatMoney('1234.50', 'EUR', 'de')).toBe('1.234,50\u00a0€');
    expect(formatMoney('1234.50', 'EUR', 'en')).toBe('€1,234.50');
    // Beyond a double's precision the text is formatted as given, not as a rounded binary number.
    expect(formatMoney('90071992547409.93', 'EUR', 'en')).toBe('€90,071,992,547,409.93');
    expect(formatMoney('1000', 'JPY', 'en')).toBe('JP¥1,000');
    expect(formatRate('19.00')).toBe('19');
    expect(formatRate('7.50')).toBe('7.5');
    expect(formatRate('0')).toBe('0');
  });
});

describe('checkout page links', () => {
  it.each([
    ['https://shop.example/thanks', 'https://shop.example/thanks'],
    ['HTTP://shop.example', 'HTTP://shop.example'],
    ['javascript:alert(1)', null],
    ['//evil.example', null],
    ['', null],
    [null, null],
  ])('a tenant URL %j is followed as %j', (url, shown) => {
    expect(webUrl(url)).toBe(shown);
  });
});
