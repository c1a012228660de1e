import { unstable_readConfig } from 'wrangler';
import { describe, expect, it } from 'vitest';
import type { Env } from '../../src/env';
import { mailProviderName } from '../../src/services/ports/mailer';
import { MAIL_JOBS_QUEUE } from '../../src/services/mail/delivery';

// The mail settings of every wrangler environment (docs/decisions.md, Mail): local development
// keeps mail in the outbox and has the /dev pages; staging and production send through Brevo,
// have a mail queue of their own and no /dev pages.

function readEnvironment(name: string | undefined) {
  const config = unstable_readConfig({ config: 'wrangler.toml', env: name }, { hideWarnings: true });
  return { vars: config.vars as unknown as Env, producers: config.queues.producers ?? [], consumers: config.queues.consumers ?? [] };
}

describe('the mail settings of wrangler.toml', () => {
  it('local development: the outbox, the /dev pages on', () => {
    const { vars, producers, consumers } = readEnvironment(undefined);
    expect(mailProviderName(vars)).toBe('outbox');
    expect(vars.ENVIRONMENT).toBe('development');
    expect(producers).toContainEqual(expect.objectContaining({ binding: 'MAIL_JOBS', queue: MAIL_JOBS_QUEUE }));
    expect(consumers.map((c: { queue: string }) => c.queue)).toContain(MAIL_JOBS_QUEUE);
  });

  it.each(['staging', 'production'])('%s: Brevo with a sender, its own mail queue, the /dev pages off, no key in the file', (name) => {
    const { vars, producers, consumers } = readEnvironment(name);
    expect(mailProviderName(vars)).toBe('brevo');
    expect(vars.ENVIRONMENT).toBe(name);
    expect(vars.MAIL_FROM).toMatch(/^[^\s@]+@[^\s@]+$/);
    expect(vars).not.toHaveProperty('BREVO_API_KEY');
    expect(producers).toContainEqual(expect.objectContaining({ binding: 'MAIL_JOBS', queue: `${MAIL_JOBS_QUEUE}-${name}` }));
    expect(consumers.map((c: { queue: string }) => c.queue)).toContain(`${MAIL_JOBS_QUEUE}-${name}`);
  });

  it('an unknown MAIL_PROVIDER is refused, not taken for the outbox', () => {
    expect(() => mailProviderName({ MAIL_PROVIDER: 'postmark' })).toThrow(/MAIL_PROVIDER must be one of outbox, brevo/);
    expect(mailProviderName({})).toBe('outbox');
  });
});
