/**
 * Starts the stack: every service by default, or those named on the command line
 * (`npm start -- broker`). What runs is assembled in src/layers/Main.ts.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { runStack } from "./layers/Main.ts"

// runMain reports a failed start (a bad setting, a port in use) once, through the services' logger.
// The services' own logger (level per logger, changed at run time through the actuator) is the
// only one: runMain's pretty logger would print every line a second time, unfiltered.
NodeRuntime.runMain(runStack(process.argv.slice(2)), { disablePrettyLogger: true })
