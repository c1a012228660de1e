import type { OfferRow, RecipientRow } from './read';

// The e-mails of offers, in the offer's language (de, en): the invitation with the recipient's
// link, and the one-time code that confirms a signature. They go through the mail port.

const greeting = (lang: 'de' | 'en', r: Pick<RecipientRow, 'firstName' | 'lastName'>) => {
  const name = [r.firstName, r.lastName].filter(Boolean).join(' ');
  if (lang === 'de') return name ? `Guten Tag ${name},` : 'Guten Tag,';
  return name ? `Hello ${name},` : 'Hello,';
};

const title = (o: Pick<OfferRow, 'number' | 'name'>) => (o.name ? `${o.number} – ${o.name}` : o.number);

export function invitationMail(offer: Pick<OfferRow, 'number' | 'name' | 'locale'>, recipient: RecipientRow, seller: string, link: string) {
  const lang = offer.locale;
  if (lang === 'de') {
    const action = recipient.role === 'sign' ? 'Sie können es dort lesen und elektronisch unterschreiben.' : 'Sie können es dort lesen.';
    return {
      subject: `Angebot ${title(offer)} von ${seller}`,
      body: `${greeting(lang, recipient)}\n\n${seller} hat Ihnen das Angebot ${title(offer)} geschickt. ${action}\n\n${link}\n\nDer Link ist persönlich: Bitte leiten Sie ihn nicht weiter.`,
    };
  }
  const action = recipient.role === 'sign' ? 'You can read it there and sign it electronically.' : 'You can read it there.';
  return {
    subject: `Offer ${title(offer)} from ${seller}`,
    body: `${greeting(lang, recipient)}\n\n${seller} has sent you the offer ${title(offer)}. ${action}\n\n${link}\n\nThe link is personal: please do not forward it.`,
  };
}

export function signingCodeMail(offer: Pick<OfferRow, 'number' | 'name' | 'locale'>, recipient: RecipientRow, code: string, minutes: number) {
  if (offer.locale === 'de') {
    return {
      subject: `Ihr Code zum Unterschreiben von Angebot ${offer.number}`,
      body: `${greeting('de', recipient)}\n\nIhr Code zum Unterschreiben des Angebots ${title(offer)} lautet ${code}. Er gilt ${minutes} Minuten und nur einmal.\n\nWenn Sie das Angebot nicht unterschreiben wollten, ignorieren Sie diese E-Mail.`,
    };
  }
  return {
    subject: `Your code to sign offer ${offer.number}`,
    body: `${greeting('en', recipient)}\n\nYour code to sign the offer ${title(offer)} is ${code}. It is valid for ${minutes} minutes and can be used once.\n\nIf you did not mean to sign the offer, ignore this e-mail.`,
  };
}
