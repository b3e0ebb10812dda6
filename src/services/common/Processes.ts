/**
 * Other processes of this machine, as files they left behind name them (a lock, a worker bundle).
 */

/** Whether a process with this ID runs: signal 0 only asks (EPERM: it runs, under another user). */
export const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}
