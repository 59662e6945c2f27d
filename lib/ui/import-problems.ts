// What is wrong with a line of an imported file, in the reader's language: the history page lists
// each rejected line with its problems (lib/protocol/ndjson.ts finds them, as codes).
import type { LineProblem } from '../protocol/writer-protocol';
import type { Localizer } from './i18n';

/** The example of a date an export holds (its own form: lib/protocol/ndjson.ts). */
export const EXAMPLE_DATE = '2024-05-01T12:00:00Z';

/** One problem, worded; field names stay as the file spells them. */
export function problemText(l: Localizer, p: LineProblem): string {
  switch (p.code) {
    case 'not-json':
      return l.t('problemNotJson');
    case 'not-object':
      return l.t('problemNotObject');
    case 'second-header':
      return l.t('problemSecondHeader');
    case 'missing':
      return l.t('problemMissing', p.field);
    case 'not-string':
      return l.t('problemNotString', p.field);
    case 'too-long':
      return l.t('problemTooLong', p.field, p.max);
    case 'not-http':
      return l.t('problemNotHttp', p.field);
    case 'not-hex':
      return l.t('problemNotHex', p.field);
    case 'not-date':
      return l.t('problemNotDate', p.field, EXAMPLE_DATE);
    case 'dates-order':
      return l.t('problemDatesOrder');
    case 'not-visits':
      return l.t('problemNotVisits');
    case 'unreadable':
      return l.t('problemUnreadable', p.field);
  }
}

/** A rejected line's problems, worded and joined as the language joins clauses. */
export function problemsText(l: Localizer, problems: readonly LineProblem[]): string {
  return problems.map((p) => problemText(l, p)).join(l.t('problemSeparator'));
}
