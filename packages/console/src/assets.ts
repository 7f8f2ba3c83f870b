/**
 * Static assets, served by the app itself under content-addressed names (cached for a year):
 * htmx, pinned and read from its npm package when the app starts, and the console's own stylesheet,
 * script and icon (every page names the icon, so browsers never ask for a /favicon.ico).
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

/** A rounded square with a P: the tab icon. */
const icon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0a58ca"/><path d="M11 25V7h7a5.5 5.5 0 0 1 0 11h-3.5v7z" fill="#fff"/><path d="M14.5 10.5v4h3a2 2 0 0 0 0-4z" fill="#0a58ca"/></svg>`;

export interface Assets {
  htmx: Asset;
  script: Asset;
  style: Asset;
  icon: Asset;
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
    icon: own('icon', 'svg', 'image/svg+xml', icon),
  };
  loaded = { ...assets, all: Object.values(assets) };
  return loaded;
}
