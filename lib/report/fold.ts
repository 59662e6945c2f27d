// One entry per set of shared passages: when this page shares exactly the same passages with
// several pages read before (one article and its copies on other sites), the popup lists them as
// one entry, led by the page seen first, instead of one entry a copy whose marks would all cover
// the same words.

/** What folding needs of a match: this page's hashes inside the shared passages, and the other page's first visit and address. */
export interface Foldable {
  hashes: readonly number[];
  firstSeen: number;
  url: string;
}

const seenFirst = (a: Foldable, b: Foldable): number => a.firstSeen - b.firstSeen || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0);

/**
 * The matches, those with the same hashes (in order) made one: at the place of the group's first
 * match (the list's order is kept), led by its page seen first (then by URL), the others in
 * `alsoIn` in the same order. A match without hashes is never folded.
 */
export function foldSamePassages<T extends Foldable>(matches: readonly T[]): { lead: T; alsoIn: T[] }[] {
  const groups = new Map<string, T[]>();
  const order: T[][] = [];
  matches.forEach((match, i) => {
    const key = match.hashes.length === 0 ? `#${i}` : match.hashes.join(',');
    let group = groups.get(key);
    if (group === undefined) {
      groups.set(key, (group = []));
      order.push(group);
    }
    group.push(match);
  });
  return order.map((group) => {
    const [lead, ...alsoIn] = [...group].sort(seenFirst);
    return { lead: lead!, alsoIn };
  });
}
