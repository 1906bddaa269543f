import { AdvancedConsoleLogger, type QueryRunner } from 'typeorm';
import { dbStatements } from '../metrics/metrics';

/**
 * TypeORM's default logger (nothing enabled: it logs nothing more than before) that also counts
 * every statement in `sis_db_statements_total`. TypeORM calls `logQuery` for each query whatever the
 * logging options, so the count covers repositories, raw queries, streams and migrations.
 */
export class StatementCountingLogger extends AdvancedConsoleLogger {
  constructor() {
    super(undefined);
  }

  override logQuery(query: string, parameters?: unknown[], queryRunner?: QueryRunner): void {
    dbStatements.inc();
    super.logQuery(query, parameters, queryRunner);
  }
}
