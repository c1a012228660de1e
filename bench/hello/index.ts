import { Hono } from 'hono';

// What GET /health answers, from a worker that does nothing else: no middleware, no bindings.
const app = new Hono();
app.get('/health', (c) => c.json({ status: 'ok' }));

export default app;
