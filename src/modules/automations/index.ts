/** What other modules may use from automations: import from 'src/modules/automations', nothing deeper. */
export { AutomationsModule } from './automations.module';
export { AutomationsService } from './automations.service';
