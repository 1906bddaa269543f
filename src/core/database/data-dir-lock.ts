import { closeSync, existsSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded engine's data directory lock (DATA_DIR/pgdata.lock holds the owner's pid): two
 * processes opening the same PGlite directory would both "succeed" and lose writes. Dependency-free
 * so the CLI's thin client can ask who owns the directory without loading PGlite or Nest.
 */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. ` +
        `\`npm run cli\` reaches that service through ${join(dataDir, 'admin.sock')}; ` +
        `stop it to open the data directory directly (migrations), or set DATABASE_URL.`,
    );
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid holding the data dir, if a live process holds it (this process included). */
export function dataDirOwner(dataDir: string): number | null {
  const lock = join(dataDir, 'pgdata.lock');
  if (!existsSync(lock)) return null;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

export function lockDataDir(dataDir: string): void {
  const path = join(dataDir, 'pgdata.lock');
  const owner = dataDirOwner(dataDir);
  if (owner !== null && owner !== process.pid) throw new DataDirLockedError(dataDir, owner);
  rmSync(path, { force: true });
  const fd = openSync(path, 'wx');
  writeSync(fd, String(process.pid));
  closeSync(fd);
}

export function unlockDataDir(dataDir: string): void {
  const path = join(dataDir, 'pgdata.lock');
  if (existsSync(path) && readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
}
