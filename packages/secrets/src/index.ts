/** Encryption at rest for the secrets Tawsil keeps: sealed values, the key ring, the key file, rotation. */
export * as KeyFile from "./KeyFile.ts"
export * as KeyRing from "./KeyRing.ts"
export * as KeyRotation from "./KeyRotation.ts"
export * as Resealing from "./Resealing.ts"
export * as SecretBox from "./SecretBox.ts"
export * as Secrets from "./Secrets.ts"
export * as SecretsError from "./SecretsError.ts"
