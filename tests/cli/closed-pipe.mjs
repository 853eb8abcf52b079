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
  const child = spawn(exe, [command, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.destroy();  // the read end closes before the command can write
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdin.end(input);
  const [code, signal] = await new Promise((resolve) => child.on('close', (c, s) => resolve([c, s])));
  const ok = code === 1 && signal === null && /cannot write to stdout/.test(stderr);
  console.log(`${command}: exit ${code}, signal ${signal}, stderr ${JSON.stringify(stderr.slice(0, 200))} ${ok ? 'ok' : 'FAILED'}`);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
