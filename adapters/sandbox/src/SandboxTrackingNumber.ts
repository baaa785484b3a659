/**
 * Sandbox tracking numbers carry everything tracking needs, since the sandbox stores nothing:
 * `SBX` + 12 Crockford base-32 characters — 7 for the creation time (seconds since 2025-01-01 UTC), 1 for the
 * scenario (delivery type and outcome), 3 random, 1 check character. A number that fails the check is unknown.
 */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const EPOCH_SECONDS = Date.UTC(2025, 0, 1) / 1000
const PATTERN = /^SBX[0-9A-HJKMNP-TV-Z]{12}$/

export const Scenarios = ["home_delivered", "home_returned", "stopdesk_delivered", "stopdesk_returned"] as const
export type Scenario = (typeof Scenarios)[number]

export interface Decoded {
  readonly createdAtSeconds: number
  readonly scenario: Scenario
}

const checkChar = (body: string) => {
  let sum = 0
  for (let i = 0; i < body.length; i++) sum += ALPHABET.indexOf(body[i]!) * (i + 1)
  return ALPHABET[sum % 32]!
}

export const encode = (createdAtSeconds: number, scenario: Scenario, random: ReadonlyArray<number>): string => {
  let time = Math.max(0, Math.floor(createdAtSeconds - EPOCH_SECONDS))
  let timePart = ""
  for (let i = 0; i < 7; i++) {
    timePart = ALPHABET[time % 32]! + timePart
    time = Math.floor(time / 32)
  }
  const body = `${timePart}${ALPHABET[Scenarios.indexOf(scenario)]}${random
    .slice(0, 3)
    .map((n) => ALPHABET[Math.abs(n) % 32])
    .join("")}`
  return `SBX${body}${checkChar(body)}`
}

export const decode = (trackingNumber: string): Decoded | undefined => {
  const normalised = trackingNumber.trim().toUpperCase()
  if (!PATTERN.test(normalised)) return undefined
  const body = normalised.slice(3, 14)
  if (checkChar(body) !== normalised[14]) return undefined
  let time = 0
  for (const char of body.slice(0, 7)) time = time * 32 + ALPHABET.indexOf(char)
  const scenario = Scenarios[ALPHABET.indexOf(body[7]!)]
  return scenario === undefined ? undefined : { createdAtSeconds: EPOCH_SECONDS + time, scenario }
}
