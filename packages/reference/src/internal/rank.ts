/**
 * The ranking shared by the wilaya and commune searches: a candidate whose folded names equal the folded query
 * comes first, then one that starts with it, then one that merely contains it; ties keep the input order.
 */

const rankOf = (keys: ReadonlyArray<string>, query: string): number | undefined => {
  let best: number | undefined
  for (const key of keys) {
    const rank = key === query ? 0 : key.startsWith(query) ? 1 : key.includes(query) ? 2 : undefined
    if (rank !== undefined && (best === undefined || rank < best)) best = rank
  }
  return best
}

/** The candidates matching the folded `query`, best first. */
export const rank = <A>(
  candidates: ReadonlyArray<A>,
  keysOf: (candidate: A) => ReadonlyArray<string>,
  query: string
): Array<A> => {
  const matches: Array<{ readonly candidate: A; readonly rank: number }> = []
  for (const candidate of candidates) {
    const rank = rankOf(keysOf(candidate), query)
    if (rank !== undefined) matches.push({ candidate, rank })
  }
  // Array.prototype.sort is stable, so equal ranks stay in input order.
  return matches.sort((a, b) => a.rank - b.rank).map((match) => match.candidate)
}
