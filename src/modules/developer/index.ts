/** What other modules may use from developer: import from 'src/modules/developer', nothing deeper. */
export { DeveloperModule } from './developer.module';
export { ApiTokensService } from './api-tokens.service';
