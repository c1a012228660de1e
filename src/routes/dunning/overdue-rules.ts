import { createRouter } from '../../http/openapi';

export const dunningRuleRoutes = createRouter();
