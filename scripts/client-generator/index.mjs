// The TypeScript types of an OpenAPI document, as openapi-typescript writes them. A package of its
// own because openapi-typescript needs TypeScript 5's compiler API, which the project's TypeScript 7
// does not have: npm installs TypeScript 5 next to it, here, and nowhere else.
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = `// Generated from the API's /openapi.json by \`npm run client:generate\` (openapi-typescript).
// Do not edit: test/clients/typescript-client.browser.spec.ts fails when this differs from the document.

`;

/** The text of schema.d.ts for `document` (an OpenAPI 3.1 document object). */
export async function schemaTypes(document) {
  // defaultNonNullable: false, since a field with a default may be left out of a request body.
  const ast = await openapiTS(document, { alphabetize: false, exportType: false, defaultNonNullable: false });
  return HEADER + astToString(ast);
}
