// The passage index, in memory: which pages hold each fingerprint hash, and which hashes are
// boilerplate. A store can persist the same postings (hash → pages) and site counts.
//
// Boilerplate is found from the pages themselves, by document frequency: a hash on more than
// `maxPages` pages overall (SuperFastMatch ignores hashes in more than 100 documents), or on at
// least `maxSitePages` pages of one site (a newsletter box, a credit line, a "read more" promo),
// is left out of passages.
import type { PassageFingerprints } from '../fingerprint/passages';

export interface BoilerplateRule {
  maxPages: number;
  maxSitePages: number;
}

export const BOILERPLATE: BoilerplateRule = { maxPages: 100, maxSitePages: 20 };

export class PassageIndex<Id> {
  private readonly postings = new Map<number, Id[]>();
  private readonly perSite = new Map<string, Map<number, number>>();
  private readonly siteBoilerplate = new Set<number>();
  private readonly pages = new Map<Id, PassageFingerprints>();

  constructor(private readonly rule: BoilerplateRule = BOILERPLATE) {
    if (!(rule.maxPages >= 1 && rule.maxSitePages >= 2)) throw new RangeError(`boilerplate needs maxPages ≥ 1 and maxSitePages ≥ 2: got ${rule.maxPages} and ${rule.maxSitePages}`);
  }

  get size(): number {
    return this.pages.size;
  }

  /** Adds a page (once per id); `site` is its host or site name, null when unknown. */
  add(id: Id, fingerprints: PassageFingerprints, site: string | null = null): void {
    if (this.pages.has(id)) throw new Error(`page ${String(id)} is already in the passage index`);
    this.pages.set(id, fingerprints);
    const counts = site === null ? null : this.perSite.get(site) ?? this.perSite.set(site, new Map()).get(site)!;
    for (const h of new Set(fingerprints.hashes)) {
      const list = this.postings.get(h);
      if (list) list.push(id);
      else this.postings.set(h, [id]);
      if (counts) {
        const n = (counts.get(h) ?? 0) + 1;
        counts.set(h, n);
        if (n >= this.rule.maxSitePages) this.siteBoilerplate.add(h);
      }
    }
  }

  fingerprintsOf(id: Id): PassageFingerprints | undefined {
    return this.pages.get(id);
  }

  /** Pages holding the hash. */
  documentFrequency(hash: number): number {
    return this.postings.get(hash)?.length ?? 0;
  }

  isBoilerplate(hash: number): boolean {
    return this.documentFrequency(hash) > this.rule.maxPages || this.siteBoilerplate.has(hash);
  }

  /** Pages other than `except` sharing at least one hash that is not boilerplate with these fingerprints. */
  candidates(fingerprints: PassageFingerprints, except?: Id): Id[] {
    const out = new Set<Id>();
    for (const h of new Set(fingerprints.hashes)) {
      if (this.isBoilerplate(h)) continue;
      for (const id of this.postings.get(h) ?? []) if (id !== except) out.add(id);
    }
    return [...out];
  }
}
