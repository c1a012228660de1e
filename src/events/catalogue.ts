/** Every event the service emits, with what it means. GET /available-webhook-events will list these. */
export const EVENT_CATALOGUE = {
  'customer.created': 'A customer was created.',
  'customer.updated': 'A customer, one of its addresses, e-mail addresses, settings or its partner changed.',
  'customer.archived': 'A customer was archived.',
  'customer.unarchived': 'An archived customer was made active again.',
  'customer.deleted': 'A customer without documents was deleted.',
} as const;

export type EventType = keyof typeof EVENT_CATALOGUE;

/** Payload version written on every event; webhooks select it with their `version`. */
export const EVENT_VERSION = '2026-11-01';
