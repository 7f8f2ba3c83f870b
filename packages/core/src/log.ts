/**
 * The service's log: one structured entry per event (`level`, `msg`, and what the code adds), handed
 * to a sink the entry point chose. Core decides what is said, never where it goes.
 */
type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** One entry: how much it matters, what happened, and whatever fields the code adds. */
interface LogEntry {
  readonly level: LogLevel;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export type Log = (entry: LogEntry) => void;

/** Where nothing is wanted (tests, a quiet local stack). */
export const silentLog: Log = () => {};

/** Each entry as one JSON line: the format Lambda's JSON logs, CloudWatch and `npm start` read. */
export function jsonLog(write: (line: string) => void): Log {
  return (entry) => write(JSON.stringify(entry));
}
