// Keeping the groups of near-duplicates (lib/report/groups.ts) with each change, in its
// transaction: a visited page joins the groups of its near-duplicates (merging them) or leaves its
// old one, and forgetting regroups what is left (a group may split, or lose its root).
import { type GroupMember, chooseGroupId, componentsOf, groupFieldsOf } from '../report/groups';
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

/** Puts `record` (a new or changed page) and regroups it with its near-duplicates `near` and its old group. */
export async function regroupAround(rows: PageRows, tally: Tally, record: PageRecord, old: PageRecord | undefined, near: readonly NearDuplicate[], k: number): Promise<void> {
  const self = memberOf(record);
  if (self === null) {
    tally.change(old, record);
    await rows.put(record); // unreadable: in no group
    if (old !== undefined) await regroupAfterRemoval(rows, tally, [old], k);
    return;
  }
  const groupIds = near.map((m) => m.record.group).filter((g): g is string => g !== undefined);
  if (old?.group !== undefined) groupIds.push(old.group);
  const byUrl = new Map<string, Node>();
  for (const other of [...(await membersOf(rows, groupIds)), ...near.map((m) => m.record)]) {
    if (other.url === record.url) continue;
    const member = memberOf(other);
    if (member !== null) byUrl.set(other.url, member);
  }
  const nodes: Node[] = [self, ...byUrl.values()];
  const components = nodes.length <= MAX_PAIRWISE ? componentsOf(nodes, k) : [nodes]; // too many to compare: merged
  await writeComponents(rows, tally, components, { url: record.url, hint: old?.group, before: old });
}

/** After `gone` were deleted: regroups the rest of their groups (split, re-rooted or dissolved). */
export async function regroupAfterRemoval(rows: PageRows, tally: Tally, gone: readonly PageRecord[], k: number): Promise<void> {
  const goneUrls = new Set(gone.map((record) => record.url));
  const ids = new Set(gone.map((record) => record.group).filter((g): g is string => g !== undefined));
  for (const id of ids) {
    const rest = (await membersOf(rows, [id])).filter((record) => !goneUrls.has(record.url));
    const members = rest.map(memberOf).filter((m): m is Node => m !== null);
    if (members.length === 0) continue;
    await writeComponents(rows, tally, members.length <= MAX_PAIRWISE ? componentsOf(members, k) : [members], null);
  }
}
