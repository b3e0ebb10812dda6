/**
 * How the signature checks fail: nothing throws out of the verification, every failure becomes a
 * sentence of the report.
 */

/** An expected failure, whose message is shown to the user as is. */
export class SignatureProblem extends Error {}

/** The message of anything thrown, for a report. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))
