import { app } from './app';
import { runScheduled } from './cron/index';
import type { Env, EventMessage } from './env';
import { consumeEvents } from './events/consumer';

export { TenantObject } from './objects/tenant-object';

export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(controller, env));
  },
  async queue(batch, env, _ctx) {
    await consumeEvents(batch, env);
  },
} satisfies ExportedHandler<Env, EventMessage>;
