/**
 * A V8 CPU profile (the `.cpuprofile` JSON of `node --cpu-prof` and of the inspector's
 * Profiler.stop) summed up: self time per function and per category of code, so that a server's
 * time per request can be split into what node:http, the streams, crypto, logging and the server's
 * own code cost.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import fg from 'fast-glob';

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based, as V8 reports it. */
  readonly lineNumber: number;
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  /** µs, on the profiled process's monotonic clock. */
  readonly startTime: number;
  readonly endTime: number;
  /** The node on top of the stack at each sample. */
  readonly samples: readonly number[];
  /** µs from the previous sample (the first from startTime). */
  readonly timeDeltas: readonly number[];
}

/** In the tables' order: the servers' own code first, then Node's, then the VM's. */
export const categories = ['proxy', 'floor', 'logging', 'http', 'net', 'crypto', 'other', 'gc', 'program', 'idle'] as const;
export type Category = (typeof categories)[number];

export const categoryLabels: Record<Category, string> = {
  proxy: "the proxy's own code (its bundle)",
  floor: "the floor's own code (floor.ts, contract/)",
  logging: 'pino, sonic-boom, proxy/observe/log.ts',
  http: 'node:http internals',
  net: 'node:net, streams, socket writes (writev)',
  crypto: 'crypto (randomUUID)',
  other: 'other',
  gc: '(garbage collector)',
  program: '(program): native, outside JavaScript',
  idle: '(idle): waiting in the event loop',
};

/** Where the code being compared lives: the proxy's bundle (its entry and chunks) and the repository's own sources. */
export interface OwnCode {
  /**
   * Each file of the bundle by its file: URL, as it appears in call frames, with its source modules,
   * each with the 0-based line it starts on, in order (bundleModules()).
   */
  readonly bundles: ReadonlyMap<string, readonly BundleModule[]>;
  /** The repository's file: URL, ending in a slash: its files outside node_modules are the floor's code. */
  readonly repoUrl: string;
}

export interface BundleModule {
  readonly line: number;
  readonly module: string;
}

/** The source module of each part of an esbuild bundle, from the `// proxy/observe/log.ts` line esbuild writes where each begins. */
export function bundleModules(bundle: string): BundleModule[] {
  return bundle.split('\n').flatMap((text, line) => {
    const module = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(text)?.[1];
    return module ? [{ line, module }] : [];
  });
}

/** Every file of an esbuild bundle's folder (its entry and its chunks), by file: URL, with its source modules. */
export async function bundleFiles(folder: string): Promise<Map<string, BundleModule[]>> {
  // The entry and the chunks below it, listed as the rest of the repository lists files.
  const files = (await fg('**/*.mjs', { cwd: folder, onlyFiles: true })).sort();
  return new Map(
    await Promise.all(
      files.map(async (file): Promise<[string, BundleModule[]]> => {
        const absolute = path.join(folder, file);
        return [pathToFileURL(absolute).href, bundleModules(await readFile(absolute, 'utf8'))];
      }),
    ),
  );
}

function moduleAt(modules: readonly BundleModule[], line: number): string {
  let module = 'bundle';
  for (const candidate of modules) {
    if (candidate.line > line) break;
    module = candidate.module;
  }
  return module;
}

/** pino and the packages it writes through. */
const loggingPackages = /\/node_modules\/(pino[^/]*|sonic-boom|quick-format-unescaped|safe-stable-stringify|fast-redact|on-exit-leak-free|thread-stream)\//;
const metaFunctions: Readonly<Record<string, Category>> = { '(garbage collector)': 'gc', '(program)': 'program', '(idle)': 'idle', '(root)': 'other' };

/** V8's pseudo-frames ((program), (idle) …) and native functions (a binding's writev) have no URL. */
const isNative = (frame: CallFrame): boolean => frame.url === '' && metaFunctions[frame.functionName] === undefined;

/**
 * The name a frame's self time is summed under: the function, its file (a bundle's line named by its
 * source module, a package's file by its package) and 1-based line.
 */
export function labelOf(frame: CallFrame, code: OwnCode): string {
  const name = frame.functionName || '(anonymous)';
  const { url } = frame;
  if (url === '') return isNative(frame) ? `${name} (native)` : name;
  const line = frame.lineNumber + 1;
  const modules = code.bundles.get(url);
  if (modules) return `${name} ${moduleAt(modules, frame.lineNumber)} (${path.basename(url)}:${line})`;
  if (url.startsWith('node:')) return `${name} ${url}:${line}`;
  const packageName = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  return `${name} ${path.basename(url)}:${line}${packageName ? ` (${packageName})` : ''}`;
}

/** The category of a frame with a URL, or of one of V8's pseudo-frames. A native function takes its caller's (summariseProfile). */
export function categoryOf(frame: CallFrame, code: OwnCode): Category {
  const { url } = frame;
  if (url === '') return metaFunctions[frame.functionName] ?? 'other';
  const modules = code.bundles.get(url);
  if (modules) return moduleAt(modules, frame.lineNumber) === 'proxy/observe/log.ts' ? 'logging' : 'proxy';
  if (url.startsWith('node:_http') || url.startsWith('node:internal/http')) return 'http';
  if (/^node:(net|stream|internal\/streams\/|internal\/stream_base_commons)/.test(url)) return 'net';
  if (url.startsWith('node:internal/crypto/')) return 'crypto';
  if (loggingPackages.test(url)) return 'logging';
  if (url.startsWith(code.repoUrl) && !url.includes('/node_modules/')) return 'floor';
  return 'other';
}

/**
 * Self time per node in µs: a sample stands for the time until the next one, the last for the time
 * until the profile ends.
 */
export function selfMicros(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  let time = profile.startTime;
  for (const [index, node] of profile.samples.entries()) {
    time += profile.timeDeltas[index] ?? 0;
    const next = index + 1 < profile.samples.length ? time + (profile.timeDeltas[index + 1] ?? 0) : profile.endTime;
    self.set(node, (self.get(node) ?? 0) + Math.max(0, next - time));
  }
  return self;
}

export interface FunctionTime {
  readonly label: string;
  readonly category: Category;
  readonly micros: number;
}

export interface ProfileSummary {
  readonly samples: number;
  /** Self time outside (idle), in µs. */
  readonly busyMicros: number;
  readonly byCategory: Record<Category, number>;
  /** Every function with self time, the most first. */
  readonly byFunction: readonly FunctionTime[];
}

/**
 * Self time by category and by function. A native function's time (the socket's writev, most of
 * all: the system call, with loopback TCP's work for both ends) counts in the category of the
 * JavaScript that called it.
 */
export function summariseProfile(profile: CpuProfile, code: OwnCode): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id] as const)));
  const categoryOfNode = (id: number): Category => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) throw new Error(`the profile refers to node ${id}, which it does not list`);
    if (!isNative(frame)) return categoryOf(frame, code);
    const parent = parents.get(id);
    return parent === undefined ? 'other' : categoryOfNode(parent);
  };
  const byCategory = Object.fromEntries(categories.map((category) => [category, 0])) as Record<Category, number>;
  const byLabel = new Map<string, FunctionTime>();
  for (const [id, micros] of selfMicros(profile)) {
    const category = categoryOfNode(id);
    const label = labelOf(nodes.get(id)?.callFrame as CallFrame, code);
    byCategory[category] += micros;
    byLabel.set(`${label}\0${category}`, { label, category, micros: (byLabel.get(`${label}\0${category}`)?.micros ?? 0) + micros });
  }
  const busyMicros = categories.filter((category) => category !== 'idle').reduce((sum, category) => sum + byCategory[category], 0);
  const byFunction = [...byLabel.values()].sort((a, b) => b.micros - a.micros);
  return { samples: profile.samples.length, busyMicros, byCategory, byFunction };
}
