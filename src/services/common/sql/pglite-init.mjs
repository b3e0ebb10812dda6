// Creates an empty PGlite data directory, then exits. Run as a child process because creating one
// (initdb) peaks at about 800 MB, which a long-running broker would otherwise keep as its high-water mark.
import { PGlite } from "@electric-sql/pglite"

const db = await PGlite.create(process.argv[2])
await db.close()
