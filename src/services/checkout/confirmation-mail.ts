// The order confirmation a completed cart sends to the buyer's e-mail, the one the completion page
// names. The cart does not know the buyer's language once the page is gone, so it says it in German
// and English, German first (the tenants are German sellers first).
import { formatDisplayAmount } from '../../billing/money';
import type { PublicCart } from '../../schemas/checkout';
import type { ServiceContext } from '../context';
import type { CartState } from './state';

export async function sendOrderConfirmation(ctx: ServiceContext, cart: CartState, completion: NonNullable<PublicCart['completion']>): Promise<void> {
  if (!completion.email) return;
  const seller = cart.seller?.name ?? ctx.tenant.name;
  const what = cart.planName ?? cart.items.map((i) => i.name).join(', ');
  const amount = formatDisplayAmount(completion.amount, completion.currencyCode);
  const number = completion.invoiceNumber;
  const de = [
    `Vielen Dank für Ihre Bestellung bei ${seller}: ${what}.`,
    number ? `Rechnung ${number} über ${amount}${completion.paid ? ' (bezahlt)' : ''}.` : `Heute fällig: ${amount}.`,
  ];
  const en = [
    `Thank you for your order with ${seller}: ${what}.`,
    number ? `Invoice ${number} for ${amount}${completion.paid ? ' (paid)' : ''}.` : `Due today: ${amount}.`,
  ];
  await ctx.mailer.send({
    tenantId: ctx.tenant.id,
    to: completion.email,
    subject: number ? `Bestellbestätigung / Order confirmation ${number}` : 'Bestellbestätigung / Order confirmation',
    body: [...de, '', '---', '', ...en].join('\n'),
    attachments: [],
  });
}
