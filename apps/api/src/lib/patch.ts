/**
 * The contract's PATCH rule: a field present in the body replaces the stored value (`null` clears a
 * nullable one); a field left out keeps it. `columns` maps body fields (snake_case) to row columns.
 */
export function applyPatch<Row extends object, Body extends object>(
  current: Row,
  body: Body,
  columns: { readonly [Field in keyof Body]?: keyof Row },
): Row {
  const next = { ...current };
  for (const [field, column] of Object.entries(columns) as [keyof Body, keyof Row][]) {
    const value = body[field];
    if (value !== undefined) next[column] = value as unknown as Row[keyof Row];
  }
  return next;
}
