// @ts-check
// The variants as the server describes them (GET /api/variants, docs/PROTOCOL.md): their
// facts (seats, sides, partners, the face-up card's name, the exchange, ...) come from the
// engine, and the browser never tells variants apart by their names.

/** The facts of the variant ``id`` in ``variants`` (GET /api/variants' answer), or null. */
export function variantFacts(variants, id) {
  return (variants && variants.variants.find((v) => v.id === id)) || null;
}

/** The variant offered first: the first one the server lists ("" before the list came). */
export function defaultVariant(variants) {
  return variants && variants.variants.length ? variants.variants[0].id : "";
}
