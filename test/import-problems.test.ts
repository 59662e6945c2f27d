// The problems of an imported line as the history page words them, in each language: the codes
// come from lib/protocol/ndjson.ts parsePageLine, the words from the catalogues.
import { describe, expect, it } from 'vitest';
import { parsePageLine } from '../lib/protocol/ndjson';
import type { LineProblem } from '../lib/protocol/writer-protocol';
import { problemText, problemsText } from '../lib/ui/import-problems';
import { type LocaleFolder, localizerFor } from './support/catalogues';

const cases: [LineProblem, Record<LocaleFolder, string>][] = [
  [{ code: 'not-json' }, { en: 'not valid JSON', es: 'no es JSON válido', zh_CN: '不是有效的 JSON' }],
  [
    { code: 'not-object' },
    { en: 'a page must be a JSON object, {"url":…,"title":…,"simhash":…}', es: 'una página debe ser un objeto JSON, {"url":…,"title":…,"simhash":…}', zh_CN: '页面必须是 JSON 对象，例如 {"url":…,"title":…,"simhash":…}' },
  ],
  [
    { code: 'second-header' },
    {
      en: 'a second header: only the first line may be a header (were two exports joined?)',
      es: 'una segunda cabecera: solo la primera línea puede ser cabecera (¿se unieron dos exportaciones?)',
      zh_CN: '出现第二个标头：只有第一行可以是标头（是否合并了两个导出文件？）',
    },
  ],
  [{ code: 'missing', field: 'title' }, { en: 'title is missing', es: 'falta title', zh_CN: '缺少 title' }],
  [{ code: 'not-string', field: 'url' }, { en: 'url must be a string', es: 'url debe ser una cadena de texto', zh_CN: 'url 必须是字符串' }],
  [{ code: 'too-long', field: 'url', max: 8192 }, { en: 'url is longer than 8,192 characters', es: 'url tiene más de 8192 caracteres', zh_CN: 'url 超过 8,192 个字符' }],
  [{ code: 'not-http', field: 'url' }, { en: 'url must be an http or https URL', es: 'url debe ser una URL http o https', zh_CN: 'url 必须是 http 或 https 网址' }],
  [{ code: 'not-hex', field: 'simhash' }, { en: 'simhash must be 16 hexadecimal digits', es: 'simhash debe tener 16 dígitos hexadecimales', zh_CN: 'simhash 必须是 16 位十六进制数字' }],
  [
    { code: 'not-date', field: 'lastSeen' },
    {
      en: 'lastSeen must be an ISO 8601 date and time with a time zone, like 2024-05-01T12:00:00Z',
      es: 'lastSeen debe ser una fecha y hora ISO 8601 con zona horaria, como 2024-05-01T12:00:00Z',
      zh_CN: 'lastSeen 必须是带时区的 ISO 8601 日期时间，例如 2024-05-01T12:00:00Z',
    },
  ],
  [{ code: 'dates-order' }, { en: 'firstSeen is later than lastSeen', es: 'firstSeen es posterior a lastSeen', zh_CN: 'firstSeen 晚于 lastSeen' }],
  [{ code: 'not-visits' }, { en: 'visits must be a positive whole number', es: 'visits debe ser un número entero positivo', zh_CN: 'visits 必须是正整数' }],
  [
    { code: 'unreadable', field: 'passages' },
    { en: 'passages cannot be read (the passage fingerprints are damaged)', es: 'no se puede leer passages (las huellas de los pasajes están dañadas)', zh_CN: '无法读取 passages（段落指纹已损坏）' },
  ],
];

describe('problemText', () => {
  it('words every problem code', () => {
    const codes = new Set(cases.map(([problem]) => problem.code));
    expect(codes.size).toBe(12);
  });

  it.each(cases.flatMap(([problem, words]) => (Object.keys(words) as LocaleFolder[]).map((folder) => [folder, problem, words[folder]] as const)))('%s: %j', (folder, problem, text) => {
    expect(problemText(localizerFor(folder), problem)).toBe(text);
  });
});

describe('problemsText', () => {
  const line = JSON.stringify({ url: 'mailto:a@b.example', title: 'T', simhash: 'xyz', visits: 0 });
  const parsed = parsePageLine(line, 3, Date.UTC(2026, 0, 1));
  const problems = parsed.ok ? [] : parsed.problems;

  it.each<[LocaleFolder, string]>([
    ['en', 'url must be an http or https URL; simhash must be 16 hexadecimal digits; visits must be a positive whole number'],
    ['es', 'url debe ser una URL http o https; simhash debe tener 16 dígitos hexadecimales; visits debe ser un número entero positivo'],
    ['zh_CN', 'url 必须是 http 或 https 网址；simhash 必须是 16 位十六进制数字；visits 必须是正整数'],
  ])('a line with three problems, in %s', (folder, text) => {
    expect(problems).toHaveLength(3);
    expect(problemsText(localizerFor(folder), problems)).toBe(text);
  });
});
