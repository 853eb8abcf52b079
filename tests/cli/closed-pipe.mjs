// A command writing its result into a pipe whose read end is already closed must exit 1 with a
// message (EPIPE), not die by SIGPIPE nor exit 0. Run by tests/cli/conventions.cmake.
import { spawn } from 'node:child_process';

const exe = process.argv[2];
const cases = [
  ['attention', [], '{"x":[[1]],"w_q":[[1]],"w_k":[[1]],"w_v":[[1]]}'],
  ['feature-recovery', ['--seed', '0', '--steps', '0', '--eval-size', '4', '--out', '-'], ''],
];
let failed = false;
for (const [command, args, input] of cases) {
  // The command starts only once this process has closed the pipe's read end: sh waits for a
  // first line on stdin, which is sent after the read end's 'close' event, then execs the command.
  // (Spawned directly, a fast command could write into the pipe before the close lands, and exit 0.)
  const child = spawn('/bin/sh', ['-c', 'read go; exec "$0" "$@"', exe, command, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // A command that reads no stdin (feature-recovery) may exit before the input is written: the
  // write then fails with EPIPE, which belongs to this harness, not to the command under test.
  child.stdin.on('error', (e) => {
    if (e.code !== 'EPIPE') throw e;
  });
  await new Promise((resolve) => {
    child.stdout.once('close', resolve);
    child.stdout.destroy();
  });
  child.stdin.end(`go\n${input}`);
  const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  const ok = code === 1 && signal === null && /cannot write to stdout/.test(stderr);
  console.log(`${command}: exit ${code}, signal ${signal}, stderr ${JSON.stringify(stderr.slice(0, 200))} ${ok ? 'ok' : 'FAILED'}`);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
