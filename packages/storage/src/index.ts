/** Auto-generated namespace barrel: one namespace per module. */
export * as AppInstance from "./AppInstance.ts"
export * as Database from "./Database.ts"
export * as DataDirLock from "./DataDirLock.ts"
export * as Migrations from "./Migrations.ts"
