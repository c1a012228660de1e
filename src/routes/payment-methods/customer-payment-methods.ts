import { createRouter } from '../../http/openapi';

// Placeholder while the payments issue is built; its routes follow.
export const customerPaymentMethodListRoutes = createRouter();
