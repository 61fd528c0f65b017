import type { SandboxState } from './types.js';

/** A sandbox module's own state inside one sandbox, made by `create` the first time it is asked for. */
export function moduleSlot<T>(state: SandboxState, name: string, create: () => T): T {
  let slot = state.modules.get(name) as T | undefined;
  if (slot === undefined) {
    slot = create();
    state.modules.set(name, slot);
  }
  return slot;
}
