import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';

/**
 * A listening sandbox whose clock stands still at `start` (it moves only when a test moves it),
 * so timestamp rules are tested at exact instants whatever the machine's clock or `TZ` says.
 */
export async function startFrozenSandbox(start: Date, options: Omit<SandboxOptions, 'clock'> = {}): Promise<Sandbox> {
  const sandbox = createSandbox({ ...options, clock: () => start });
  sandbox.clock.freeze();
  sandbox.clock.set(start);
  await sandbox.listen(0);
  return sandbox;
}
