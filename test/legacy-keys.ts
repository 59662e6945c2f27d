// The table keys as versions 1–5 stored them in each record (`keys`, a multiEntry index): one
// `${table}:${fixed-width hex}` string per table. Version 6 keeps the tables in sorted runs instead
// (lib/store/table-trees.ts); the upgrade tests write the old layouts with these.
import type { Fingerprint } from '../lib/fingerprint';
import { type TableDesign, tableKeyHex, tableKeys } from '../lib/tables';

export function legacyRecordKeys(design: TableDesign, fp: Fingerprint): string[] {
  return tableKeys(design, fp).map((key, t) => `${t}:${tableKeyHex(design, t, key)}`);
}
