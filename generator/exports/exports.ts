/**
 * The exports and change lists, as the rest of the generator sees them: what a build calls to write
 * every record type's NDJSON download (files.ts, cut into gzip members by chunks.ts and patched in
 * place by patch.ts), and the change list between each kept build and this one (changes.ts). Code
 * outside this folder imports this file only.
 */
export { buildExports, readExportsIndex, UnreadNotCopied, type BuiltExports } from './files.ts';
export { buildChangeLists, keptBuilds } from './changes.ts';
