/**
 * Flags from flag-icons (MIT): the 4:3 SVG of each country, base64-encoded. The record carries the
 * SVG bytes unchanged, so a client decodes it and serves it as image/svg+xml.
 */
import { readFile } from 'node:fs/promises';
import { packageFilePath } from '../shared/packages.ts';

export async function loadFlag(alpha2Code: string): Promise<string> {
  const svg = await readFile(packageFilePath('flag-icons', `flags/4x3/${alpha2Code.toLowerCase()}.svg`));
  return svg.toString('base64');
}
