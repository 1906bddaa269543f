import { describe, expect, it } from '@jest/globals';
import { PreparedStatements } from './prepared-statements';

describe('PreparedStatements (the registry of statement names)', () => {
  const a = 'SELECT 1 FROM queues WHERE workspace_id = $1';
  const b = 'SELECT 2 FROM queues WHERE workspace_id = $1';

  it('names statements only inside its scope, one name per text, for every caller in the process', async () => {
    const registry = new PreparedStatements();
    expect(registry.nameFor(a)).toBeNull();
    const first = await registry.run(async () => {
      await new Promise((r) => setTimeout(r, 1)); // the scope follows the async call chain
      return registry.nameFor(a);
    });
    expect(first).toMatch(/^sis_\d+_\d+$/);
    expect(registry.run(() => registry.nameFor(a))).toBe(first);
    const second = registry.run(() => registry.nameFor(b));
    expect(second).not.toBe(first);
    expect(registry.size).toBe(2);
    expect(registry.nameFor(a)).toBeNull();
  });

  it('stops naming new texts at its capacity (known ones keep their names)', () => {
    const registry = new PreparedStatements(2);
    const [x, y, z] = registry.run(() => [registry.nameFor(a), registry.nameFor(b), registry.nameFor(`${a} -- 3`)]);
    expect(x).not.toBeNull();
    expect(y).not.toBeNull();
    expect(z).toBeNull();
    expect(registry.run(() => registry.nameFor(a))).toBe(x);
  });

  it('after a result-type change every text gets a name never used before', () => {
    const registry = new PreparedStatements();
    const before = registry.run(() => registry.nameFor(a));
    registry.invalidate();
    const after = registry.run(() => registry.nameFor(a));
    expect(after).not.toBeNull();
    expect(after).not.toBe(before);
    expect(registry.size).toBe(1);
  });
});
