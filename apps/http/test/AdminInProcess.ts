/**
 * The admin CLI run in the test's own process through the entry `npm run admin` runs (`admin/main.ts`): for tests
 * about what a command does, without a Node start and module load per command.
 */
import { Console as NodeConsole } from "node:console"
import { Writable } from "node:stream"
import { ConfigProvider, Console, Effect, Stdio } from "effect"
import * as AdminCli from "../src/admin/main.ts"
import { type AdminRun, environment } from "./AppProcess.ts"

/** What the admin CLI printed and the code it exits with. */
export interface AdminOutput extends AdminRun {
  readonly stdout: string
}

/**
 * The admin CLI's program (`admin/main.ts`, the module `npm run admin` runs) in this process, with these arguments
 * and `env` as its whole environment, its stdout and stderr captured: the exit code is the one its process would exit
 * with. No Node start and module load per command (about 1.5 s of CPU each); for tests about what a command does. The
 * process itself (the script line, exit codes, one line on stdout) stays tested through `runAdmin` and AdminCli.
 */
export const runAdminInProcess = (env: Record<string, string>, ...args: ReadonlyArray<string>) =>
  Effect.suspend(() => {
    let stdout = ""
    let stderr = ""
    const sink = (append: (text: string) => void) =>
      new Writable({
        write(chunk, _encoding, done) {
          append(String(chunk))
          done()
        }
      })
    const console = new NodeConsole({
      stdout: sink((text) => {
        stdout += text
      }),
      stderr: sink((text) => {
        stderr += text
      })
    })
    return AdminCli.program.pipe(
      // Inside `AdminCli.layer`, whose `Stdio` would read this process's arguments.
      Effect.provide(Stdio.layerTest({ args: Effect.succeed(args) })),
      Effect.provide(AdminCli.layer),
      Effect.provideService(Console.Console, console),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: environment(env) }))),
      Effect.flatMap((code) => {
        const lines = stdout.split("\n").filter((line) => line !== "")
        if (lines.length !== 1 || !lines[0]!.startsWith("{")) {
          return Effect.fail(new Error(`the admin CLI should print one JSON line, got:\n${stdout}\n${stderr}`))
        }
        return Effect.succeed<AdminOutput>({ code, stdout, stderr, json: JSON.parse(lines[0]!) })
      })
    )
  })
