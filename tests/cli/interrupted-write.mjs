// An interrupted write leaves the old file whole and no temporary file beside it (formats/file_io.hpp
// remove_temporaries_on_signals), and the process still ends by the signal (a shell reports 128 + n:
// 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). Run by tests/cli/conventions.cmake.
//
// The write is caught in progress without timing: the temporary file's name is "<out>.tmp-<pid>", so
// a shell makes it a FIFO under its own pid and then execs the command (same pid). The command's
// write then blocks until this process opens the FIFO and reads; once the first bytes have arrived,
// the command is part-way through a file several times larger than a pipe holds (64 KiB), and stays
// there until the signal.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [exe, dir] = process.argv.slice(2);
fs.mkdirSync(dir, { recursive: true });
const root = fs.realpathSync(dir);

const cases = [
  ['SIGINT', 'weights.json', ['max-digit', 'train', '--seed', '0', '--steps', '1']],
  ['SIGTERM', 'weights.json', ['max-digit', 'train', '--seed', '0', '--steps', '1']],
  ['SIGHUP', 'weights.json', ['max-digit', 'train', '--seed', '0', '--steps', '1']],
  ['SIGINT', 'model.safetensors', ['model', 'train', '--task', 'induction', '--seed', '0', '--steps', '1']],
];

let failed = false;
for (const [signal, name, args] of cases) {
  for (const f of fs.readdirSync(root)) fs.rmSync(path.join(root, f), { force: true });
  const out = path.join(root, name);
  fs.writeFileSync(out, 'previous\n');
  const child = spawn('/bin/sh', ['-c', 'mkfifo "$0.tmp-$$" && exec "$@"', out, exe, ...args, '--out', out], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve([code, sig])));
  const temporary = `${out}.tmp-${child.pid}`;
  // The state, not a time: the FIFO exists (polled), then the command has opened it and written.
  while (!fs.existsSync(temporary)) await new Promise((resolve) => setImmediate(resolve));
  const reader = await fs.promises.open(temporary, 'r');
  const { bytesRead } = await reader.read(Buffer.alloc(4096), 0, 4096);
  child.kill(signal);
  const [code, sig] = await exited;
  await reader.close();
  const left = fs.readdirSync(root).filter((f) => f.includes('.tmp-'));
  const previous = fs.readFileSync(out, 'utf8');
  const ok = bytesRead > 0 && code === null && sig === signal && left.length === 0 && previous === 'previous\n';
  console.log(
    `${args.slice(0, 2).join(' ')} ${signal}: read ${bytesRead} bytes of the write, ended by ${sig} (exit code ${code}), ` +
      `temporary files left ${JSON.stringify(left)}, old file ${previous === 'previous\n' ? 'intact' : 'CHANGED'}, ` +
      `stderr ${JSON.stringify(stderr.slice(0, 200))} ${ok ? 'ok' : 'FAILED'}`,
  );
  failed ||= !ok;
}
for (const f of fs.readdirSync(root)) fs.rmSync(path.join(root, f), { force: true });
process.exit(failed ? 1 : 0);
