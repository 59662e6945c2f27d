// The message catalogues (public/_locales/) as tests read them: a catalogue, browser.i18n.getMessage
// over it, and a Localizer in one of the three languages.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type GetMessage, type Localizer, createLocalizer } from '../../lib/ui/i18n';
import type { Catalogue } from './i18n-check';

const ROOT = new URL('../..', import.meta.url).pathname;

/** The catalogue folders and the BCP 47 tag of each. */
export const LOCALES = { en: 'en', es: 'es', zh_CN: 'zh-CN' } as const;
export type LocaleFolder = keyof typeof LOCALES;

export const catalogue = (folder: string): Catalogue => JSON.parse(readFileSync(join(ROOT, 'public/_locales', folder, 'messages.json'), 'utf8')) as Catalogue;

/** browser.i18n.getMessage over a catalogue, as Chrome and Firefox do it: $1…$9 filled, '' for a missing key. */
export function getMessageOf(messages: Catalogue): GetMessage {
  return (key, substitutions) => {
    const values = substitutions === undefined ? [] : Array.isArray(substitutions) ? substitutions : [substitutions];
    const message = messages[key]?.message;
    return message === undefined ? '' : message.replace(/\$([1-9]|\$)/g, (_, n: string) => (n === '$' ? '$' : (values[Number(n) - 1] ?? '')));
  };
}

/** The Localizer of a catalogue folder, with the UI in `ui` (the folder's own language by default). */
export function localizerFor(folder: LocaleFolder, ui: string = LOCALES[folder]): Localizer {
  return createLocalizer(getMessageOf(catalogue(folder)), ui);
}
