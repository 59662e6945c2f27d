// "Sites that copy": per site, the pages recorded and how many are copies (near-duplicates of an
// original on another site, pages with at least half their words in passages shared with such a
// page, or rewrites and translations of one: lib/report/original.ts says which is the original);
// flagged sites first (lib/report/groups.ts's rule, stated on the page by `siteFlagRule`), sites
// whose copies credit their source marked as republishing with credit, each with its evidence one
// click away (each copy beside its original, and why) and a mark the user can set.
import type { SiteMark, SiteStanding } from '@/lib/report/groups';
import type { Evidence } from '@/lib/report/original';
import { evidenceVerb, readSiteEvidence, readSiteStandings } from '@/lib/ui/history-data';
import type { PageRecord } from '@/lib/store/schema';
import { $, errorText, l, markOnce, onPagesChanged, pageLink, send, settings, store } from './shared';
import { firstScreen } from './list';

const view = { rule: $('site-rule'), list: $('site-list') };

/** Why a copy's original is its original, in the evidence list (lib/report/original.ts). */
const EVIDENCE_WORDS: Record<Evidence, string> = { canonical: 'copyEvidence_canonical', credit: 'copyEvidence_credit', published: 'copyEvidence_published', seen: 'copyEvidence_seen' };

/** Rows drawn at first, and at each "Show more": a big history has thousands of sites with a copy. */
const SITES_PER_STEP = 100;

function seen(record: PageRecord): HTMLElement {
  const span = document.createElement('span');
  span.className = 'meta';
  const time = document.createElement('time');
  time.dateTime = new Date(record.firstSeen).toISOString();
  time.textContent = l.date(record.firstSeen);
  // the message places the date: "(example.com, first seen $2)"
  const [before = '', after = ''] = l.t('siteFirstSeen', record.site, '\u0001').split('\u0001');
  span.append(` ${before}`, time, after);
  return span;
}

async function showEvidence(site: string, cell: HTMLElement): Promise<void> {
  cell.textContent = l.t('loading');
  try {
    const evidence = await readSiteEvidence(await store(), site);
    if (evidence.length === 0) {
      cell.textContent = l.t('noCopiesOnSite', site);
      return;
    }
    const list = document.createElement('ul');
    list.className = 'evidence-list';
    for (const entry of evidence) {
      const { copy, original, share, rewrite, evidence: why } = entry;
      const item = document.createElement('li');
      item.dataset['copy'] = copy.url;
      item.dataset['original'] = original.url;
      item.dataset['evidence'] = why;
      if (share !== undefined) item.dataset['share'] = String(share);
      if (rewrite !== undefined) item.dataset['rewrite'] = rewrite.translated ? 'translation' : 'rewrite';
      const reason = document.createElement('span');
      reason.className = 'meta';
      reason.textContent = ` ${l.t(EVIDENCE_WORDS[why])}`;
      item.append(pageLink(copy), seen(copy), ` ${evidenceVerb(l, entry)} `, pageLink(original), seen(original), reason);
      list.append(item);
    }
    cell.replaceChildren(list);
  } catch (error) {
    cell.textContent = l.t('evidenceFailed', errorText(error));
  }
}

function row(standing: SiteStanding, index: number): HTMLTableRowElement[] {
  const tr = document.createElement('tr');
  tr.dataset['site'] = standing.site;
  if (standing.flagged) tr.dataset['flag'] = 'copies';
  else if (standing.creditsSources) tr.dataset['flag'] = 'credited';
  const name = document.createElement('th');
  name.scope = 'row';
  name.append(standing.site);
  if (standing.flagged || standing.creditsSources) {
    const tag = document.createElement('span');
    tag.className = standing.flagged ? 'flag-tag' : 'credit-tag';
    tag.textContent = standing.flagged ? (standing.mark === 'farm' ? l.t('tagContentFarm') : l.t('tagLikelyRepublisher')) : l.t('tagRepublishesWithCredit');
    name.append(' ', tag);
  }
  const share = standing.pages === 0 ? 0 : Math.round((100 * standing.copies) / standing.pages);
  const cells = [l.number(standing.pages), l.number(standing.copies), l.percent(share)].map((text) => {
    const td = document.createElement('td');
    td.className = 'num';
    td.textContent = text;
    return td;
  });
  const markCell = document.createElement('td');
  const select = document.createElement('select');
  select.setAttribute('aria-label', l.t('markSite', standing.site));
  for (const [value, label] of [['', l.t('markNone')], ['trusted', l.t('markTrusted')], ['farm', l.t('markFarm')]] as const) {
    const option = document.createElement('option');
    option.value = value;
    option.textContent = label;
    option.selected = (standing.mark ?? '') === value;
    select.append(option);
  }
  select.addEventListener('change', async () => {
    select.disabled = true;
    try {
      await send('site/mark', { site: standing.site, mark: select.value === '' ? null : (select.value as SiteMark) });
      await showSites();
    } catch (error) {
      view.rule.textContent = l.t('markFailed', standing.site, errorText(error));
      select.disabled = false;
    }
  });
  markCell.append(select);

  const evidenceRow = document.createElement('tr');
  evidenceRow.className = 'evidence';
  evidenceRow.id = `evidence-${index}`;
  evidenceRow.hidden = true;
  const evidenceCell = document.createElement('td');
  evidenceCell.colSpan = 6;
  evidenceRow.append(evidenceCell);

  const buttonCell = document.createElement('td');
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = standing.copies > 0 ? l.count('showCopies', standing.copies) : l.t('noCopies');
  button.disabled = standing.copies === 0;
  button.setAttribute('aria-expanded', 'false');
  button.setAttribute('aria-controls', evidenceRow.id);
  button.addEventListener('click', () => {
    const open = evidenceRow.hidden;
    evidenceRow.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? l.t('hideCopies') : l.count('showCopies', standing.copies);
    if (open) void showEvidence(standing.site, evidenceCell);
  });
  buttonCell.append(button);
  tr.append(name, ...cells, markCell, buttonCell);
  return [tr, evidenceRow];
}

export async function showSites(): Promise<void> {
  view.list.dataset['state'] = 'loading';
  try {
    const { siteMarks } = await settings();
    const standings = await readSiteStandings(await store(), new Map(Object.entries(siteMarks)));
    if (standings.length === 0) {
      const p = document.createElement('p');
      p.className = 'detail';
      p.textContent = l.t('noCopiesYet');
      view.list.replaceChildren(p);
    } else {
      const table = document.createElement('table');
      table.className = 'sites';
      const head = document.createElement('thead');
      const headRow = document.createElement('tr');
      for (const [text, className] of [[l.t('columnSite'), ''], [l.t('columnPages'), 'num'], [l.t('columnCopies'), 'num'], [l.t('columnShare'), 'num'], [l.t('columnMark'), ''], [l.t('columnEvidence'), 'visually-hidden']] as const) {
        const th = document.createElement('th');
        th.scope = 'col';
        if (className !== '') th.className = className;
        th.textContent = text;
        headRow.append(th);
      }
      head.append(headRow);
      const body = document.createElement('tbody');
      table.append(head, body);
      // Flagged sites come first; the rest are drawn a step at a time, each step a short task.
      const more = document.createElement('button');
      more.type = 'button';
      more.className = 'more-sites';
      let drawn = 0;
      const drawMore = (): void => {
        const next = Math.min(standings.length, drawn + SITES_PER_STEP);
        for (let i = drawn; i < next; i++) body.append(...row(standings[i]!, i));
        drawn = next;
        more.hidden = drawn >= standings.length;
        const left = standings.length - drawn;
        more.textContent = l.count('showMoreSites', Math.min(left, SITES_PER_STEP), l.number(left));
      };
      more.addEventListener('click', drawMore);
      drawMore();
      view.list.replaceChildren(table, more);
    }
    view.list.dataset['state'] = 'ready';
    markOnce('doppel:history-sites');
  } catch (error) {
    view.list.dataset['state'] = 'error';
    view.list.textContent = l.t('sitesFailed', errorText(error));
  }
}

export function setupSites(): void {
  view.rule.textContent = l.t('siteFlagRule');
  onPagesChanged(() => void showSites());
  void firstScreen.then(showSites); // after the list's first screen: at a million pages it reads far more
}
