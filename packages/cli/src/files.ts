import { readFile } from 'node:fs/promises';
import { CliError, ExitCode, LocalCode, localProblem } from './errors.ts';

/** The text of a file flag (standard input for `-`); a missing or unreadable file names the flag. */
export async function readTextFile(path: string, flag: string): Promise<string> {
  try {
    return path === '-' ? await readStdin() : await readFile(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new CliError(
      localProblem(LocalCode.FileUnreadable, `${flag}: ${path}: ${reason}`, [
        { path: flag, message: reason },
      ]),
      ExitCode.Usage,
    );
  }
}

/** The JSON in `--file` (or standard input for `-`); a missing file or bad JSON names the flag. */
export async function readJsonFile(path: string, flag = '--file'): Promise<unknown> {
  const text = await readTextFile(path, flag);
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = `not valid JSON (${(error as Error).message})`;
    throw new CliError(
      localProblem(LocalCode.InvalidArgument, `${flag}: ${path}: ${reason}`, [
        { path: flag, message: reason },
      ]),
      ExitCode.Usage,
    );
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
