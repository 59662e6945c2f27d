// Keeping the groups of near-duplicates and rewrites (lib/report/groups.ts) with each change, in
// its transaction: a visited page joins the groups of its near-duplicates and of the pages it
// rewrites or that rewrite it (merging them) or leaves its old one, and forgetting regroups what
// is left (a group may split, or lose its root). The rewrite links among the pages regrouped are
// judged again from their kept fingerprints, so that a group joined through a rewrite keeps it.
import type { RewriteRows } from '../index/rewrite-store';
import { type GroupMember, chooseGroupId, componentsOf, groupFieldsOf, rewriteLinksAmong } from '../report/groups';
import type { PageRows } from '../rows/page-rows';
import { type NearDuplicate, memberOf, storedRecord } from './records';
import type { PageRecord } from './schema';
import type { Tally } from './tally';

/**
 * Above this many pages in the groups one change touches, the pairwise regroup (O(n²)) is skipped:
 * the groups are merged (a visit) or kept whole (a removal), and the next full regroup splits them.
 */
export const MAX_PAIRWISE = 400;

/** Members of the groups `ids`, by group id. */
async function membersOf(rows: PageRows, ids: Iterable<string>): Promise<PageRecord[]> {
  return (await Promise.all([...new Set(ids)].map((id) => rows.where('group', id)))).flat();
}

type Node = GroupMember & { record: PageRecord };

/** What regrouping reads and writes of a write (PageStore.write's Writing). */
export type GroupUpkeep = { rows: PageRows; tally: Tally; rewrites: RewriteRows };

/** The components of `nodes` under near-duplicates within k, their kept rewrite fingerprints' links and `links` (indices into `nodes`); past MAX_PAIRWISE nodes, one. */
async function componentsAmong(rewrites: RewriteRows, nodes: readonly Node[], k: number, links: readonly [number, number][] = []): Promise<Node[][]> {
  if (nodes.length > MAX_PAIRWISE) return [[...nodes]];
  // damaged fingerprints link nothing: a visit or forgetting is not refused for them
  const fingerprints = await Promise.all(nodes.map((node) => rewrites.fingerprintsOf(node.record.id).catch(() => undefined)));
  return componentsOf(nodes, k, [...rewriteLinksAmong(fingerprints), ...links]);
}

/**
 * Writes the group fields of `components` (lists of members; their records as stored, except the
 * record at `always`, which is new and written whatever its fields): each record whose fields
 * change is put once. Every component of two or more pages gets a distinct id: the largest keeps
 * the id most of its members have (fewer records rewritten, stable links), a part split off a
 * group gets a new one.
 */
async function writeComponents(
  rows: PageRows,
  tally: Tally,
  components: readonly Node[][],
  always: { url: string; hint: string | undefined; before: PageRecord | undefined } | null,
): Promise<void> {
  const claimed = new Set<string>();
  const puts: Promise<unknown>[] = [];
  const hintOf = (node: Node): string | undefined => (always !== null && node.url === always.url ? always.hint : node.record.group);
  for (const component of [...components].sort((x, y) => y.length - x.length)) {
    const id = component.length > 1 ? chooseGroupId(component.map(hintOf), component[0]!.url, claimed) : undefined;
    const fields = groupFieldsOf(component, id ?? '');
    for (const { record } of component) {
      const next = fields.get(record.url)!;
      if ((always === null || record.url !== always.url) && next.group === record.group && next.copySite === record.copySite) continue;
      // the new record itself is updated in place: record() returns it as written
      const written: PageRecord = always !== null && record.url === always.url ? record : storedRecord(record);
      delete written.group;
      delete written.copySite;
      if (next.group !== undefined) written.group = next.group;
      if (next.copySite !== undefined) written.copySite = next.copySite;
      tally.change(always !== null && record.url === always.url ? always.before : record, written);
      puts.push(rows.put(written));
    }
  }
  await Promise.all(puts);
}

/** Puts `record` (a new or changed page) and regroups it with its near-duplicates `near`, the pages it rewrites or that rewrite it (`rewrites`, its lookup's), and its old group. */
export async function regroupAround(upkeep: GroupUpkeep, record: PageRecord, old: PageRecord | undefined, near: readonly NearDuplicate[], rewrites: readonly PageRecord[], k: number): Promise<void> {
  const { rows, tally } = upkeep;
  const self = memberOf(record);
  if (self === null) {
    tally.change(old, record);
    await rows.put(record); // unreadable: in no group
    if (old !== undefined) await regroupAfterRemoval(upkeep, [old], k);
    return;
  }
  const linked = [...near.map((m) => m.record), ...rewrites];
  const groupIds = linked.map((other) => other.group).filter((g): g is string => g !== undefined);
  if (old?.group !== undefined) groupIds.push(old.group);
  const byUrl = new Map<string, Node>();
  for (const other of [...(await membersOf(rows, groupIds)), ...linked]) {
    if (other.url === record.url) continue;
    const member = memberOf(other);
    if (member !== null) byUrl.set(other.url, member);
  }
  const nodes: Node[] = [self, ...byUrl.values()];
  const rewriteUrls = new Set(rewrites.map((other) => other.url));
  const rewriteLinks = nodes.flatMap((node, i): [number, number][] => (rewriteUrls.has(node.url) ? [[0, i]] : [])); // as the lookup judged them
  await writeComponents(rows, tally, await componentsAmong(upkeep.rewrites, nodes, k, rewriteLinks), { url: record.url, hint: old?.group, before: old }); // past MAX_PAIRWISE: merged
}

/** After `gone` were deleted: regroups the rest of their groups (split, re-rooted or dissolved). */
export async function regroupAfterRemoval(upkeep: GroupUpkeep, gone: readonly PageRecord[], k: number): Promise<void> {
  const { rows, tally } = upkeep;
  const goneUrls = new Set(gone.map((record) => record.url));
  const ids = new Set(gone.map((record) => record.group).filter((g): g is string => g !== undefined));
  for (const id of ids) {
    const rest = (await membersOf(rows, [id])).filter((record) => !goneUrls.has(record.url));
    const members = rest.map(memberOf).filter((m): m is Node => m !== null);
    if (members.length === 0) continue;
    await writeComponents(rows, tally, await componentsAmong(upkeep.rewrites, members, k), null); // past MAX_PAIRWISE: kept whole
  }
}
