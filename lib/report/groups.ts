// Groups of near-duplicate pages, and which pages are copies: the pure rules behind the history
// page's entries and its "sites that copy" (lib/organise/regroup.ts keeps them in IndexedDB).
//
// - Two pages are near-duplicates when their simhashes are within k bits and their check
//   fingerprints confirm it (lib/fingerprint/features.ts; a page without a check is taken on its simhash).
// - Two pages are also linked when one is a rewrite or translation of the other, as the rewrite
//   detector decides (lib/index/rewrite-index.ts): a rewrite folds into its original's group. A
//   hash of rare words on more than REWRITE_MAX_PAGES pages is left out of the verdict: counted
//   over the whole store by a lookup (a visit, the whole-store regroup), over the group's pages
//   when a group is recomputed (rewriteLinksAmong); the two differ only for such hashes.
// - A group is a connected component of those links (union-find): pages linked by a chain of
//   near-duplicate or rewrite pairs. Its root is its original by the pages' own evidence
//   (lib/report/original.ts: what they name as their source, when they say they were published,
//   and last which was seen first).
// - A page is a copy when the root of its group is on another site: a near-duplicate or rewrite
//   (or one of a chain of them) of a page the rule calls the original. A site republishing its
//   own article is not copying. A rewrite copy is also kept as contentCopy (lib/report/copies.ts):
//   isCopy counts such a page once.
// - A site is flagged as a likely republisher when more than half of its recorded pages are
//   copies that do not credit their source (the history page states the rule: `siteFlagRule` in
//   public/_locales), unless the user marked it trusted; a site marked as a content farm is always
//   flagged. A site whose copies credit their source (lib/report/copies.ts isCreditedCopy) and is
//   not flagged republishes with credit.
import { confirmsNearDuplicate } from '../fingerprint/features';
import { type Fingerprint, hammingDistance } from '../fingerprint/bits';
import { UnionFind } from './clusters';
import { hash64 } from '../fingerprint/hash';
import { REWRITE_RULE, type RewriteFingerprints } from '../fingerprint/rewrites';
import { findRewritePairs } from '../index/rewrite-index';
import { REWRITE_MAX_PAGES } from '../index/rewrite-store';
import { type Claims, originalAmong } from './original';

export { seenBefore } from './original';

export interface GroupMember extends Claims {
  url: string;
  site: string;
  simhash: Fingerprint;
  /** null: unknown (a page imported without one), which confirms any simhash match. */
  check: Fingerprint | null;
  firstSeen: number;
}

/** True if a and b are near-duplicates within k bits (the rule PageStore.nearDuplicates applies). */
export function areNearDuplicates(a: GroupMember, b: GroupMember, k: number): boolean {
  return hammingDistance(a.simhash, b.simhash) <= k && checksConfirm(a.check, b.check);
}

/** Whether two pages' check fingerprints confirm a simhash match (an unknown check, null, confirms any). */
export function checksConfirm(a: Fingerprint | null, b: Fingerprint | null): boolean {
  return a === null || b === null || confirmsNearDuplicate(a, b);
}

/** A group's root: its original by the pages' own evidence (lib/report/original.ts originalAmong). */
export function rootOf<T extends Claims>(members: readonly T[]): T {
  return originalAmong(members);
}

/**
 * The connected components of `members` under areNearDuplicates(·, ·, k) and the `links` (pairs of
 * indices into `members`: rewrites), each in the input order, components ordered by their first
 * member. Pairwise: for the few pages one visit or one forgetting touches, not for a whole store
 * (lib/organise/regroup.ts regroups a store through tables).
 */
export function componentsOf<T extends GroupMember>(members: readonly T[], k: number, links: Iterable<readonly [number, number]> = []): T[][] {
  const sets = new UnionFind(members.length);
  for (const [i, j] of links) sets.union(i, j);
  for (let i = 0; i < members.length; i++) {
    for (let j = i + 1; j < members.length; j++) {
      if (!sets.connected(i, j) && areNearDuplicates(members[i]!, members[j]!, k)) sets.union(i, j);
    }
  }
  const byRoot = new Map<number, T[]>();
  members.forEach((member, i) => {
    const root = sets.find(i);
    const component = byRoot.get(root);
    if (component === undefined) byRoot.set(root, [member]);
    else component.push(member);
  });
  return [...byRoot.values()];
}

/**
 * The rewrite links among pages (pairs of indices into `fingerprints`; a page without
 * fingerprints has none): every pair the detector's rule links (findRewritePairs), a hash on more
 * than REWRITE_MAX_PAGES of these pages left out. For the pages of the groups one change touches.
 */
export function rewriteLinksAmong(fingerprints: readonly (RewriteFingerprints | undefined)[]): [number, number][] {
  const at = fingerprints.flatMap((f, i) => (f === undefined ? [] : [i]));
  if (at.length < 2) return [];
  return findRewritePairs(at.map((i) => fingerprints[i]!), REWRITE_RULE, REWRITE_MAX_PAGES).map(({ a, b }) => [at[a]!, at[b]!]);
}

/** A new group's id: 16 hex digits of a 64-bit hash of the URL of the page that started it. */
export function newGroupId(url: string): string {
  const { hi, lo } = hash64(url);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/**
 * The id of a group of two or more pages, as it is (re)computed: the id most of its members carry
 * (`hints`) that no group chosen before it took (fewer records rewritten, stable links), else a new
 * one from `seed` (salted until free). The chosen id is added to `claimed`. Callers choose for
 * the largest groups first, so a part split off a group gets the new id.
 */
export function chooseGroupId(hints: Iterable<string | undefined>, seed: string, claimed: Set<string>): string {
  const counts = new Map<string, number>();
  for (const hint of hints) if (hint !== undefined && !claimed.has(hint)) counts.set(hint, (counts.get(hint) ?? 0) + 1);
  let id: string | undefined;
  for (const [candidate, n] of counts) if (id === undefined || n > counts.get(id)!) id = candidate;
  for (let salt = 0; id === undefined || claimed.has(id); salt++) id = newGroupId(salt === 0 ? seed : `${seed}#${salt}`);
  claimed.add(id);
  return id;
}

/** What a page stores about its group (lib/store/schema.ts): both absent for a page in no group. */
export interface GroupFields {
  /** The group's id; absent when the page has no near-duplicate and no rewrite link. */
  group?: string;
  /** The page's own site, present only when the page is a copy (its group's root is on another site). */
  copySite?: string;
}

/**
 * The group fields of every member of one component. `id` is the component's group id (ignored
 * for a component of one page, which is in no group).
 */
export function groupFieldsOf<T extends GroupMember>(component: readonly T[], id: string): Map<string, GroupFields> {
  const out = new Map<string, GroupFields>();
  if (component.length === 1) {
    out.set(component[0]!.url, {});
    return out;
  }
  const root = rootOf(component);
  for (const member of component) {
    out.set(member.url, member.site === root.site ? { group: id } : { group: id, copySite: member.site });
  }
  return out;
}

/**
 * What a whole-store regroup writes for its groups: `components` are the connected components of
 * two or more pages (the pages linked by near-duplicates and rewrites), in the order of their
 * first page, each member with the group fields it has now. Returns each member whose group
 * fields change, with the fields it should have. The largest groups choose their ids first, as
 * lib/store/page-groups.ts writeComponents does. (A page in no component that has group fields
 * gets {}: the regroup writes those.)
 */
export function changedGroupFields<T extends GroupMember & GroupFields>(components: readonly (readonly T[])[]): Map<T, GroupFields> {
  const claimed = new Set<string>();
  const changes = new Map<T, GroupFields>();
  for (const component of [...components].sort((x, y) => y.length - x.length)) {
    const fields = groupFieldsOf(component, chooseGroupId(component.map((member) => member.group), rootOf(component).url, claimed));
    for (const member of component) {
      const next = fields.get(member.url)!;
      if (next.group !== member.group || next.copySite !== member.copySite) changes.set(member, next);
    }
  }
  return changes;
}

export type SiteMark = 'trusted' | 'farm';

export interface SiteStanding {
  site: string;
  /** Pages recorded from the site. */
  pages: number;
  /** Of those, copies of an original on another site. */
  copies: number;
  /** Of those, copies that credit their source (lib/report/copies.ts isCreditedCopy). */
  credited: number;
  /** The user's mark, if any. */
  mark: SiteMark | null;
  /** Shown as a likely republisher or content farm. */
  flagged: boolean;
  /** Not flagged, and some of its copies credit their source: it republishes with credit. */
  creditsSources: boolean;
}

/**
 * The standing of a site: flagged when its copies that do not credit their source are more than
 * half its pages, unless trusted; always if marked a farm. A site not flagged with a copy that
 * credits its source republishes with credit.
 */
export function siteStanding(site: string, pages: number, copies: number, credited: number, mark: SiteMark | null): SiteStanding {
  const uncredited = copies - credited;
  const flagged = mark === 'farm' || (mark !== 'trusted' && uncredited > 0 && uncredited * 2 > pages);
  return { site, pages, copies, credited, mark, flagged, creditsSources: !flagged && credited > 0 };
}
