/**
 * The order vitest hands out test files (`sequence.sequencer` in `vitest.config.ts`): vitest's own within a project
 * (the longest by the last run's durations, else the largest file, first), the projects in the order below rather
 * than by name. The process project's files are the longest and spend much of their time waiting on child
 * processes: started first, they overlap the memory and database projects' files instead of running as a tail of
 * their own. A project's files stay together, so a worker that shares a module graph (`isolate: false`) keeps it from
 * one file to the next.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node"

const ORDER = ["process", "database", "memory-isolated", "memory"]

const rank = (spec: TestSpecification) => {
  const at = ORDER.indexOf(spec.project.name)
  return at === -1 ? ORDER.length : at
}

export default class ProjectOrder extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    // Array.prototype.sort is stable: vitest's order holds within a project.
    return sorted.sort((a, b) => rank(a) - rank(b))
  }
}
