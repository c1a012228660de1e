// Positions as a request writes them (our fields and Fynn's), flattened for `buildPositions`.

/** One line of a request; `children` are lines under it (the tree is at most two levels deep). */
export interface PositionItem {
  name: string;
  description: string | null;
  quantity: string;
  unitPrice: string;
  /** When given, the invoice currency (manual lines are not converted). */
  currencyCode: string | null;
  /** A non-negative amount, or `discountPercentage` of quantity × unitPrice; not both. */
  discount: string | null;
  discountPercentage: string | null;
  /** A tax group resolves rate and category for the customer; or give taxRate (and taxCategory). */
  taxGroup: string | null;
  taxRate: string | null;
  taxCategory: string | null;
  unit: string | null;
  unitPriceInterval: string | null;
  product: string | null;
  subscriptionItem: string | null;
  serviceDateFrom: string | null;
  serviceDateTo: string | null;
  /** Index of an earlier top-level item of the same request, or the id of an existing position. */
  parent: string | null;
  children: PositionItem[];
  /** The field names the client used (ours or Fynn's), so violations name what was sent. */
  names?: { taxGroup: string; unit: string; discount: string };
}

/** A line ready for `buildPositions`: where its violations point and which line it hangs under. */
export interface PositionInput extends Omit<PositionItem, 'children' | 'parent'> {
  path: string;
  /** `index`: an earlier line of the same input list (-1: an invalid reference); `id`: an existing position. */
  parent: { index: number } | { id: string } | null;
}

/**
 * The items of a request in document order, each followed by its children. A top-level `parent`
 * of digits is the index of an earlier top-level item of the request; anything else names an
 * existing position (checked by the caller).
 */
export function flattenItems(items: readonly PositionItem[], path = 'positions'): PositionInput[] {
  // An empty path: the body is the one item itself (Fynn's position-items).
  const itemPath = (k: number) => (path === '' ? '' : `${path}[${k}]`);
  const out: PositionInput[] = [];
  const at = new Map<number, number>();
  items.forEach((item, k) => {
    const { children, parent, ...line } = item;
    let ref: PositionInput['parent'] = null;
    if (parent !== null && /^\d+$/.test(parent)) {
      const target = Number(parent);
      const valid = target < k && items[target]!.parent === null && children.length === 0;
      ref = { index: valid ? at.get(target)! : -1 };
    } else if (parent !== null) ref = children.length === 0 ? { id: parent } : { index: -1 };
    at.set(k, out.length);
    const self = out.length;
    out.push({ ...line, path: itemPath(k), parent: ref });
    children.forEach((child, j) => {
      const { children: _none, parent: _p, ...childLine } = child;
      out.push({ ...childLine, path: fieldPath(itemPath(k), `children[${j}]`), parent: { index: self } });
    });
  });
  return out;
}

/** The path of a field of a line (`positions[1].taxRate`, or `taxRate` for a body that is one line). */
export const fieldPath = (at: string, field: string) => (at === '' ? field : `${at}.${field}`);
