/** @jsxImportSource hono/jsx */
import type { PublicCart } from '../../schemas/checkout';
import { errorAttrs, FieldError, Layout, TextField, webUrl, type PageProps } from './components';
import { countries, formatMoney, formatRate } from './format';
import { PAYMENT_TYPES, type FormState } from './form';
import { durationText, everyText, intervalText, VIOLATIONS_DE, type Lang, type Texts } from './texts';

// The cart page, rendered on the server. Every control is a plain form that works without
// JavaScript; checkout.js only makes the total follow quantity, coupon and address without a reload.

function Totals(props: { cart: PublicCart; lang: Lang; t: Texts }) {
  const { cart, t, lang } = props;
  const p = cart.price;
  const money = (a: string) => formatMoney(a, p.currencyCode, lang);
  return (
    <dl class="totals" id="totals" aria-live="polite">
      {p.discountDetails.map((d) => (
        <div class="row discount">
          <dt>
            {t.discount} ({d.code})
          </dt>
          <dd>−{money(d.amount)}</dd>
        </div>
      ))}
      <div class="row">
        <dt>{t.net}</dt>
        <dd data-total="net">{money(p.netAmount)}</dd>
      </div>
      {p.taxes.map((x) => (
        <div class="row">
          <dt>
            {t.tax(formatRate(x.rate))}
            {x.category === 'AE' ? <span class="note">{t.reverseCharge}</span> : x.note ? <span class="note">{x.note}</span> : null}
          </dt>
          <dd>{money(x.taxAmount)}</dd>
        </div>
      ))}
      <div class="row grand">
        <dt>{t.total}</dt>
        <dd data-total="due">{money(p.amountDue)}</dd>
      </div>
    </dl>
  );
}

function Items(props: { cart: PublicCart; lang: Lang; t: Texts; form: FormState; base: string; q: string }) {
  const { cart, t, lang, form } = props;
  return (
    <ul class="items">
      {cart.items.map((item) => {
        const r = item.price.recurring;
        const editable = cart.status === 'open' && item.quantityDetails.quantityEditable;
        const money = (a: string) => formatMoney(a, item.price.currencyCode, lang);
        const qty = form.values.cartItemId === item.id && form.values.quantity !== undefined ? form.values.quantity : String(item.quantity);
        return (
          <li class="item">
            <div class="item-head">
              <h3>{item.name}</h3>
              <span class="item-amount">
                <span data-item-amount={item.id}>{money(r ? r.recurringAmount : item.price.totalNetAmount)}</span>
                {r ? <span class="per"> {t.per(intervalText(t, r.interval, r.intervalCount))}</span> : null}
              </span>
            </div>
            {item.description ? <p class="muted">{item.description}</p> : null}
            {item.price.calculationType === 'per_unit' && item.price.price.amount ? (
              <p class="muted" data-item-breakdown={item.id} data-unit-amount={item.price.price.amount}>
                {item.quantity} × {money(item.price.price.amount)}
              </p>
            ) : null}
            {r && r.trialPeriodDays > 0 ? (
              <p>
                <span class="badge">{t.trial(r.trialPeriodDays)}</span>
              </p>
            ) : null}
            {editable ? (
              <form method="post" action={`${props.base}/quantity${props.q}`} class="inline" data-js="quantity">
                <input type="hidden" name="cartItemId" value={item.id} />
                <div class="field narrow">
                  <label for={`f-quantity-${item.id}`}>{t.quantity}</label>
                  <input
                    id={`f-quantity-${item.id}`}
                    name="quantity"
                    type="number"
                    inputmode="numeric"
                    min={String(item.quantityDetails.minQuantity)}
                    max={item.quantityDetails.maxQuantity === null ? undefined : String(item.quantityDetails.maxQuantity)}
                    step="1"
                    value={qty}
                    required
                    {...(form.errors.quantity ? { 'aria-invalid': 'true', 'aria-describedby': 'e-quantity' } : {})}
                  />
                </div>
                <button type="submit" class="secondary">
                  {t.updateQuantity}
                </button>
                <FieldError field="quantity" form={form} />
              </form>
            ) : (
              <p class="muted">
                {t.quantity}: {item.quantity}
                {item.quantityDetails.unit ? ` ${item.quantityDetails.unit}` : ''}
              </p>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function CouponApplied(props: { code: string; t: Texts; base: string; q: string }) {
  return (
    <form method="post" action={`${props.base}/coupon/remove${props.q}`} class="inline coupon" data-js="coupon-remove">
      <p class="applied" data-coupon-applied>
        {props.t.couponApplied(props.code)}
      </p>
      <button type="submit" class="link">
        {props.t.removeCoupon}
      </button>
    </form>
  );
}

function CouponEntry(props: { t: Texts; form: FormState; base: string; q: string }) {
  const { t, form } = props;
  return (
    <form method="post" action={`${props.base}/coupon${props.q}`} class="inline coupon" data-js="coupon">
      <div class="field grow">
        <label for="f-code">{t.coupon}</label>
        <input id="f-code" name="code" type="text" autocomplete="off" value={form.values.code ?? ''} required {...errorAttrs(form, 'code')} />
      </div>
      <button type="submit" class="secondary">
        {t.applyCoupon}
      </button>
      <FieldError field="code" form={form} />
    </form>
  );
}

/**
 * The coupon field, or the applied coupon with its remove button. Both are also given as inert
 * templates, so the script swaps them after an apply or a remove without reloading the page.
 */
function Coupon(props: { cart: PublicCart; t: Texts; form: FormState; base: string; q: string }) {
  const { cart } = props;
  if (!cart.settings.allowCoupons || cart.status !== 'open') return null;
  return (
    <div id="coupon-box">
      {cart.couponCode ? <CouponApplied {...props} code={cart.couponCode} /> : <CouponEntry {...props} />}
      <template id="tpl-coupon-entry">
        <CouponEntry {...props} form={{ values: {}, errors: {}, general: [] }} />
      </template>
      <template id="tpl-coupon-applied">
        <CouponApplied {...props} code="{code}" />
      </template>
    </div>
  );
}

/**
 * What the order commits to beyond today: how often and at what it renews, the minimum term and
 * the notice period, next to the order button (the script keeps the amount in step with the quantity).
 */
function Renewal(props: { cart: PublicCart; lang: Lang; t: Texts }) {
  const { t, lang } = props;
  const r = props.cart.renewal;
  if (!r) return null;
  const amount = formatMoney(r.amount, r.currencyCode, lang);
  const terms = [
    r.contractPeriod ? t.minimumTerm(durationText(t, r.contractPeriod)) : null,
    r.cancellationPeriod ? t.noticePeriod(durationText(t, r.cancellationPeriod)) : t.cancelAnyTime,
  ].filter(Boolean);
  const sentence = t.renews(everyText(lang, t, r.interval, r.intervalCount), '\u0000', r.amount !== r.netAmount);
  const [before, after] = sentence.split('\u0000');
  const trialDays = props.cart.items.find((i) => i.price.recurring)?.price.recurring?.trialPeriodDays ?? 0;
  return (
    <p class="renewal muted small" id="renewal" data-renewal>
      {trialDays > 0 ? t.afterTrial(trialDays) : null}
      {before}
      <span data-renewal-amount>{amount}</span>
      {after}; {terms.join('; ')}.
    </p>
  );
}

/** The tenant's terms: accepted with the order, or no order (the service refuses it too). */
function AcceptTerms(props: { cart: PublicCart; t: Texts; form: FormState }) {
  const { cart, t, form } = props;
  const url = webUrl(cart.seller?.termsUrl);
  if (!url) return null;
  return (
    <div class="field check">
      <div>
        <input type="checkbox" id="f-acceptTerms" name="acceptTerms" value="yes" required checked={form.values.acceptTerms === 'yes'} {...errorAttrs(form, 'acceptTerms')} />
        <label for="f-acceptTerms">
          {t.acceptTerms}{' '}
          <a href={url} target="_blank" rel="noopener noreferrer">
            {t.terms}
          </a>
          <span class="req" aria-hidden="true"> *</span>
        </label>
      </div>
      <FieldError field="acceptTerms" form={form} />
    </div>
  );
}

/** The card gateway's client for this page: its publishable key (the script is in the head). */
export interface CardClient {
  publishableKey: string;
}

function PaymentChoice(props: { t: Texts; form: FormState; offered: readonly string[]; card: CardClient | null }) {
  const { t, form, card } = props;
  // Cards need the gateway's client (JavaScript): the option is there only with a client, and
  // shown by the script once the client has loaded.
  const offered = props.offered.filter((type) => type !== 'card' || card);
  const chosen = form.values.paymentType ?? '';
  const labels: Record<(typeof PAYMENT_TYPES)[number], string> = { fake_provider: t.payTesting, sepa_debit: t.paySepa, bank_transfer: t.payTransfer, card: t.payCard };
  return (
    <fieldset class="payment" aria-describedby={form.errors.paymentType ? 'e-paymentType' : undefined}>
      <legend>
        {t.paymentMethod}
        <span class="req" aria-hidden="true"> *</span>
      </legend>
      <FieldError field="paymentType" form={form} />
      {PAYMENT_TYPES.filter((type) => offered.includes(type)).map((type) => (
        <div class={type === 'card' ? 'pay-option card-option' : 'pay-option'}>
          <input type="radio" id={`f-pay-${type}`} name="paymentType" value={type} checked={chosen === type} required />
          <label for={`f-pay-${type}`}>{labels[type]}</label>
          {type === 'sepa_debit' ? (
            <div class="pay-extra">
              <TextField form={form} name="iban" label={t.iban} autocomplete="off" inputmode="text" />
              <TextField form={form} name="accountHolder" label={t.accountHolder} autocomplete="name" />
              <p class="muted small">{t.sepaMandate}</p>
            </div>
          ) : null}
          {type === 'card' && card ? (
            <div class="pay-extra">
              <div class="field">
                <span class="label" id="card-label">
                  {t.cardDetails}
                </span>
                <div id="card-element" class="card-element" data-key={card.publishableKey} role="group" aria-labelledby="card-label"></div>
                <input type="hidden" name="cardToken" value="" />
              </div>
            </div>
          ) : null}
        </div>
      ))}
    </fieldset>
  );
}

export function CartPage(props: PageProps & { cart: PublicCart; form: FormState; card?: (CardClient & { clientUrl: string }) | null }) {
  const { cart, t, form, lang } = props;
  const base = `/checkout/cart/${encodeURIComponent(cart.id)}`;
  const q = props.query;
  const forced = cart.settings.forceCompany;
  const hasErrors = Object.keys(form.errors).length > 0 || form.general.length > 0;
  return (
    <Layout {...props} title={t.htmlTitle} script headingInHeader cardClient={props.card?.clientUrl ?? null} seller={cart.seller}>
      <div
        class="grid"
        data-cart={cart.id}
        data-lang={lang}
        data-texts={JSON.stringify({ net: t.net, discount: t.discount, tax: t.tax('{rate}'), total: t.total, updating: t.updating, updated: t.updated, reverseCharge: t.reverseCharge, messages: lang === 'de' ? VIOLATIONS_DE : {} })}
      >
        {hasErrors ? (
          <div class="alert" role="alert" id="errors" tabindex={-1}>
            <p>{t.fixErrors}</p>
            <ul>
              {Object.entries(form.errors).map(([field, message]) => (
                <li>
                  <a href={field === 'quantity' ? '#main' : `#f-${field === 'paymentType' ? `pay-${cart.settings.paymentMethods[0] ?? 'fake_provider'}` : field}`}>{message}</a>
                </li>
              ))}
              {form.general.map((m) => (
                <li>{m}</li>
              ))}
            </ul>
          </div>
        ) : null}
        <section class="card summary" aria-labelledby="summary-h">
          <h2 id="summary-h">{t.summary}</h2>
          {cart.plan ? (
            <div class="plan" data-plan>
              <h3 class="plan-name">{cart.plan.name}</h3>
              {cart.plan.description ? <p class="muted">{cart.plan.description}</p> : null}
            </div>
          ) : null}
          <Items cart={cart} lang={lang} t={t} form={form} base={base} q={q} />
          <Coupon cart={cart} t={t} form={form} base={base} q={q} />
          <Totals cart={cart} lang={lang} t={t} />
          <p class="status" role="status" id="live-status"></p>
        </section>
        <section class="card details" aria-labelledby="details-h">
          <h2 id="details-h">{t.yourDetails}</h2>
          <form method="post" action={`${base}/confirm${q}`} id="checkout-form" data-js="details">
            <TextField form={form} name="email" label={t.email} type="email" required autocomplete="email" />
            <TextField form={form} name="phone" label={t.phone} type="tel" autocomplete="tel" />
            <fieldset>
              <legend>{t.address}</legend>
              <div class="row2">
                <TextField form={form} name="companyName" label={forced ? t.companyName : t.companyOptional} required={forced} autocomplete="organization" />
                <TextField form={form} name="vatId" label={forced ? t.vatId : t.vatIdOptional} required={forced} autocomplete="off" />
              </div>
              <div class="row2">
                <TextField form={form} name="firstName" label={t.firstName} autocomplete="given-name" />
                <TextField form={form} name="lastName" label={t.lastName} autocomplete="family-name" />
              </div>
              <div class="row2 street">
                <TextField form={form} name="street" label={t.street} required autocomplete="address-line1" class="grow" />
                <TextField form={form} name="houseNumber" label={t.houseNumber} autocomplete="address-line2" class="narrow" />
              </div>
              <div class="row2 city">
                <TextField form={form} name="zip" label={t.zip} required autocomplete="postal-code" class="narrow" />
                <TextField form={form} name="city" label={t.city} required autocomplete="address-level2" class="grow" />
              </div>
              <div class="field">
                <label for="f-countryCode">
                  {t.country}
                  <span class="req" aria-hidden="true"> *</span>
                </label>
                <select id="f-countryCode" name="countryCode" required autocomplete="country" {...errorAttrs(form, 'countryCode')}>
                  {countries(lang).map((c) => (
                    <option value={c.code} selected={c.code === (form.values.countryCode || 'DE')}>
                      {c.name}
                    </option>
                  ))}
                </select>
                <FieldError field="countryCode" form={form} />
              </div>
              <button type="submit" class="secondary" formaction={`${base}/details${q}`} formnovalidate>
                {t.saveDetails}
              </button>
            </fieldset>
            <PaymentChoice t={t} form={form} offered={cart.settings.paymentMethods} card={props.card ?? null} />
            <AcceptTerms cart={cart} t={t} form={form} />
            <Renewal cart={cart} lang={lang} t={t} />
            <button type="submit" class="primary" id="confirm" aria-describedby={cart.renewal ? 'renewal' : undefined}>
              {t.confirm} · <span data-total="due">{formatMoney(cart.price.amountDue, cart.price.currencyCode, lang)}</span>
            </button>
            {cart.settings.backButton && webUrl(cart.settings.backButton.url) ? (
              <p>
                <a href={webUrl(cart.settings.backButton.url)!}>{cart.settings.backButton.label || t.back}</a>
              </p>
            ) : null}
          </form>
        </section>
      </div>
    </Layout>
  );
}
