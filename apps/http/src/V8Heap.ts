/**
 * The app's one change to V8's heap: allocation-site pretenuring off, set before any other module is evaluated
 * (`main.ts` imports this module first).
 *
 * V8 allocates an object literal straight into the old generation once most objects from the same literal outlived a
 * young-generation collection. Under load, the app's per-request literals tip that way, and then each one, dead with
 * its request, still holds the request's young objects through every scavenge until the next full collection: with
 * pretenuring on, about 1.4 MB survived each scavenge of the sandbox create benchmark, with it off 0.15 MB, and the
 * create's CPU fell by about a quarter (docs/benchmarks.md, "Garbage that outlives its request"; decision 0040).
 *
 * `--allocation-site-pretenuring` on the command line keeps V8's default.
 */
import * as V8 from "node:v8"

/** The V8 flag to set for a process started with `execArgv`, or undefined to leave V8's default. */
export const pretenuringFlag = (execArgv: ReadonlyArray<string>): string | undefined =>
  execArgv.some((argument) => /^--(no-)?allocation[-_]site[-_]pretenuring$/.test(argument))
    ? undefined
    : "--no-allocation-site-pretenuring"

const flag = pretenuringFlag(process.execArgv)
if (flag !== undefined) V8.setFlagsFromString(flag)
