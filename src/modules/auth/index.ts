/** What other modules may use from auth: import from 'src/modules/auth', nothing deeper. */
export { AuthModule } from './auth.module';
