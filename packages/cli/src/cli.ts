/** The executable's entry (bundled into dist/svc.cjs): run `main` on this process. */
import { main } from './main.ts';

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // A reader that went away (`svc … | head`) is not a failure of the command.
  if (error.code !== 'EPIPE') throw error;
});

main(process.argv.slice(2), process.env).then((code) => {
  process.exitCode = code;
});
