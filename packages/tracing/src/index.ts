/** Spans of Tawsil's services: one switch a host sets once. */
export * as ServiceSpans from "./ServiceSpans.ts"
