import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_ENTRY, START_NODE_ARGS, nodeOptionsOf } from './start-command';

const root = process.cwd();

describe('the start command (issue 16 item 5)', () => {
  it('npm start runs the service with one V8 worker thread', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(nodeOptionsOf(pkg.scripts.start!, 'dist/bundle/main.js')).toEqual(['--v8-pool-size=1']);
    expect(SERVICE_ENTRY).toBe('dist/bundle/main.js');
    expect(START_NODE_ARGS).toEqual(['--v8-pool-size=1']);
  });

  it('the Docker image starts it with the same command line', () => {
    const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'));
    expect(cmd && (JSON.parse(cmd[1]!) as string[])).toEqual(['node', '--v8-pool-size=1', 'dist/bundle/main.js']);
  });

  it('reads the options of a node command line, and nothing else', () => {
    expect(nodeOptionsOf('node dist/src/main.js', 'dist/src/main.js')).toEqual([]);
    expect(nodeOptionsOf('node --a=1  --b dist/src/main.js', 'dist/src/main.js')).toEqual(['--a=1', '--b']);
    expect(nodeOptionsOf('nest start', 'dist/src/main.js')).toBeNull();
    expect(nodeOptionsOf('node dist/src/main.js --port 1', 'dist/src/main.js')).toBeNull();
  });

  it('is a set of options this Node accepts', async () => {
    const { execFileSync } = await import('node:child_process');
    // An unknown option makes node exit with "bad option" (execFileSync throws).
    const out = execFileSync(process.execPath, [...START_NODE_ARGS, '-e', 'process.stdout.write("ok")'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(out).toBe('ok');
  });
});
