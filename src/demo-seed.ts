import { JwtService } from '@nestjs/jwt';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from 'src/core/config/app-config';
import type { CommandContext } from 'src/cli-executor';
import { AppException } from 'src/core/errors/app.exception';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { createApp } from 'src/create-app';
import { InboundEventsService } from 'src/modules/inbound';
import { WorkspacesService } from 'src/modules/workspaces';

/** What `demo:seed` puts in a workspace: a small shop's support desk. */
const CONTACTS = [
  { name: 'Grace Hopper', email: 'grace@navy.example', phone: '+1 555 0100', tags: ['vip'] },
  { name: 'Alan Turing', email: 'alan@bletchley.example', phone: '+44 1908 640404', tags: ['uk'] },
  { name: 'Katherine Johnson', email: 'katherine@nasa.example', tags: ['wholesale'] },
  { name: 'Linus Torvalds', email: 'linus@kernel.example' },
];
const MESSAGES = [
  { senderId: 'demo-ada', senderName: 'Ada Lovelace', text: 'Hello! Is the Espresso Machine Pro in stock?' },
  { senderId: 'demo-charles', senderName: 'Charles Babbage', text: 'My grinder arrived with a cracked hopper.' },
  { senderId: 'demo-hedy', senderName: 'Hedy Lamarr', text: 'Can I change the delivery address of order 1042?' },
  { senderId: 'demo-ada', senderName: 'Ada Lovelace', text: 'And do you ship to the UK?' },
];
const TICKETS = [
  { subject: 'Replace cracked grinder hopper', priority: 'HIGH', description: 'Photo received; send a new hopper.' },
  { subject: 'Wholesale price list for 2027', priority: 'MEDIUM' },
  { subject: 'Update the returns page', priority: 'LOW', status: 'IN_PROGRESS' },
];
const CATALOGUE = [
  { name: 'Espresso Machine Pro', price: 1299.5, currency: 'USD', stock: 3, category: 'Coffee', sku: 'EM-PRO' },
  { name: 'Burr Grinder', price: 149, currency: 'USD', stock: 12, category: 'Coffee', sku: 'GR-7' },
  { name: 'Milk Frother', price: 39.9, currency: 'USD', stock: 25, category: 'Coffee', sku: 'MF-1' },
  { name: 'Descaler (4 doses)', price: 9.5, currency: 'USD', stock: 80, category: 'Care', sku: 'DS-4' },
  { name: 'Cups (set of 6)', price: 24, currency: 'USD', stock: 100, category: 'Tableware', sku: 'CUP-6' },
  { name: 'Gift card', price: 'Ask us', category: 'Other', sku: 'GIFT' },
];

/**
 * `npm run cli -- demo:seed [--workspace ID]`: fills a workspace through the public API of an
 * in-process instance (the same calls as the README): a Custom Channel, contacts, signed customer
 * messages that go through the inbound pipeline into conversations, tickets and a catalogue.
 */
export async function seedDemo(config: AppConfig, workspaceId: string | undefined): Promise<Record<string, unknown>> {
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  try {
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    return await seedDemoThrough((type) => app.get(type), base, workspaceId);
  } finally {
    await app.close();
  }
}

/**
 * The seed itself, through the public API at `base` of an application whose services `get` resolves:
 * the CLI's own instance (seedDemo) or the running service (admin socket).
 */
export async function seedDemoThrough(
  get: CommandContext['get'],
  base: string,
  workspaceId: string | undefined,
): Promise<Record<string, unknown>> {
  const workspaces = get(WorkspacesService);
  const workspace = workspaceId ? await workspaces.findById(workspaceId) : ((await workspaces.listAll(1))[0] ?? null);
  if (!workspace) throw AppException.notFound('Workspace');
  const admin = (await workspaces.listMembers(workspace.id)).find((m) => m.role === 'ADMIN');
  if (!admin) throw AppException.notFound('Workspace admin');
  const jwt = await get(JwtService).signAsync({ sub: admin.userId }, { expiresIn: 600 });
  const headers = {
    authorization: `Bearer ${jwt}`,
    'x-workspace-id': workspace.id,
    'content-type': 'application/json',
  };
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${String(json.message)}`);
    return json;
  };

  const result: Record<string, unknown> = { workspaceId: workspace.id, workspace: workspace.name };
  for (const contact of CONTACTS) await call('POST', '/contacts', contact);
  result.contacts = CONTACTS.length;
  for (const item of CATALOGUE) await call('POST', '/catalog', item);
  result.catalogItems = CATALOGUE.length;

  if (workspace.plan === 'ENTERPRISE') {
    const inboundSecret = randomBytes(16).toString('hex');
    const channel = await call('POST', '/channels/connect', {
      type: 'CUSTOM',
      displayName: 'Demo website chat',
      inboundSecret,
      // The README quick start's stand-in receiver; replies stay PENDING with an error without it.
      outboundUrl: 'http://127.0.0.1:4599/replies',
    });
    for (const message of MESSAGES) {
      const body = JSON.stringify(message);
      const signature = createHmac('sha256', inboundSecret).update(body).digest('hex');
      const response = await fetch(`${base}/custom-channel/${String(channel.id)}/inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${signature}` },
        body,
      });
      if (!response.ok) throw new Error(`inbound message → ${response.status}`);
    }
    // Stored events are queued up to 20 ms after their ack (InboundEventsService): queue them now, so
    // the drain below runs them before this command returns (and, on the CLI's own instance, closes).
    await get(InboundEventsService).enqueueLingering();
    await get(JobQueueService).inline.drain();
    result.channel = { id: channel.id, inboundUrl: channel.inboundUrl, inboundSecret };
    result.inboundMessages = MESSAGES.length;
  } else {
    result.channel = `skipped: a Custom Channel needs the ENTERPRISE plan (npm run cli -- workspace:plan --workspace ${workspace.id} --plan ENTERPRISE)`;
  }
  for (const ticket of TICKETS) await call('POST', '/tickets', ticket);
  result.tickets = TICKETS.length;
  const conversations = await call('GET', '/conversations?limit=100');
  result.conversations = (conversations.data as unknown[]).length;
  return result;
}
