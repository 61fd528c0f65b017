import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';

/**
 * A Node process running `script` as an ES module under tsx (so it may import the package's
 * TypeScript sources), with an IPC channel to this one.
 */
export function moduleChild(script: string, stdio: 'pipe' | 'inherit' = 'pipe'): ChildProcess {
  const io: StdioOptions = ['ignore', stdio, stdio, 'ipc'];
  return spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: io });
}
