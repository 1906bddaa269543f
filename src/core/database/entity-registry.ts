import type { MixedList } from 'typeorm';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export type EntityClass = Function;

const registered = new Set<EntityClass>();

/**
 * The entities modules registered with `DatabaseModule.forEntities([...])`. A module's `@Module`
 * decorator runs when its file is loaded, before the application builds its DataSource, so every
 * module the application imports has registered its entities by then. Core never lists them.
 */
export function registerEntities(entities: readonly EntityClass[]): void {
  for (const entity of entities) registered.add(entity);
}

export function registeredEntities(): MixedList<EntityClass> {
  return [...registered];
}
