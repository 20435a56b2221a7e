/** Progress for the person running a benchmark; on stderr, so stdout carries only the results. */
export const log = (line) => process.stderr.write(`${line}\n`);
