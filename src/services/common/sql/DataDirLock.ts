/**
 * One process per data directory: PGlite has no lock of its own, and two processes on one
 * directory silently lose rows. The lock is a file created exclusively, holding the owner's PID;
 * a lock left by a process that no longer runs is taken over.
 */
import { Data, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { isRunning } from "../Processes.ts"

export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{ readonly message: string }> {}

const tryLock = (file: string): "taken" | number => {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: "wx" })
    return "taken"
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    const owner = Number(fs.readFileSync(file, "utf8").trim())
    if (owner === process.pid) return "taken"
    if (Number.isInteger(owner) && owner > 0 && isRunning(owner)) return owner
    fs.rmSync(file, { force: true })
    return tryLock(file)
  }
}

/** Holds the lock on `dataDir` for the scope's lifetime. */
export const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        fs.mkdirSync(dataDir, { recursive: true })
        const file = path.join(dataDir, "docstack.lock")
        const result = tryLock(file)
        if (result !== "taken") {
          throw new DataDirLocked({
            message: `Data directory ${path.resolve(dataDir)} is in use by process ${result}. ` +
              `Stop that process, or give this one another DATA_DIR or a DATABASE_URL.`
          })
        }
        return file
      },
      catch: (error) => error instanceof DataDirLocked ? error : new DataDirLocked({ message: String(error) })
    }),
    (file) => Effect.sync(() => fs.rmSync(file, { force: true }))
  )
