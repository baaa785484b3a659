/** Signed calls and signed webhooks: the TW-Public request signature with its clock window and single-use nonces, the X-TW-Signature webhook signature and the Standard Webhooks one. */
export * as Nonce from "./Nonce.ts"
export * as NonceStore from "./NonceStore.ts"
export * as NonceStoreSql from "./NonceStoreSql.ts"
export * as RequestSignature from "./RequestSignature.ts"
export * as RequestVerifier from "./RequestVerifier.ts"
export * as SigningError from "./SigningError.ts"
export * as StandardWebhookSignature from "./StandardWebhookSignature.ts"
export * as WebhookSignature from "./WebhookSignature.ts"
