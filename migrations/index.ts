import { CreateIdentity1763800000000 } from './1763800000000-CreateIdentity';
import { CreateContacts1763800100000 } from './1763800100000-CreateContacts';
import { CreateCatalogue1763800300000 } from './1763800300000-CreateCatalogue';

/** Every migration, in order. A new migration file is added here as well. */
export const MIGRATIONS = [CreateIdentity1763800000000, CreateContacts1763800100000, CreateCatalogue1763800300000];
