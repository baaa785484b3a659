/**
 * The nonce rule of signed calls: 32 hexadecimal characters, chosen by the caller for each call, used at most once
 * per key within `LIFETIME` (an hour: twelve times the ±5-minute timestamp window, so a replay is refused for as
 * long as its timestamp could pass). Nonces compare ignoring letter case.
 */
import { randomBytes } from "node:crypto"
import { Duration } from "effect"

export const LIFETIME = Duration.hours(1)

const NONCE = /^[0-9a-fA-F]{32}$/

export const isNonce = (text: string): boolean => NONCE.test(text)

/** The form a nonce is remembered in. */
export const normalize = (nonce: string): string => nonce.toLowerCase()

/** A fresh nonce: 16 random bytes as lowercase hex. */
export const make = (): string => randomBytes(16).toString("hex")
