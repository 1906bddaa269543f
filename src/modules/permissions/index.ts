/** What other modules may use from permissions: import from 'src/modules/permissions', nothing deeper. */
export { PermissionsModule } from './permissions.module';
