// The checks behind test/i18n.test.ts, as functions so that the test can show each one failing on
// a planted case: the message catalogues agree with each other, and the pages hard-code no English.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseHTML } from 'linkedom';
import ts from 'typescript';

/** A messages.json: key → { message }. */
export type Catalogue = Record<string, { message: string; description?: string }>;

/** "$1", "$2"… a message uses, sorted. */
export function placeholders(message: string): string[] {
  return [...new Set(message.match(/\$[1-9]/g) ?? [])].sort();
}

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/** The key a plural form belongs to (`pagesCount_one` → `pagesCount`), or the key itself. */
export function baseKey(key: string): string {
  return key.replace(PLURAL_SUFFIX, '');
}

/**
 * What is wrong with `catalogue` (the language `locale`) measured against the reference
 * catalogue (English): keys missing or extra, a counted message without exactly the plural
 * categories of its language, placeholders that differ, empty messages, invalid key names.
 * A counted message is compared by the placeholders of all its forms together (English
 * "This line was not imported:" has no $1, its `_other` form neither).
 */
export function catalogueProblems(reference: Catalogue, catalogue: Catalogue, locale: string): string[] {
  const problems: string[] = [];
  const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories as string[];
  const shape = (c: Catalogue): Map<string, { plural: boolean; forms: string[]; placeholders: string[] }> => {
    const keys = new Map<string, { plural: boolean; forms: string[]; placeholders: string[] }>();
    for (const [key, { message }] of Object.entries(c)) {
      const base = baseKey(key);
      const entry = keys.get(base) ?? { plural: key !== base, forms: [], placeholders: [] };
      if (entry.plural !== (key !== base)) problems.push(`${locale}: ${base} is both a counted message and a plain one`);
      if (key !== base) entry.forms.push(key.slice(base.length + 1));
      entry.placeholders = [...new Set([...entry.placeholders, ...placeholders(message)])].sort();
      keys.set(base, entry);
    }
    return keys;
  };
  for (const [key, value] of Object.entries(catalogue)) {
    if (!/^[A-Za-z0-9_@]+$/.test(key)) problems.push(`${locale}: ${key} is not a valid message name`);
    if (typeof value?.message !== 'string' || value.message.trim() === '') problems.push(`${locale}: ${key} has no message`);
  }
  const want = shape(reference);
  const have = shape(catalogue);
  for (const [base, expected] of want) {
    const found = have.get(base);
    if (found === undefined) {
      problems.push(`${locale}: ${base} is missing`);
      continue;
    }
    if (expected.plural !== found.plural) problems.push(`${locale}: ${base} is ${expected.plural ? '' : 'not '}counted in the reference`);
    if (found.plural && found.forms.sort().join() !== [...categories].sort().join()) {
      problems.push(`${locale}: ${base} has the forms ${found.forms.join(', ')}; ${locale} needs ${[...categories].sort().join(', ')}`);
    }
    if (found.placeholders.join() !== expected.placeholders.join()) {
      problems.push(`${locale}: ${base} uses ${found.placeholders.join(' ') || 'no placeholder'}, the reference ${expected.placeholders.join(' ') || 'none'}`);
    }
  }
  for (const base of have.keys()) if (!want.has(base)) problems.push(`${locale}: ${base} is not in the reference`);
  return problems;
}

/** Words a page may show untranslated: the product's name. */
export const UNTRANSLATED = new Set(['Doppel']);

/** An English word: two or more Latin letters. */
const WORD = /[A-Za-z]{2,}/;
/** Two English words in a row, as prose has them ("Forget this", "pages selected,"). */
const PROSE = /[A-Za-z]{2,}[’']?[a-z]*[,.:;!?…]? +[A-Za-z]{2,}/;
/** Attributes a reader sees or hears. */
const READ_ATTRIBUTES = ['placeholder', 'title', 'aria-label', 'alt', 'value'];

function untranslated(text: string): boolean {
  const words = text.match(/[A-Za-z]{2,}/g) ?? [];
  return words.some((word) => !UNTRANSLATED.has(word));
}

/** The English text an HTML page shows without a data-i18n key: text nodes and read attributes. */
export function englishInHtml(html: string): string[] {
  const { document } = parseHTML(html);
  const found: string[] = [];
  const walk = (node: Node): void => {
    for (const child of node.childNodes) {
      if (child.nodeType === 3) {
        const text = (child.textContent ?? '').trim();
        if (WORD.test(text) && untranslated(text)) found.push(text);
      } else if (child.nodeType === 1) {
        const element = child as Element;
        if (element.tagName === 'SCRIPT' || element.tagName === 'STYLE') continue;
        for (const name of READ_ATTRIBUTES) {
          const value = element.getAttribute(name);
          if (element.tagName === 'BUTTON' && name === 'value') continue; // a dialog's return value, not shown
          if (value !== null && WORD.test(value) && untranslated(value)) found.push(`${name}="${value}"`);
        }
        walk(element);
      }
    }
  };
  walk(document.documentElement ?? document);
  return found;
}

/**
 * Is `node` a thrown error or an error being made? With `errorDetails`, the words of an error are a
 * detail for the record, not the page's text: a page shows an error only inside a localised message
 * ("The export failed: $1"), which the i18n test checks of every page.
 */
function isErrorDetail(node: ts.Node, file: ts.SourceFile): boolean {
  if (ts.isThrowStatement(node)) return true;
  if (ts.isNewExpression(node)) return /(?:Error|InvalidMessage)$/.test(node.expression.getText(file));
  if (!ts.isCallExpression(node)) return false;
  // fail(why) and blockFault(block, why): the local helpers that throw a damaged record's error
  if (/^(?:fail|\w+Fault)$/.test(node.expression.getText(file))) return true;
  // super(message) in a subclass of Error
  if (node.expression.kind !== ts.SyntaxKind.SuperKeyword) return false;
  const owner = ts.findAncestor(node, ts.isClassLike);
  return owner?.heritageClauses?.some((clause) => clause.types.some((type) => /Error$/.test(type.expression.getText(file)))) ?? false;
}

/**
 * The English prose a TypeScript source spells out in its string literals and template texts:
 * at least two words in a row. Not counted: console output (for developers), module names, and
 * property names; with `errorDetails`, the words of errors.
 */
export function englishInTs(source: string, fileName = 'page.ts', { errorDetails = false } = {}): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const forDevelopers = (node: ts.Node): boolean => {
    for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
      if (ts.isImportDeclaration(at) || ts.isExportDeclaration(at)) return true;
      if (ts.isCallExpression(at) && /^console\./.test(at.expression.getText(file))) return true;
      if (errorDetails && isErrorDetail(at, file)) return true;
    }
    return false;
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const text = node.text;
      if (PROSE.test(text) && untranslated(text) && !forDevelopers(node)) found.push(text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...new Set(found)];
}

/**
 * Every module the entry modules load, themselves included: what their imports and exports name
 * (`@/` is the project's root), followed from module to module. Type-only imports carry no words
 * and are not followed.
 */
export function importClosure(root: string, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const resolveFrom = (from: string, spec: string): string | null => {
    const base = spec.startsWith('@/') ? join(root, spec.slice(2)) : spec.startsWith('.') ? resolve(dirname(from), spec) : null;
    if (base === null) return null; // a package
    if (/\.(?:css|svg|png|json|html)$/.test(base) && existsSync(base)) return null; // an asset: no strings of code
    const found = [base, `${base}.ts`, join(base, 'index.ts')].find((candidate) => candidate.endsWith('.ts') && existsSync(candidate));
    if (found === undefined) throw new Error(`${from}: cannot find the module ${spec}`);
    return found;
  };
  const visit = (path: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const specs: string[] = [];
    const walk = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly && ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text);
      else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) specs.push(node.moduleSpecifier.text);
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]!)) specs.push(node.arguments[0].text);
      ts.forEachChild(node, walk);
    };
    walk(file);
    for (const spec of specs) {
      const next = resolveFrom(path, spec);
      if (next !== null) visit(next);
    }
  };
  for (const entry of entries) visit(entry);
  return [...seen].sort();
}

/**
 * The calls of errorText (an error's own words, often the worker's English) that a page source does
 * not place inside a localised message, l.t(…) or l.count(…).
 */
export function unframedErrorTexts(source: string): string[] {
  const file = ts.createSourceFile('page.ts', source, ts.ScriptTarget.Latest, true);
  const bare: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.getText(file) === 'errorText') {
      const parent = node.parent;
      const framed = ts.isCallExpression(parent) && /^l\.(?:t|count)$/.test(parent.expression.getText(file)) && parent.arguments.includes(node);
      if (!framed) bare.push(node.getText(file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return bare;
}
