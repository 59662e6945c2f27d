// Dates of the provenance set (bench/data/provenance-set.ts): the publishers' time zones (Central
// European and US Eastern with summer time, or UTC), the ways their pages write a date, and the
// seeded draws the set places its pages and dates with.

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
const MONTHS_EN = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTHS_ES = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

export type Zone = 'utc' | 'eu' | 'us';

/** The UTC day of month of the last (or `nth`, from 1) Sunday of a month. */
function sunday(year: number, month: number, nth: number | 'last'): number {
  if (nth === 'last') {
    const last = new Date(Date.UTC(year, month + 1, 0));
    return last.getUTCDate() - last.getUTCDay();
  }
  const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
  return 1 + ((7 - first) % 7) + (nth - 1) * 7;
}

/** Minutes east of UTC at `ms` in a zone: Central European or US Eastern time with summer time, or UTC. */
export function offsetAt(ms: number, zone: Zone): number {
  const year = new Date(ms).getUTCFullYear();
  if (zone === 'eu') {
    const start = Date.UTC(year, 2, sunday(year, 2, 'last'), 1);
    const end = Date.UTC(year, 9, sunday(year, 9, 'last'), 1);
    return ms >= start && ms < end ? 120 : 60;
  }
  if (zone === 'us') {
    const start = Date.UTC(year, 2, sunday(year, 2, 2), 7);
    const end = Date.UTC(year, 10, sunday(year, 10, 1), 6);
    return ms >= start && ms < end ? -240 : -300;
  }
  return 0;
}

export const two = (n: number): string => String(n).padStart(2, '0');

/** The local calendar parts of `ms` in `zone`. */
export function local(ms: number, zone: Zone): { y: number; m: number; d: number; h: number; min: number; s: number; offset: number } {
  const offset = offsetAt(ms, zone);
  const t = new Date(ms + offset * 60_000);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate(), h: t.getUTCHours(), min: t.getUTCMinutes(), s: t.getUTCSeconds(), offset };
}

/** ISO 8601 with the zone's offset: 2025-03-04T09:30:00+01:00 (or …Z with `z` in UTC). */
export function isoAt(ms: number, zone: Zone, z = false): string {
  const { y, m, d, h, min, s, offset } = local(ms, zone);
  const sign = offset < 0 ? '-' : '+';
  const off = z && offset === 0 ? 'Z' : `${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
  return `${y}-${two(m)}-${two(d)}T${two(h)}:${two(min)}:${two(s)}${off}`;
}

/** The local date, 2025-03-04. */
export function dateAt(ms: number, zone: Zone): string {
  const { y, m, d } = local(ms, zone);
  return `${y}-${two(m)}-${two(d)}`;
}

/** "March 4, 2025" or "4 de marzo de 2025". */
export function humanDate(ms: number, zone: Zone, lang: 'en' | 'es' = 'en'): string {
  const { y, m, d } = local(ms, zone);
  return lang === 'es' ? `${d} de ${MONTHS_ES[m - 1]} de ${y}` : `${MONTHS_EN[m - 1]} ${d}, ${y}`;
}

/** "9:30 a.m." */
export function humanTime(ms: number, zone: Zone): string {
  const { h, min } = local(ms, zone);
  return `${h % 12 === 0 ? 12 : h % 12}:${two(min)} ${h < 12 ? 'a.m.' : 'p.m.'}`;
}

// ---------- Seeded choice ----------

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export const pickOne = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
export const between = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** The date of a partner's or the blog's own article (an independent text). */
export function ownTime(random: () => number): number {
  return Date.UTC(2025, 0, 20) + between(random, 0, 290) * DAY + between(random, 7, 19) * HOUR + between(random, 0, 11) * 5 * 60_000;
}
