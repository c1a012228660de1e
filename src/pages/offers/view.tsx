/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import { durationText, intervalText, utcTime } from '../../documents/offer/format';
import type { PublicOffer } from '../../schemas/offers';
import { FieldError, errorAttrs, TextField } from '../checkout/components';
import type { FormState } from '../checkout/form';
import { formatMoney, htmlLang } from '../checkout/format';
import { offerCssPath } from './assets';
import { RichText } from './rich-text';
import type { Lang, Texts } from './texts';

// The hosted offer page (docs/decisions.md, Offers): server-rendered, no script, printable.

export interface PageProps {
  lang: Lang;
  t: Texts;
  /** The page's own path, for the language switch. */
  path: string;
  /** `?lang=…` when chosen explicitly, carried by every form. */
  query: string;
}

export function Layout(props: PageProps & { title: string; brand: string; children: Child }) {
  const other: Lang = props.lang === 'de' ? 'en' : 'de';
  return (
    <html lang={htmlLang(props.lang)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex, nofollow" />
        <title>{props.title}</title>
        <link rel="stylesheet" href={offerCssPath()} />
      </head>
      <body>
        <header class="top">
          <span class="brand">{props.brand}</span>
          <a class="lang" href={`${props.path}?lang=${other}`} hreflang={other} lang={other} aria-label={props.t.languageName}>
            {props.t.language}
          </a>
        </header>
        <main id="main">{props.children}</main>
      </body>
    </html>
  );
}

export function MessagePage(props: PageProps & { title: string; message: string; brand?: string }) {
  return (
    <Layout {...props} title={props.title} brand={props.brand ?? props.t.offer}>
      <section class="card message" aria-labelledby="msg-h">
        <h1 id="msg-h">{props.title}</h1>
        <p>{props.message}</p>
      </section>
    </Layout>
  );
}

const day = (iso: string, lang: Lang) => {
  const [y, m, d] = iso.slice(0, 10).split('-');
  return lang === 'de' ? `${d}.${m}.${y}` : `${y}-${m}-${d}`;
};

function LineItems(props: { offer: PublicOffer; lang: Lang; t: Texts }) {
  const { offer, lang, t } = props;
  const currency = offer.totals?.currencyCode ?? 'EUR';
  const money = (m: { amount: string; currencyCode: string } | null) => (m ? formatMoney(m.amount, m.currencyCode, lang) : '–');
  return (
    <section class="card" aria-labelledby="items-h">
      <h2 id="items-h">{t.lineItems}</h2>
      <div class="table-wrap">
        <table class="items">
          <thead>
            <tr>
              <th scope="col">{t.item}</th>
              <th scope="col" class="num">
                {t.quantity}
              </th>
              <th scope="col" class="num">
                {t.unitPrice}
              </th>
              <th scope="col" class="num">
                {t.perInterval}
              </th>
              <th scope="col" class="num">
                {t.firstInvoice}
              </th>
            </tr>
          </thead>
          <tbody>
            {offer.offerLineItems.map((i) => {
              const details = [
                i.type === 'one_time' ? t.oneTime : i.type === 'metered' || i.type === 'instant_metered' ? t.byUsage : null,
                i.billingInterval ? intervalText(i.billingInterval, lang) : null,
                i.type === 'recurring' && !i.payInAdvance ? t.inArrears : null,
              ].filter((x): x is string => !!x);
              return (
                <tr>
                  <td class="item">
                    <span class="item-name">{i.name}</span>
                    {i.description ? <span class="muted small">{i.description}</span> : null}
                    {details.length ? <span class="muted small"> {details.join(', ')}</span> : null}
                  </td>
                  <td class="num" data-label={t.quantity}>
                    {i.quantity}
                  </td>
                  <td class="num" data-label={t.unitPrice}>
                    {i.unitPrice === null ? '–' : formatMoney(i.unitPrice, currency, lang)}
                  </td>
                  <td class="num" data-label={t.perInterval}>
                    {money(i.recurringAmount)}
                  </td>
                  <td class="num" data-label={t.firstInvoice}>
                    {money(i.firstInvoiceAmount)}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {offer.totals ? (
        <>
          <dl class="totals" id="totals">
            {offer.totals.discountAmount.amount.replace(/[0.]/g, '') !== '' ? (
              <div class="row">
                <dt>{t.discount}</dt>
                <dd>{money(offer.totals.discountAmount)}</dd>
              </div>
            ) : null}
            <div class="row">
              <dt>{t.net}</dt>
              <dd>{money(offer.totals.netAmount)}</dd>
            </div>
            <div class="row">
              <dt>{t.tax}</dt>
              <dd>{money(offer.totals.taxAmount)}</dd>
            </div>
            <div class="row grand">
              <dt>{t.gross}</dt>
              <dd data-total="gross">{money(offer.totals.grossAmount)}</dd>
            </div>
          </dl>
          <p class="muted small">{offer.totals.firstBillingDate ? t.firstInvoiceNote(day(offer.totals.firstBillingDate, lang)) : t.nothingDue}</p>
        </>
      ) : null}
    </section>
  );
}

function Terms(props: { offer: PublicOffer; lang: Lang; t: Texts }) {
  const { offer, lang, t } = props;
  const terms = offer.terms;
  if (!terms) return null;
  return (
    <section class="card" aria-labelledby="terms-h">
      <h2 id="terms-h">{t.terms}</h2>
      <dl class="terms">
        <dt>{t.contractStart}</dt>
        <dd>{terms.contractStart ? day(terms.contractStart, lang) : t.onSigning}</dd>
        <dt>{t.contractPeriod}</dt>
        <dd>{terms.contractPeriod ? durationText(terms.contractPeriod, lang) : t.openEnded}</dd>
        {terms.cancellationPeriod ? (
          <>
            <dt>{t.cancellationPeriod}</dt>
            <dd>{durationText(terms.cancellationPeriod, lang)}</dd>
          </>
        ) : null}
        {terms.trialDays > 0 ? (
          <>
            <dt>{t.trial}</dt>
            <dd>{t.days(terms.trialDays)}</dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

export interface SignState {
  form: FormState;
  /** Where the last code went (masked), when one was sent. */
  codeSentTo: string | null;
  /** The masked e-mail address codes go to. */
  email: string;
  /** A message for the whole sign box (too many codes). */
  notice: string | null;
}

function SignBox(props: PageProps & { offer: PublicOffer; token: string; sign: SignState }) {
  const { t, offer, sign } = props;
  const base = `/offer/${props.token}`;
  const form = sign.form;
  const problems = Object.entries(form.errors);
  const pending = offer.recipient.signingStatus === 'pending' || sign.codeSentTo !== null;
  return (
    <section class="card sign" id="sign" aria-labelledby="sign-h">
      <h2 id="sign-h">{t.sign}</h2>
      {problems.length || form.general.length ? (
        <div class="alert" role="alert" id="errors" tabindex={-1}>
          <p>{t.errorsTitle}</p>
          <ul>
            {problems.map(([field, message]) => (
              <li>
                <a href={`#f-${field}`}>{message}</a>
              </li>
            ))}
            {form.general.map((m) => (
              <li>{m}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {sign.notice ? (
        <p class="alert" role="alert">
          {sign.notice}
        </p>
      ) : null}
      <p>{t.signIntro(sign.email)}</p>
      {pending ? (
        <>
          {sign.codeSentTo ? (
            <p class="note" role="status">
              {t.codeSent(sign.codeSentTo)}
            </p>
          ) : null}
          <form method="post" action={`${base}/sign${props.query}`} novalidate>
            <TextField form={form} name="code" label={t.code} required autocomplete="one-time-code" inputmode="numeric" />
            <TextField form={form} name="fullName" label={t.fullName} required autocomplete="name" />
            <div class="check">
              <input type="checkbox" id="f-accept" name="accept" value="1" required {...errorAttrs(form, 'accept')} checked={form.values.accept === '1'} />
              <label for="f-accept">{t.accept}</label>
            </div>
            <FieldError field="accept" form={form} />
            <button type="submit" class="primary">
              {t.signButton}
            </button>
          </form>
          <form method="post" action={`${base}/code${props.query}`} class="no-print">
            <p>
              <button type="submit" class="secondary">
                {t.sendNewCode}
              </button>
            </p>
          </form>
        </>
      ) : (
        <form method="post" action={`${base}/code${props.query}`}>
          <button type="submit" class="primary">
            {t.sendCode}
          </button>
        </form>
      )}
      <p class="muted small">{t.legal}</p>
    </section>
  );
}

export function OfferPage(props: PageProps & { offer: PublicOffer; token: string; sign: SignState }) {
  const { t, offer, lang } = props;
  const title = offer.name ? `${t.offer} ${offer.number}: ${offer.name}` : `${t.offer} ${offer.number}`;
  const me = offer.recipient;
  return (
    <Layout {...props} title={title} brand={offer.seller}>
      {offer.signed ? (
        <section class="card done" role="status" aria-labelledby="done-h">
          <h2 id="done-h">{t.signedTitle}</h2>
          <p>{t.signedText(utcTime(offer.signedAt!))}</p>
          {offer.signedDocumentUrl ? (
            <p class="no-print">
              <a class="button secondary" href={offer.signedDocumentUrl}>
                {t.download}
              </a>
            </p>
          ) : null}
        </section>
      ) : me.signingStatus === 'signed' ? (
        <section class="card done" role="status">
          <p>
            <strong>{t.youSigned(utcTime(me.signedAt ?? offer.pricedAt))}</strong>
          </p>
          <p>{t.waiting}</p>
        </section>
      ) : null}
      <article class="card" aria-labelledby="offer-h">
        <h1 id="offer-h">{title}</h1>
        <p class="meta">
          {t.from(offer.seller)} · {t.asOf(day(offer.pricedAt, lang))}
        </p>
        {offer.description ? <p class="description">{offer.description}</p> : null}
        {offer.sections.map((s) => (
          <RichText html={s} />
        ))}
        {offer.contactPerson ? (
          <p class="muted">
            {t.contact}: {offer.contactPerson.firstName} {offer.contactPerson.lastName} ·{' '}
            <a href={`mailto:${offer.contactPerson.email}`}>{offer.contactPerson.email}</a>
          </p>
        ) : null}
      </article>
      {offer.offerLineItems.length ? <LineItems offer={offer} lang={lang} t={t} /> : null}
      <Terms offer={offer} lang={lang} t={t} />
      {offer.canSign ? (
        <SignBox {...props} offer={offer} token={props.token} sign={props.sign} />
      ) : me.role === 'read' && offer.status !== 'signed' ? (
        <p class="muted">{t.readOnly}</p>
      ) : null}
    </Layout>
  );
}
