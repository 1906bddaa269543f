/** What other modules may use from the CSAT module. */
export { CsatModule } from './csat.module';
export { CsatService } from './csat.service';
