import { createRouter } from '../../http/openapi';

export const dunningDocumentRoutes = createRouter();
