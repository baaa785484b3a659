/** What an adapter can do: the operations it may implement, by name (its `capabilities` are those it does). */
export const capabilities = [
  "create",
  "track",
  "rates",
  "label",
  "cancel",
  "trackBatch",
  "stopDesks",
  "communes",
  "checkCredentials"
] as const

export type Capability = (typeof capabilities)[number]
