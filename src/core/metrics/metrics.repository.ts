import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** Cross-workspace counts for /metrics (operator view; never exposed per tenant). */
@Injectable()
export class MetricsRepository {
  constructor(private readonly dataSource: DataSource) {}

  inboundEventsByStatus(): Promise<{ status: string; count: number }[]> {
    return this.dataSource.query('SELECT status, count(*)::int AS count FROM inbound_events GROUP BY status');
  }

  outboundMessagesByStatus(): Promise<{ status: string; count: number }[]> {
    return this.dataSource.query(
      `SELECT delivery_status AS status, count(*)::int AS count FROM messages WHERE direction = 'OUTBOUND' GROUP BY delivery_status`,
    );
  }
}
