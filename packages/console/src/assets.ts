/**
 * Static assets, served by the app itself under content-addressed names (cached for a year):
 * htmx, pinned and read from its npm package when the app starts, and the console's own stylesheet
 * and script.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@svc/core';
import { clientScript } from './client-script.ts';
import { stylesheet } from './styles.ts';

interface Asset {
  path: string;
  type: string;
  body: string;
}

function htmx(): Asset {
  const file = fileURLToPath(import.meta.resolve('htmx.org/dist/htmx.min.js'));
  const { version } = JSON.parse(readFileSync(new URL('../package.json', `file://${file}`), 'utf8'));
  return {
    path: `/assets/htmx-${version}.min.js`,
    type: 'text/javascript; charset=utf-8',
    body: readFileSync(file, 'utf8'),
  };
}

function own(name: string, extension: string, type: string, body: string): Asset {
  return { path: `/assets/${name}-${sha256(body).slice(0, 12)}.${extension}`, type, body };
}

export interface Assets {
  htmx: Asset;
  script: Asset;
  style: Asset;
  all: Asset[];
}

let loaded: Assets | undefined;

/** Read once per process: the console and the sign-in pages share them. */
export function loadAssets(): Assets {
  if (loaded) return loaded;
  const assets = {
    htmx: htmx(),
    script: own('console', 'js', 'text/javascript; charset=utf-8', clientScript),
    style: own('console', 'css', 'text/css; charset=utf-8', stylesheet),
  };
  loaded = { ...assets, all: Object.values(assets) };
  return loaded;
}
