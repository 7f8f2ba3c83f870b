/**
 * Pages are hono/jsx elements written as tagged templates (htm), so they need no JSX transform:
 * Node runs these files as they are, and hono/jsx escapes every interpolated value.
 */

import { jsx } from 'hono/jsx';
import htmModule from 'htm';

// htm's type declarations are CommonJS-shaped while Node loads its ES module, whose default export
// is the function itself.
const htm = htmModule as unknown as typeof htmModule.default;

export const html = htm.bind(jsx);

/** What a page or fragment renders to: one element, several, or nothing. */
export type Html = ReturnType<typeof html> | null;
