import type { Env } from '../../env';

/** Where the daily rates come from: the ECB in production, a fixture locally and in tests. */
export interface RateSource {
  name: string;
  fetchFeed(): Promise<string>;
}

export class EcbRateSource implements RateSource {
  name = 'ecb';
  async fetchFeed() {
    const res = await fetch('https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml', { signal: AbortSignal.timeout(10_000) });
    if (!res.ok) throw new Error(`ECB feed answered ${res.status}`);
    return res.text();
  }
}

/** A fixed feed (the ECB's format), for tests and local development without network. */
export class StaticRateSource implements RateSource {
  name = 'fixture';
  constructor(private readonly xml: string) {}
  async fetchFeed() {
    return this.xml;
  }
}

export function rateSource(env: Env): RateSource {
  return env.RATE_SOURCE === 'ecb' ? new EcbRateSource() : new StaticRateSource(DEFAULT_FIXTURE);
}


// A two-day feed in the ECB's format, so local development has rates without network.
const DEFAULT_FIXTURE = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time="2014-06-13"><Cube currency="USD" rate="1.3534"/><Cube currency="GBP" rate="0.79870"/><Cube currency="CHF" rate="1.2162"/><Cube currency="JPY" rate="138.08"/></Cube></Cube>
</gesmes:Envelope>`;
