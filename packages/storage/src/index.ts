/** PostgreSQL for Tawsil: embedded (PGlite) or a server, migrations, the data directory lock, notices between instances. */
export * as AppInstance from "./AppInstance.ts"
export * as Database from "./Database.ts"
export * as DataDirLock from "./DataDirLock.ts"
export * as Migrations from "./Migrations.ts"
export * as Notifications from "./Notifications.ts"
