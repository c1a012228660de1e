/** A calendar duration such as `14D`, `2W`, `1M`, `3M`, `1Y` or `1Y6M` (docs/decisions.md, Foundations). */
export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
}

const DURATION = /^(?:(\d{1,4})Y)?(?:(\d{1,4})M)?(?:(\d{1,4})W)?(?:(\d{1,4})D)?$/;

/** Parses `<n>Y<n>M<n>W<n>D` (each part optional, in that order, at least one non-zero); null when malformed. */
export function parseDuration(text: string): Duration | null {
  const m = DURATION.exec(text);
  if (!m || text === '') return null;
  const [years, months, weeks, days] = [m[1], m[2], m[3], m[4]].map((p) => Number(p ?? 0)) as [number, number, number, number];
  if (years + months + weeks + days === 0) return null;
  return { years, months, weeks, days };
}

/** Formats a duration back to its canonical text (`1Y6M`). */
export function formatDuration(d: Duration): string {
  return [d.years && `${d.years}Y`, d.months && `${d.months}M`, d.weeks && `${d.weeks}W`, d.days && `${d.days}D`].filter(Boolean).join('');
}
