// Groups of near-duplicates: the connected components of the "within k bits" graph, by
// union-find. Near-duplication is not transitive (a~b and b~c does not make a~c close), so a
// cluster is "linked by a chain of near-duplicate pairs", which is what a reader wants to see.

/** Disjoint sets over 0..n-1, with path compression and union by size. */
export class UnionFind {
  private readonly parent: Int32Array;
  private readonly size: Int32Array;

  constructor(readonly n: number) {
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer: got ${n}`);
    this.parent = new Int32Array(n);
    this.size = new Int32Array(n).fill(1);
    for (let i = 0; i < n; i++) this.parent[i] = i;
  }

  /** Bytes held in typed arrays. */
  heldBytes(): number {
    return this.parent.byteLength + this.size.byteLength;
  }

  /** The representative of x's set. */
  find(x: number): number {
    this.check(x);
    let root = x;
    while (this.parent[root]! !== root) root = this.parent[root]!;
    // Path compression: point every node on the way at the root.
    while (this.parent[x]! !== root) {
      const next = this.parent[x]!;
      this.parent[x] = root;
      x = next;
    }
    return root;
  }

  /** Merges the sets of a and b; returns false when they already were one set. */
  union(a: number, b: number): boolean {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return false;
    if (this.size[ra]! < this.size[rb]!) [ra, rb] = [rb, ra];
    this.parent[rb] = ra;
    this.size[ra] = this.size[ra]! + this.size[rb]!;
    return true;
  }

  connected(a: number, b: number): boolean {
    return this.find(a) === this.find(b);
  }

  /** Number of elements in x's set. */
  sizeOf(x: number): number {
    return this.size[this.find(x)]!;
  }

  private check(x: number): void {
    if (!Number.isInteger(x) || x < 0 || x >= this.n) throw new RangeError(`index out of range 0..${this.n - 1}: ${x}`);
  }
}

/**
 * The clusters of n items linked by pairs: arrays of member indices, each sorted ascending,
 * clusters ordered by their first (smallest) member. Items in no pair (singletons) are left out.
 */
export function clustersOf(n: number, pairs: Iterable<readonly [number, number]>): number[][] {
  const uf = new UnionFind(n);
  for (const [a, b] of pairs) uf.union(a, b);
  const byRoot = new Map<number, number[]>();
  // Walking the indices in order makes each member list sorted, and the map's insertion order
  // (first member seen) the order of first members.
  for (let i = 0; i < n; i++) {
    const root = uf.find(i);
    const members = byRoot.get(root);
    if (members) members.push(i);
    else byRoot.set(root, [i]);
  }
  return [...byRoot.values()].filter((members) => members.length > 1);
}
