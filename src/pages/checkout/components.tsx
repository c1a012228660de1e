/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';
import type { PublicCart } from '../../schemas/checkout';
import { assetPath } from './assets';
import { countryName, formatMoney, htmlLang } from './format';
import type { FormState } from './form';
import type { Lang, Texts } from './texts';

// The frame of the checkout pages, the pages that are only a message, and the labelled form field
// with its error, which every form of the page uses.

export interface PageProps {
  lang: Lang;
  t: Texts;
  /** The page's own path, for the language switch. */
  path: string;
  /** `?lang=…` when chosen explicitly, carried by every form. */
  query: string;
}

/** A tenant's link target only when it is a web address (never `javascript:` or the like). */
export function webUrl(url: string | null | undefined): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/** The seller's name and logo in the header, its address and the links to its own pages at the foot. */
function SellerFooter(props: { seller: NonNullable<PublicCart['seller']>; lang: Lang; t: Texts }) {
  const { seller, t } = props;
  const links = [
    { href: webUrl(seller.termsUrl), label: t.terms },
    { href: webUrl(seller.privacyUrl), label: t.privacy },
    { href: webUrl(seller.withdrawalUrl), label: t.withdrawal },
    { href: webUrl(seller.imprintUrl), label: t.imprint },
  ].filter((l) => l.href);
  return (
    <footer class="seller-foot">
      <address>
        <strong>{seller.name}</strong>
        {seller.address.map((line) => (
          <span>{line}</span>
        ))}
        <span>{countryName(seller.countryCode, props.lang)}</span>
      </address>
      {links.length > 0 ? (
        <nav aria-label={t.legalLinks}>
          <ul class="legal">
            {links.map((l) => (
              <li>
                <a href={l.href!} target="_blank" rel="noopener noreferrer">
                  {l.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </footer>
  );
}

export function Layout(props: PageProps & { title: string; children: Child; script?: boolean; headingInHeader?: boolean; cardClient?: string | null; seller?: PublicCart['seller'] }) {
  const other: Lang = props.lang === 'de' ? 'en' : 'de';
  const seller = props.seller ?? null;
  return (
    <html lang={htmlLang(props.lang)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <link rel="stylesheet" href={assetPath('css')} />
        {props.cardClient ? <script src={props.cardClient} defer></script> : null}
        {props.script ? <script src={assetPath('js')} defer></script> : null}
      </head>
      <body>
        <header class="top">
          {seller ? (
            <span class="seller" data-seller>
              {seller.logoUrl ? <img class="logo" src={seller.logoUrl} alt={props.t.logoAlt(seller.name)} /> : null}
              <span class="seller-name">{seller.name}</span>
            </span>
          ) : null}
          {props.headingInHeader ? <h1 class="brand">{props.t.heading}</h1> : <span class="brand">{props.t.heading}</span>}
          <a class="lang" href={`${props.path}?lang=${other}`} hreflang={other} lang={other}>
            {props.t.language}
          </a>
        </header>
        <main id="main">{props.children}</main>
        {seller ? <SellerFooter seller={seller} lang={props.lang} t={props.t} /> : null}
      </body>
    </html>
  );
}

/** A message page: unknown link, expired cart, locked cart, an unexpected error. */
export function MessagePage(props: PageProps & { title: string; message: string; link?: { href: string; label: string } | null }) {
  return (
    <Layout {...props} title={props.title}>
      <section class="card message">
        <h1>{props.title}</h1>
        <p>{props.message}</p>
        {props.link ? (
          <p>
            <a class="button" href={props.link.href}>
              {props.link.label}
            </a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}

export function CompletedPage(props: PageProps & { cart: PublicCart; message: string | null }) {
  const { t, cart } = props;
  // completionDetails are references for machines (subscription:…, invoice:…), not for the buyer.
  const lines = [props.message || t.completedDefault];
  const done = cart.completion;
  return (
    <Layout {...props} title={t.completedTitle} seller={cart.seller}>
      <section class="card message" aria-labelledby="done-h">
        <h1 id="done-h">{t.completedTitle}</h1>
        {lines.map((l) => (
          <p>{l}</p>
        ))}
        {done ? (
          <dl class="completion">
            {done.invoiceNumber ? (
              <div class="row">
                <dt>{t.invoiceNumber}</dt>
                <dd data-invoice-number>{done.invoiceNumber}</dd>
              </div>
            ) : null}
            <div class="row">
              <dt>{done.paid ? t.amountPaid : t.amountDue}</dt>
              <dd data-amount>{formatMoney(done.amount, done.currencyCode, props.lang)}</dd>
            </div>
          </dl>
        ) : (
          <p class="total-line">
            {t.total}: <strong>{formatMoney(cart.price.amountDue, cart.price.currencyCode, props.lang)}</strong>
          </p>
        )}
        {done?.email ? <p data-emailed>{t.emailedTo(done.email)}</p> : null}
        {cart.settings.backButton && webUrl(cart.settings.backButton.url) ? (
          <p>
            <a class="button" href={webUrl(cart.settings.backButton.url)!}>
              {cart.settings.backButton.label || t.continue}
            </a>
          </p>
        ) : null}
      </section>
    </Layout>
  );
}

/**
 * The first charge waits for the buyer's bank (3-D Secure): the card client opens the bank's
 * challenge with the charge's client secret, then the form asks our server how the charge stands
 * (never the browser's word). Without the card client the form still shows where it stands.
 */
export function AuthenticatePage(props: PageProps & { cart: PublicCart; card: { publishableKey: string; clientUrl: string; clientSecret: string | null } | null }) {
  const { t, cart, card } = props;
  const amount = cart.completion ? formatMoney(cart.completion.amount, cart.completion.currencyCode, props.lang) : formatMoney(cart.price.amountDue, cart.price.currencyCode, props.lang);
  return (
    <Layout {...props} title={t.authenticateTitle} script cardClient={card?.clientUrl ?? null} seller={cart.seller}>
      <section class="card message" aria-labelledby="auth-h" data-authenticate data-key={card?.publishableKey ?? ''} data-client-secret={card?.clientSecret ?? ''}>
        <h1 id="auth-h">{t.authenticateTitle}</h1>
        <p>{t.authenticate(amount)}</p>
        <form method="post" action={`/checkout/cart/${encodeURIComponent(cart.id)}/payment${props.query}`} id="authenticate-form">
          <button type="submit" class="primary">
            {t.authenticateCheck}
          </button>
        </form>
      </section>
    </Layout>
  );
}

/** The e-mail belongs to an existing customer: the one-time code sent to it completes the order. */
export function OtpPage(props: PageProps & { cartId: string; email: string; form: FormState }) {
  const { t, form } = props;
  return (
    <Layout {...props} title={t.otpTitle}>
      <section class="card message" aria-labelledby="otp-h">
        <h1 id="otp-h">{t.otpTitle}</h1>
        <p>{t.otpSent(props.email)}</p>
        <form method="post" action={`/checkout/cart/${encodeURIComponent(props.cartId)}/otp${props.query}`}>
          <input type="hidden" name="email" value={props.email} />
          <TextField form={form} name="otp" label={t.otpCode} required autocomplete="one-time-code" inputmode="numeric" />
          <button type="submit" class="primary">
            {t.otpConfirm}
          </button>
        </form>
      </section>
    </Layout>
  );
}

export function FieldError(props: { field: string; form: FormState }) {
  const message = props.form.errors[props.field];
  return message ? (
    <p class="error" id={`e-${props.field}`}>
      {message}
    </p>
  ) : null;
}

/** aria attributes linking an input to its error message. */
export function errorAttrs(form: FormState, field: string) {
  const invalid = field in form.errors;
  return { 'aria-invalid': invalid ? 'true' : undefined, 'aria-describedby': invalid ? `e-${field}` : undefined };
}

export function TextField(props: {
  form: FormState;
  name: string;
  label: string;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  class?: string;
  inputmode?: "text" | "numeric" | "email" | "tel";
}) {
  const { form, name } = props;
  return (
    <div class={`field ${props.class ?? ''}`}>
      <label for={`f-${name}`}>
        {props.label}
        {props.required ? <span class="req" aria-hidden="true"> *</span> : null}
      </label>
      <input
        id={`f-${name}`}
        name={name}
        type={props.type ?? 'text'}
        value={form.values[name] ?? ''}
        required={props.required}
        autocomplete={props.autocomplete}
        inputmode={props.inputmode}
        {...errorAttrs(form, name)}
      />
      <FieldError field={name} form={form} />
    </div>
  );
}

